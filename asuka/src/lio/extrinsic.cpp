#include <asuka/lio/extrinsic.hpp>

#include <vector>

#include <fmt/format.h>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>

namespace asuka::lio {

Eigen::Isometry3d rigid_from_config(const Config& c, const std::string& t_key, const std::string& R_key, const Eigen::Isometry3d& default_value) {
  const Eigen::Vector3d t = c.get<Eigen::Vector3d>(t_key, default_value.translation());
  const Eigen::Matrix3d& D = default_value.linear();
  const std::vector<double> r = c.get<std::vector<double>>(R_key, {D(0, 0), D(0, 1), D(0, 2), D(1, 0), D(1, 1), D(1, 2), D(2, 0), D(2, 1), D(2, 2)});
  if (r.size() != 9) throw ConfigError(c.name() + ": key '" + R_key + "' must hold 9 numbers (row-major rotation matrix), got " + std::to_string(r.size()));
  Eigen::Matrix3d R;
  R << r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8];
  const double off = (R * R.transpose() - Eigen::Matrix3d::Identity()).norm();
  if (off > 1e-3 || R.determinant() < 0.0) {
    throw ConfigError(fmt::format("{}: key '{}' is not a rotation matrix (orthonormal, determinant +1): |R R^T - I| = {:.3g}, det = {:.3g}", c.name(),
                                  R_key, off, R.determinant()));
  }
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = R;
  T.translation() = t;
  return T;
}

Eigen::Isometry3d extrinsic_from_config(const Config& c) { return rigid_from_config(c, "sensor.extrinsic_t", "sensor.extrinsic_R", default_extrinsic()); }

}  // namespace asuka::lio
