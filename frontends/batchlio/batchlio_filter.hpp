#pragma once
// batchlio's filter (Point-LIO's model): the state, and the three steps on it as plain functions so
// that tests check each against its dense definition. The frame loop that calls them is batchlio.cpp.

#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/lio/nav_state.hpp>

#include "batchlio_params.hpp"

namespace asuka::batchlio {

/// The shared navigation state (asuka/lio/nav_state.hpp: rotation with right perturbation, position,
/// velocity, gyro bias, accel bias, gravity) plus the angular velocity and the specific force: 24
/// error dimensions.
struct State : lio::NavState {
  static constexpr int kOmega = 18, kAcc = 21, kDim = 24;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  Eigen::Vector3d omega = Eigen::Vector3d::Zero();  ///< [rad/s] angular velocity, IMU frame
  Eigen::Vector3d acc = Eigen::Vector3d::Zero();    ///< [m/s^2] specific force, IMU frame (what an ideal accelerometer reads)

  State plus(const Tangent& d) const {
    State s = *this;
    s.add(d.head<lio::NavState::kDim>());
    s.omega += d.segment<3>(kOmega);
    s.acc += d.segment<3>(kAcc);
    return s;
  }
};

using Covariance = Eigen::Matrix<double, State::kDim, State::kDim>;

/// Moves the state and covariance from `t` to `t_to` with the constant-rate process model; `t`
/// becomes `t_to` (nothing happens when t_to <= t).
void propagate(State& x, Covariance& P, double& t, double t_to, const BatchlioParams& params);

/// The IMU as a measurement of omega + bg and acc + ba; axes at >= 99 % of the range are left out.
/// Returns false when at least one axis was left out (a saturated sample).
bool update_imu(State& x, Covariance& P, const ImuData& imu, const BatchlioParams& params);

/// Point-to-plane residuals r_i with rows h_i (over rotation and position) and variance `var`: one
/// update with all of them (batch form), or one update per row (scalar form, batch_dt = 0).
void update_planes(State& x, Covariance& P, const std::vector<Eigen::Matrix<double, 1, 6>>& h, const std::vector<double>& r, double var,
                   bool sequential);

}  // namespace asuka::batchlio
