#pragma once
// batchlio's filter (Point-LIO's model): the state, and the three steps on it as plain functions so
// that tests check each against its dense definition. The frame loop that calls them is batchlio.cpp.

#include <array>
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/lio/nav_state.hpp>
#include <asuka/math/so3.hpp>

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

// The steps are defined here, inline, so that the frame loop (batchlio.cpp) is compiled with them:
// in a translation unit of their own GCC optimizes the plane update's small fixed-size solves less
// well (+17 % instructions in update_planes, measured with callgrind).

namespace detail {
// Error-state indices, for the steps below.
constexpr int kRot = State::kRot, kPos = State::kPos, kVel = State::kVel, kBg = State::kBg, kBa = State::kBa, kGrav = State::kGrav,
              kOmega = State::kOmega, kAcc = State::kAcc, kDim = State::kDim;

/// P <- (P + P^T) / 2 in place (no temporary: this runs after every update).
inline void symmetrize(Covariance& P) {
  for (int c = 0; c < kDim; ++c) {
    for (int r = c + 1; r < kDim; ++r) P(r, c) = P(c, r) = 0.5 * (P(r, c) + P(c, r));
  }
}

/// P -= A B^T for a product known to be symmetric: each lower entry computed once (6 products) and
/// mirrored, so P stays exactly symmetric at half the work of the full product.
inline void subtract_symmetric(Covariance& P, const Eigen::Matrix<double, kDim, 6>& A, const Eigen::Matrix<double, kDim, 6>& B) {
  const Eigen::Matrix<double, 6, kDim> At = A.transpose(), Bt = B.transpose();  // rows as contiguous columns
  for (int c = 0; c < kDim; ++c) {
    for (int r = c; r < kDim; ++r) {
      const double v = P(r, c) - At.col(r).dot(Bt.col(c));
      P(r, c) = v;
      P(c, r) = v;
    }
  }
}

}  // namespace detail

/// Moves the state and covariance from `t` to `t_to` with the constant-rate process model; `t`
/// becomes `t_to` (nothing happens when t_to <= t).
inline void propagate(State& x, Covariance& P, double& t, double t_to, const BatchlioParams& params) {
  using namespace detail;
  const double dt = t_to - t;
  if (!(dt > 0.0)) return;
  // Error-state transition (lio::propagate_covariance):
  //   dtheta' = Exp(-w dt) dtheta + Jr(w dt) dt dw
  //   dp'     = dp + dt dv
  //   dv'     = dv - R [a]x dt dtheta + R dt da + dt dg
  // without forming F: 24x24 products would cost ten times more, at a thousand steps per second.
  const Eigen::Matrix3d E = so3::exp(x.omega * dt);  // the body's turn over dt
  lio::propagate_covariance(P, lio::PoseTransition{E.transpose(), so3::right_jacobian(x.omega * dt) * dt, -x.R * so3::hat(x.acc) * dt,
                                                     x.R * dt, dt, kOmega, kAcc});
  P.block<3, 3>(kOmega, kOmega).diagonal().array() += params.omega_process_cov * dt;
  P.block<3, 3>(kAcc, kAcc).diagonal().array() += params.acc_process_cov * dt;
  P.block<3, 3>(kBg, kBg).diagonal().array() += params.b_gyro_cov * dt;
  P.block<3, 3>(kBa, kBa).diagonal().array() += params.b_acc_cov * dt;

  const Eigen::Vector3d acc_world = x.R * x.acc + x.g;
  x.p += x.v * dt + 0.5 * acc_world * dt * dt;
  x.v += acc_world * dt;
  x.R = x.R * E;
  t = t_to;
}

