#pragma once
// Binary PCD files (x y z intensity, float32), readable by PCL and CloudCompare. No PCL needed.

#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka {

/// Writes points (and per-point intensity, or 0 when `intensity` is empty) as binary PCD v0.7.
bool write_pcd(const std::string& path, const std::vector<Eigen::Vector3f>& points, const std::vector<float>& intensity = {}, std::string* error = nullptr);

/// Reads x y z (float32) of a binary or ASCII PCD with fields x y z (others skipped). False and
/// `error` set on a malformed file.
bool read_pcd(const std::string& path, std::vector<Eigen::Vector3f>& points, std::string* error = nullptr);

}  // namespace asuka
