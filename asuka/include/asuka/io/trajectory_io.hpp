#pragma once
// TUM trajectory files: one pose per line, "t x y z qx qy qz qw" (seconds, metres, unit quaternion),
// the IMU/body pose in the world frame, stamped with the time at which it holds (docs/conventions.md).

#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace asuka {

struct StampedPose {
  double stamp = 0.0;  ///< [s]
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
};

/// Writes a TUM file (9 decimals: nanoseconds and nanometres; the same poses give the same bytes).
/// Returns false and sets `error` when the file cannot be written.
bool write_tum(const std::string& path, const std::vector<StampedPose>& poses, std::string* error = nullptr);

/// Reads a TUM file; '#' comments and blank lines are skipped. Returns false and sets `error`
/// (with the line number and what was expected) on a malformed line or a non-unit quaternion.
bool read_tum(const std::string& path, std::vector<StampedPose>& poses, std::string* error = nullptr);

}  // namespace asuka
