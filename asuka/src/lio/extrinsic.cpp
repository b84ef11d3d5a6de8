#include <asuka/lio/extrinsic.hpp>

#include <vector>

#include <asuka/config/config.hpp>

namespace asuka::lio {

Eigen::Isometry3d extrinsic_from_config(const Config& c) {
  const Eigen::Vector3d t = c.get<Eigen::Vector3d>("sensor.extrinsic_t", Eigen::Vector3d(0.04165, 0.02326, -0.0284));
  const std::vector<double> r = c.get<std::vector<double>>("sensor.extrinsic_R", {1, 0, 0, 0, 1, 0, 0, 0, 1});
  if (r.size() != 9) throw ConfigError(c.name() + ": key 'sensor.extrinsic_R' must hold 9 numbers (row-major rotation matrix), got " + std::to_string(r.size()));
  Eigen::Matrix3d R;
  R << r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8];
  if ((R * R.transpose() - Eigen::Matrix3d::Identity()).norm() > 1e-3 || R.determinant() < 0.0) {
    throw ConfigError(c.name() + ": key 'sensor.extrinsic_R' is not a rotation matrix (orthonormal, determinant +1)");
  }
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = R;
  T.translation() = t;
  return T;
}

}  // namespace asuka::lio
