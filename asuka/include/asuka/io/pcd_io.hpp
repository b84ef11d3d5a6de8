#pragma once
// Binary PCD files (x y z intensity, float32, or x y z rgb for coloured maps), readable by PCL and
// CloudCompare, and their reader (binary or ASCII). No PCL needed.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka {

/// Writes points (and per-point intensity, or 0 when `intensity` is empty) as binary PCD v0.7.
bool write_pcd(const std::string& path, const std::vector<Eigen::Vector3f>& points, const std::vector<float>& intensity = {}, std::string* error = nullptr);

/// Writes points with colours as binary PCD v0.7, fields x y z rgb: rgb is a float32 field whose bits
/// are 0x00RRGGBB (PCL's and CloudCompare's convention for coloured clouds). `rgb` has one entry per
/// point.
bool write_pcd_rgb(const std::string& path, const std::vector<Eigen::Vector3f>& points, const std::vector<std::array<std::uint8_t, 3>>& rgb,
                   std::string* error = nullptr);

/// Reads x y z (float32) of a binary or ASCII PCD with fields x y z (others skipped). False and
/// `error` set on a malformed file.
bool read_pcd(const std::string& path, std::vector<Eigen::Vector3f>& points, std::string* error = nullptr);

/// Reads x y z and the colours of a binary or ASCII PCD with fields x y z and rgb (or rgba), as
/// write_pcd_rgb writes them: `rgb` gets one {r, g, b} per point. False and `error` set on a malformed
/// file or one without an rgb field. The same reader as read_pcd.
bool read_pcd_rgb(const std::string& path, std::vector<Eigen::Vector3f>& points, std::vector<std::array<std::uint8_t, 3>>& rgb,
                  std::string* error = nullptr);

/// Reads x y z and the float32 field intensity (as write_pcd writes it) of a binary or ASCII PCD:
/// `intensity` gets one value per point. False and `error` set on a malformed file or one without an
/// intensity field. The same reader as read_pcd.
bool read_pcd_intensity(const std::string& path, std::vector<Eigen::Vector3f>& points, std::vector<float>& intensity, std::string* error = nullptr);

}  // namespace asuka