/// The IMU as a measurement of omega + bg and acc + ba; axes at >= 99 % of the range are left out.
/// Returns false when at least one axis was left out (a saturated sample).
inline bool update_imu(State& x, Covariance& P, const ImuData& imu, const BatchlioParams& params) {
  using namespace detail;
  // Rows of the measurement: gyro axis k measures omega_k + bg_k, accel axis k measures acc_k + ba_k.
  // An axis at the end of its range reads the limit, not the motion: it is left out (Point-LIO's
  // saturation handling) and the lidar carries the state through the burst. A left-out row keeps its
  // place with a zero column in P H^T and a unit row in S, so its gain is exactly zero and every
  // matrix keeps a fixed size.
  Eigen::Matrix<double, kDim, 6> PHt;  // P H^T: each row of H is the sum of two unit rows
  Eigen::Matrix<double, 6, 1> e;
  std::array<bool, 6> used{};
  for (int i = 0; i < 6; ++i) {
    const int k = i % 3;
    const bool gyro = i < 3;
    const double z = gyro ? imu.gyro[k] : imu.acc[k];
    used[i] = std::fabs(z) < 0.99 * (gyro ? params.satu_gyro : params.satu_acc);
    const int state = (gyro ? kOmega : kAcc) + k, bias = (gyro ? kBg : kBa) + k;
    if (used[i]) {
      PHt.col(i) = P.col(state) + P.col(bias);
      e[i] = gyro ? z - x.omega[k] - x.bg[k] : z - x.acc[k] - x.ba[k];
    } else {
      PHt.col(i).setZero();
      e[i] = 0.0;
    }
  }
  Eigen::Matrix<double, 6, 6> S;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      const int k = j % 3;
      S(j, i) = (used[i] && used[j]) ? PHt((j < 3 ? kOmega : kAcc) + k, i) + PHt((j < 3 ? kBg : kBa) + k, i) : 0.0;
    }
    S(i, i) = used[i] ? S(i, i) + (i < 3 ? params.gyro_cov : params.acc_cov) : 1.0;
  }
  const Eigen::Matrix<double, kDim, 6> K = S.ldlt().solve(PHt.transpose()).transpose();  // P H^T S^-1
  x = x.plus(K * e);
  // P -= K PHt^T = PHt S^-1 PHt^T, symmetric. (P must stay symmetric
  // after every update, not once per scan: the next gain reads P's columns and the update subtracts
  // its rows, so an asymmetry is fed back and grows; it diverged within 30 s.)
  detail::subtract_symmetric(P, K, PHt);
  return used[0] && used[1] && used[2] && used[3] && used[4] && used[5];
}

/// Point-to-plane residuals r_i with rows h_i (over rotation and position) and variance `var`: one
/// update with all of them (batch form), or one update per row (scalar form, batch_dt = 0).
inline void update_planes(State& x, Covariance& P, const std::vector<Eigen::Matrix<double, 1, 6>>& h, const std::vector<double>& r, double var,
                   bool sequential) {
  using namespace detail;
  if (h.empty()) return;
  if (sequential) {
    // Point-LIO's form: one scalar measurement at a time. K = P h^T / (h P h^T + var); the state is
    // re-linearized only between scans of the map, as in Point-LIO (h was computed at the window's
    // prior, and so were the residuals: each update shifts the next residual by h dx).
    Eigen::Matrix<double, kDim, 1> dx_total = Eigen::Matrix<double, kDim, 1>::Zero();
    for (std::size_t i = 0; i < h.size(); ++i) {
      const Eigen::Matrix<double, kDim, 1> PHt = P.leftCols<6>() * h[i].transpose();
      const double s = h[i] * PHt.head<6>() + var;
      const double innovation = -(r[i] + h[i] * dx_total.head<6>());
      const Eigen::Matrix<double, kDim, 1> K = PHt / s;
      dx_total += K * innovation;
      P -= K * PHt.transpose();
    }
    x = x.plus(dx_total);
    detail::symmetrize(P);
    return;
  }
  // All rows at once, in information form on the six columns they touch:
  //   G = H^T H / var, b = H^T r / var, T = (I + G P66)^-1
  //   dx = -P[:, :6] T b,   P -= P[:, :6] T G P[:6, :]
  // (Woodbury: a 6x6 solve however many points the window holds.)
  Eigen::Matrix<double, 6, 6> G = Eigen::Matrix<double, 6, 6>::Zero();
  Eigen::Matrix<double, 6, 1> b = Eigen::Matrix<double, 6, 1>::Zero();
  for (std::size_t i = 0; i < h.size(); ++i) {
    G.noalias() += h[i].transpose() * h[i];
    b.noalias() += h[i].transpose() * r[i];
  }
  G /= var;
  b /= var;
  const Eigen::Matrix<double, kDim, 6> PH = P.leftCols<6>();
  const Eigen::Matrix<double, 6, 6> S = Eigen::Matrix<double, 6, 6>::Identity() + G * PH.topRows<6>();
  const Eigen::PartialPivLU<Eigen::Matrix<double, 6, 6>> lu(S);
  const Eigen::Matrix<double, 6, 1> Tb = lu.solve(b);
  const Eigen::Matrix<double, 6, 6> TG = lu.solve(G);
  x = x.plus(-PH * Tb);
  // P -= PH TG PH^T, symmetric.
  const Eigen::Matrix<double, kDim, 6> PHTG = PH * TG;
  detail::subtract_symmetric(P, PHTG, PH);
}

}  // namespace asuka::batchlio
