#pragma once
// The filter state of the LiDAR-inertial-visual frontends (fastlivo, srlivo): the navigation state,
// the current image's inverse exposure tau (relative to the first image used, which fixes the gauge
// at 1) and the lidar-IMU extrinsic. Error order: NavState (0..17), tau (18), extrinsic rotation
// (19..21) and translation (22..24). Without online extrinsic estimation the filter works on the
// first 19. The layout follows IeskfState's rules (ieskf_frontend.hpp): the LiDAR rows never touch
// tau, the visual updates own it.

#include <cmath>

#include <Eigen/Core>

#include <asuka/lio/nav_state.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {

struct LivoState : NavState {
  static constexpr int kExposure = 18, kExtRot = 19, kExtPos = 22, kDim = 25;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  static constexpr int active_dim(bool estimate_extrinsic) { return estimate_extrinsic ? kDim : kExposure + 1; }

  Eigen::Matrix3d R_il = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t_il = Eigen::Vector3d::Zero();
  double tau = 1.0;  ///< inverse exposure of the current image

  LivoState plus(const Tangent& d, int dim = kDim) const {
    LivoState s = *this;
    s.add(d.head<NavState::kDim>());
    if (dim > kExposure) s.tau += d[kExposure];
    if (dim > kExtRot) {
      s.R_il = R_il * so3::exp(d.segment<3>(kExtRot));
      s.t_il += d.segment<3>(kExtPos);
    }
    return s;
  }
  Tangent minus(const LivoState& o) const {
    Tangent d;
    d.head<NavState::kDim>() = NavState::minus(o);
    d[kExposure] = tau - o.tau;
    d.segment<3>(kExtRot) = so3::log(o.R_il.transpose() * R_il);
    d.segment<3>(kExtPos) = t_il - o.t_il;
    return d;
  }
};

/// The scalar Kalman update of the inverse exposure by a measurement `measured` of variance
/// `variance`. The inverse exposure is kept uncorrelated with the rest of the state: it is measured
/// apart from the pose (a median ratio of brightness), and neither the propagation nor the LiDAR rows
/// couple it. No change for a non-finite measurement or a non-positive variance.
template <class Covariance>
void fuse_inverse_exposure(LivoState& x, Covariance& P, double measured, double variance) {
  if (!(variance > 0.0) || !std::isfinite(measured)) return;
  const int k = LivoState::kExposure;
  const double prior_variance = P(k, k);
  const double gain = prior_variance / (prior_variance + variance);
  P.row(k).setZero();
  P.col(k).setZero();
  x.tau += gain * (measured - x.tau);
  P(k, k) = (1.0 - gain) * prior_variance;
}

}  // namespace asuka::lio
