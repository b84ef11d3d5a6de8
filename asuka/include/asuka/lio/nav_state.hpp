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

/// Prior variances of the navigation-state blocks at initialization, per axis.
struct NavPrior {
  double rot = 1e-4;   ///< [rad^2]
  double pos = 1e-4;   ///< [m^2]
  double vel = 1e-2;   ///< [(m/s)^2]
  double bg = 1e-4;    ///< [(rad/s)^2]
  double ba = 1e-3;    ///< [(m/s^2)^2]
  double grav = 1e-5;  ///< [(m/s^2)^2]
};

/// The prior after a moving start (#12 item 1, ImuInitializer::moving()): the gyro bias could not be
/// measured at rest and starts at zero, the velocity is unknown (the LiDAR registrations of the first
/// scans measure it), and gravity, whose direction in the world frame the motion tilts by up to a few
/// degrees, is left for the filter to estimate (the world frame is fixed by the first scan's pose).
inline NavPrior moving_start_prior() {
  NavPrior p;
  // Wide: the first registrations measure the velocity; a tighter prior let gravity and the accel
  // bias take up what the velocity did not (metres off on an aggressive start at 4 m/s).
  p.vel = 10.0 * 10.0;
  p.bg = 0.05 * 0.05;  // the largest MEMS gyro biases
  p.ba = 1e-2;
  p.grav = 0.1;        // [(m/s^2)^2]: the 1-2 degrees of tilt the motion's mean acceleration leaves
  return p;
}

/// Sets the diagonals of the navigation-state blocks of P (the first NavState::kDim rows and
/// columns) to `prior`; the rest of P is left as it is.
template <int N>
void set_prior(Eigen::Matrix<double, N, N>& P, const NavPrior& prior) {
  P.template block<3, 3>(NavState::kRot, NavState::kRot).diagonal().setConstant(prior.rot);
  P.template block<3, 3>(NavState::kPos, NavState::kPos).diagonal().setConstant(prior.pos);
  P.template block<3, 3>(NavState::kVel, NavState::kVel).diagonal().setConstant(prior.vel);
  P.template block<3, 3>(NavState::kBg, NavState::kBg).diagonal().setConstant(prior.bg);
  P.template block<3, 3>(NavState::kBa, NavState::kBa).diagonal().setConstant(prior.ba);
  P.template block<3, 3>(NavState::kGrav, NavState::kGrav).diagonal().setConstant(prior.grav);
}

/// At rest the accelerometer reads f = ba - R^T g, and the mean of f cannot tell a horizontal accel
/// bias from a tilt: the initializer levels R on f, so whatever horizontal bias there is sits in the
/// world frame as a tilt of gravity (the map is built in that frame and then holds R to it). The prior
/// therefore couples the two: a change of the bias moves the world-frame gravity with it,
/// dg = H R dba (H the horizontal projector of the world), which keeps f as measured. Without the
/// coupling, gravity is held to its small prior and a bias that a turn later reveals is taken as
/// acceleration: along a corridor, where no scan measures the position along the axis, that
/// acceleration is integrated into metres (#21). The vertical part of the bias is measured at rest
/// (|f| against the configured gravity) and stays uncoupled. Sets P's gravity block to `prior`'s own
/// variance plus the bias's share, and its cross-covariance with the accel bias; call after
/// set_prior(P, prior), with the initial attitude.
template <int N>
void couple_gravity_to_accel_bias(Eigen::Matrix<double, N, N>& P, const Eigen::Matrix3d& R_world_imu, const NavPrior& prior = {}) {
  constexpr int kBa = NavState::kBa, kGrav = NavState::kGrav;
  const Eigen::Matrix3d bias = P.template block<3, 3>(kBa, kBa);
  Eigen::Matrix3d horizontal = Eigen::Matrix3d::Identity();
  horizontal(2, 2) = 0.0;
  const Eigen::Matrix3d J = horizontal * R_world_imu;  // dg = J dba
  P.template block<3, 3>(kGrav, kGrav) = prior.grav * Eigen::Matrix3d::Identity() + J * bias * J.transpose();
  P.template block<3, 3>(kGrav, kBa) = J * bias;
  P.template block<3, 3>(kBa, kGrav) = (J * bias).transpose();
}

/// One propagation step of the rotation, position and velocity errors, the part of the error-state
/// transition F the filter frontends share (F = I elsewhere):
///   dtheta' = A dtheta + B dx_b          (A = Exp(-w dt); x_b = the gyro bias or the angular rate)
///   dp'     = dp + dt dv
///   dv'     = dv + C dtheta + D dx_d + dt dg   (x_d = the accel bias or the specific force)
struct PoseTransition {
  Eigen::Matrix3d A, B, C, D;
  double dt = 0.0;
  int b_index = NavState::kBg;  ///< first error index of x_b
  int d_index = NavState::kBa;  ///< first error index of x_d
};

/// P <- F P F^T for that transition, without forming F: only the nine rows and columns of the
/// rotation, position and velocity change, so a step costs two 9 x N products instead of two
/// N x N x N ones. The process noise is the caller's to add.
template <int N>
void propagate_covariance(Eigen::Matrix<double, N, N>& P, const PoseTransition& f) {
  constexpr int kRot = NavState::kRot, kPos = NavState::kPos, kVel = NavState::kVel, kGrav = NavState::kGrav;
  static_assert(kPos == kRot + 3 && kVel == kPos + 3, "rows and columns kRot..kVel are updated as one block");
  // Rows first (from the old rows), then columns (from the new rows).
  Eigen::Matrix<double, 9, N> rows;
  rows.template middleRows<3>(0).noalias() = f.A * P.template middleRows<3>(kRot) + f.B * P.template middleRows<3>(f.b_index);
  rows.template middleRows<3>(3) = P.template middleRows<3>(kPos) + f.dt * P.template middleRows<3>(kVel);
  rows.template middleRows<3>(6).noalias() = P.template middleRows<3>(kVel) + f.C * P.template middleRows<3>(kRot) +
                                             f.D * P.template middleRows<3>(f.d_index) + f.dt * P.template middleRows<3>(kGrav);
  P.template middleRows<9>(kRot) = rows;
  Eigen::Matrix<double, N, 9> cols;
  cols.template middleCols<3>(0).noalias() = P.template middleCols<3>(kRot) * f.A.transpose() + P.template middleCols<3>(f.b_index) * f.B.transpose();
  cols.template middleCols<3>(3) = P.template middleCols<3>(kPos) + f.dt * P.template middleCols<3>(kVel);
  cols.template middleCols<3>(6).noalias() = P.template middleCols<3>(kVel) + P.template middleCols<3>(kRot) * f.C.transpose() +
                                             P.template middleCols<3>(f.d_index) * f.D.transpose() + f.dt * P.template middleCols<3>(kGrav);
  P.template middleCols<9>(kRot) = cols;
}

}  // namespace asuka::lio
