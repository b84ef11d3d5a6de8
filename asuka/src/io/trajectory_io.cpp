#include <asuka/io/trajectory_io.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace asuka {

bool TumWriter::open(const std::string& path, std::string* error) {
  path_ = path;
  written_ = 0;
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) {
    if (error) *error = "cannot open " + path + " for writing";
    return false;
  }
  return true;
}

void TumWriter::write(const StampedPose& pose) {
  const Eigen::Vector3d t = pose.T_world_imu.translation();
  Eigen::Quaterniond q(pose.T_world_imu.linear());
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();  // one canonical sign: identical poses, identical bytes
  out_ << fmt::format("{:.9f} {:.9f} {:.9f} {:.9f} {:.9f} {:.9f} {:.9f} {:.9f}\n", pose.stamp, t.x(), t.y(), t.z(), q.x(), q.y(), q.z(), q.w());
  ++written_;
}

bool TumWriter::close(std::string* error) {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok && error) *error = "error while writing " + path_;
  return ok;
}

bool write_tum(const std::string& path, const std::vector<StampedPose>& poses, std::string* error) {
  TumWriter writer;
  if (!writer.open(path, error)) return false;
  for (const auto& pose : poses) writer.write(pose);
  return writer.close(error);
}

bool read_tum(const std::string& path, std::vector<StampedPose>& poses, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = "cannot open " + path;
    return false;
  }
  poses.clear();
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream ss(line);
    double v[8];
    for (double& x : v) {
      if (!(ss >> x) || !std::isfinite(x)) {
        if (error) *error = fmt::format("{}:{}: expected 8 finite numbers 't x y z qx qy qz qw', got '{}'", path, number, line);
        return false;
      }
    }
    Eigen::Quaterniond q(v[7], v[4], v[5], v[6]);
    if (std::fabs(q.norm() - 1.0) > 1e-3) {
      if (error) *error = fmt::format("{}:{}: quaternion norm {:.6f} is not 1", path, number, q.norm());
      return false;
    }
    StampedPose pose;
    pose.stamp = v[0];
    pose.T_world_imu.linear() = q.normalized().toRotationMatrix();
    pose.T_world_imu.translation() = Eigen::Vector3d(v[1], v[2], v[3]);
    poses.push_back(pose);
  }
  return true;
}

}  // namespace asuka
