#pragma once
// TUM trajectory files: one pose per line, "t x y z qx qy qz qw" (seconds, metres, unit quaternion),
// the IMU/body pose in the world frame, stamped with the time at which it holds (docs/conventions.md).

#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace asuka {

struct StampedPose {
  double stamp = 0.0;  ///< [s]
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
};

/// A TUM file written pose by pose, for streams that are not kept in memory (a long run's high-rate
/// poses, a simulation's ground truth). The same format and bytes as write_tum.
class TumWriter {
public:
  /// Opens (truncates) `path`; false and `error` when it cannot be opened.
  bool open(const std::string& path, std::string* error = nullptr);
  bool is_open() const { return out_.is_open(); }
  void write(const StampedPose& pose);
  void flush() { out_.flush(); }
  /// Flushes and closes; false and `error` when anything could not be written.
  bool close(std::string* error = nullptr);
  std::size_t written() const { return written_; }

private:
  std::ofstream out_;
  std::string path_;
  std::size_t written_ = 0;
};

/// Writes a TUM file (9 decimals: nanoseconds and nanometres; the same poses give the same bytes).
/// Returns false and sets `error` when the file cannot be written.
bool write_tum(const std::string& path, const std::vector<StampedPose>& poses, std::string* error = nullptr);

/// Reads a TUM file; '#' comments and blank lines are skipped. Returns false and sets `error`
/// (with the line number and what was expected) on a malformed line or a non-unit quaternion.
bool read_tum(const std::string& path, std::vector<StampedPose>& poses, std::string* error = nullptr);

}  // namespace asuka
