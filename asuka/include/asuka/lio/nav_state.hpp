#pragma once
// The navigation state the filter frontends share: rotation, position, velocity, gyro and accel
// biases and gravity on SO(3) x R^15, with the error-state order and the right perturbation of R
// (R (+) d = R Exp(d_rot)). fastlio's state is exactly this; batchlio extends it.

#include <Eigen/Core>

#include <asuka/math/so3.hpp>

namespace asuka::lio {

struct NavState {
  static constexpr int kRot = 0, kPos = 3, kVel = 6, kBg = 9, kBa = 12, kGrav = 15, kDim = 18;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();      ///< R_world_imu
  Eigen::Vector3d p = Eigen::Vector3d::Zero();          ///< [m] world
  Eigen::Vector3d v = Eigen::Vector3d::Zero();          ///< [m/s] world
  Eigen::Vector3d bg = Eigen::Vector3d::Zero();         ///< [rad/s]
  Eigen::Vector3d ba = Eigen::Vector3d::Zero();         ///< [m/s^2]
  Eigen::Vector3d g = Eigen::Vector3d(0, 0, -9.80665);  ///< [m/s^2] world

  /// this (+) d for the first kDim components of `d`.
  template <typename Derived>
  void add(const Eigen::MatrixBase<Derived>& d) {
    R = R * so3::exp(d.template segment<3>(kRot));
    p += d.template segment<3>(kPos);
    v += d.template segment<3>(kVel);
    bg += d.template segment<3>(kBg);
    ba += d.template segment<3>(kBa);
    g += d.template segment<3>(kGrav);
  }
  NavState plus(const Tangent& d) const {
    NavState s = *this;
    s.add(d);
    return s;
  }
  /// True when the estimate is no longer usable: a non-finite pose or velocity, or a speed no
  /// platform reaches [m/s]. A frontend reports failure instead of feeding such a state to its map.
  bool diverged(double max_speed = 200.0) const { return !R.allFinite() || !p.allFinite() || !v.allFinite() || v.norm() > max_speed; }

  /// this (-) other
  Tangent minus(const NavState& o) const {
    Tangent d;
    d.segment<3>(kRot) = so3::log(o.R.transpose() * R);
    d.segment<3>(kPos) = p - o.p;
    d.segment<3>(kVel) = v - o.v;
    d.segment<3>(kBg) = bg - o.bg;
    d.segment<3>(kBa) = ba - o.ba;
    d.segment<3>(kGrav) = g - o.g;
    return d;
  }
};

}  // namespace asuka::lio
