#pragma once
// FAST-LIO's IMU forward propagation and backward de-skew (Xu et al., FAST-LIO, RA-L 2021, Sec.
// IV-B/C; FAST-LIO2, T-RO 2022), the process model of every frontend built on its iterated error-
// state filter (fastlio, and superlio, fastlivo and srlivo to come): the IMU is the process input,
// integrated with mid-point rates from the state's time to the scan end, and every point is then
// moved to where the sensor was at the scan end using the poses passed on the way.

#include <algorithm>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/lio/nav_state.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {

/// Process noise of the IMU input, per sample (FAST-LIO's gyr_cov, acc_cov, b_gyr_cov, b_acc_cov),
/// and the model used across an IMU gap.
struct ImuProcessNoise {
  double gyr_cov = 0.1;    ///< [(rad/s)^2]
  double acc_cov = 0.1;    ///< [(m/s^2)^2]
  double b_gyr_cov = 1e-4; ///< gyroscope bias random walk
  double b_acc_cov = 1e-4; ///< accelerometer bias random walk
  /// [s] two consecutive samples further apart than this (or a scan end this long after the last
  /// sample) are an IMU gap (#12 item 6): across it the state moves at constant velocity and at the
  /// caller's rate of rotation (the rate its LiDAR-registered poses show) instead of extrapolating
  /// one sample's rates, and its covariance grows by an unknown acceleration and angular rate, so
  /// that the LiDAR updates carry the state until samples return.
  /// The synchronizers warn of the same gaps (kImuGapSeconds).
  double max_gap = 0.1;
  double gap_acc_std = 5.0;   ///< [m/s^2] unknown acceleration, constant over each step of a gap
  double gap_gyro_std = 2.0;  ///< [rad/s] unknown angular rate, constant over each step of a gap
};

/// The propagated state at an IMU sample, and the rates used after it.
struct ImuPose {
  double t = 0.0;  ///< [s]
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero(), v = Eigen::Vector3d::Zero();
  Eigen::Vector3d acc_world = Eigen::Vector3d::Zero();  ///< [m/s^2] bias-corrected, gravity added
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();      ///< [rad/s] bias-corrected
};

/// The poses one forward propagation passed through, its last one at the scan end.
class ImuTrajectory {
public:
  void clear() { poses_.clear(); }
  void push(const ImuPose& pose) { poses_.push_back(pose); }
  bool empty() const { return poses_.empty(); }
  const std::vector<ImuPose>& poses() const { return poses_; }

  /// Backward de-skew: a point measured at time `t` [s], `p_imu` in the IMU frame at that time, in
  /// the IMU frame at the end of the trajectory. The pose at `t` is the last pose before it, moved
  /// on with its rates. Not for an empty trajectory.
  Eigen::Vector3d to_end(const Eigen::Vector3d& p_imu, double t) const {
    const ImuPose& end = poses_.back();
    auto it = std::upper_bound(poses_.begin(), poses_.end(), t, [](double v, const ImuPose& pose) { return v < pose.t; });
    const ImuPose& pose = it == poses_.begin() ? poses_.front() : *(it - 1);
    const double dt = t - pose.t;
    const Eigen::Matrix3d R = pose.R * so3::exp(pose.omega * dt);
    const Eigen::Vector3d p = pose.p + pose.v * dt + 0.5 * pose.acc_world * dt * dt;
    return end.R.transpose() * (R * p_imu + p - end.p);
  }

private:
  std::vector<ImuPose> poses_;
};

/// Forward propagation of `x` and `P` from `t` to `end` through `imu` (the package's samples),
/// preceded by `last` (the last sample of the previous package). Mid-point rates per interval; after
/// the last sample, its rates up to `end`. An interval longer than q.max_gap (samples missing), and
/// the time after the last sample when `end` lies more than q.max_gap after it, are propagated at
/// constant velocity and at the body rate `gap_rate` [rad/s] with the gap noise of `q` instead. `t` becomes `end`, `last` the package's last sample, and
/// `trajectory` holds the poses passed, ending with the state at `end` (empty when there is no IMU
/// at all). State is a NavState (or extends one); P's other blocks are carried unchanged.
template <class State, int N>
void propagate_imu(State& x, Eigen::Matrix<double, N, N>& P, double& t, std::optional<ImuData>& last, const std::vector<ImuData>& package, double end,
                   const ImuProcessNoise& q, ImuTrajectory& trajectory, const Eigen::Vector3d& gap_rate = Eigen::Vector3d::Zero()) {
  constexpr int kRot = NavState::kRot, kVel = NavState::kVel, kBg = NavState::kBg, kBa = NavState::kBa;
  std::vector<ImuData> imu;
  imu.reserve(package.size() + 1);
  if (last) imu.push_back(*last);
  imu.insert(imu.end(), package.begin(), package.end());
  trajectory.clear();
  if (imu.empty()) return;

  auto step = [&](const ImuData& a, const ImuData& b, double t0, double t1) {
    const double dt = t1 - t0;
    if (!(dt > 0.0)) return;
    // Mid-point rates of the interval, bias-corrected.
    const Eigen::Vector3d w = 0.5 * (a.gyro + b.gyro) - x.bg;
    const Eigen::Vector3d acc = 0.5 * (a.acc + b.acc) - x.ba;
    const Eigen::Vector3d acc_world = x.R * acc + x.g;
    trajectory.push(ImuPose{t0, x.R, x.p, x.v, acc_world, w});

    // Error-state transition (right perturbation of R), lio::propagate_covariance:
    //   dtheta' = Exp(-w dt) dtheta - Jr(w dt) dt dbg
    //   dp'     = dp + dt dv
    //   dv'     = dv - R [a]x dt dtheta - R dt dba + dt dg
    propagate_covariance(P, PoseTransition{so3::exp(-w * dt), -so3::right_jacobian(w * dt) * dt, -x.R * so3::hat(acc) * dt, -x.R * dt, dt, kBg, kBa});
    const double dt2 = dt * dt;
    P.template block<3, 3>(kRot, kRot).diagonal().array() += q.gyr_cov * dt2;
    P.template block<3, 3>(kVel, kVel).diagonal().array() += q.acc_cov * dt2;
    P.template block<3, 3>(kBg, kBg).diagonal().array() += q.b_gyr_cov * dt2;
    P.template block<3, 3>(kBa, kBa).diagonal().array() += q.b_acc_cov * dt2;

    x.p += x.v * dt + 0.5 * acc_world * dt2;
    x.v += acc_world * dt;
    x.R = x.R * so3::exp(w * dt);
    t = t1;
  };

  // Across a gap no sample says how the sensor moved: constant velocity and gap_rate, and the
  // covariance of an unknown acceleration a and rate error w, each constant over the step (dv = a dt,
  // dp = a dt^2 / 2, dtheta = w dt). The biases only keep their random walk.
  auto gap_step = [&](double t0, double t1) {
    const double dt = t1 - t0;
    if (!(dt > 0.0)) return;
    trajectory.push(ImuPose{t0, x.R, x.p, x.v, Eigen::Vector3d::Zero(), gap_rate});
    const Eigen::Matrix3d Z = Eigen::Matrix3d::Zero();
    propagate_covariance(P, PoseTransition{so3::exp(-gap_rate * dt), Z, Z, Z, dt, kBg, kBa});
    const double dt2 = dt * dt, qa = q.gap_acc_std * q.gap_acc_std, qw = q.gap_gyro_std * q.gap_gyro_std;
    constexpr int kPos = NavState::kPos;
    P.template block<3, 3>(kRot, kRot).diagonal().array() += qw * dt2;
    P.template block<3, 3>(kPos, kPos).diagonal().array() += qa * dt2 * dt2 / 4.0;
    P.template block<3, 3>(kPos, kVel).diagonal().array() += qa * dt2 * dt / 2.0;
    P.template block<3, 3>(kVel, kPos).diagonal().array() += qa * dt2 * dt / 2.0;
    P.template block<3, 3>(kVel, kVel).diagonal().array() += qa * dt2;
    P.template block<3, 3>(kBg, kBg).diagonal().array() += q.b_gyr_cov * dt2;
    P.template block<3, 3>(kBa, kBa).diagonal().array() += q.b_acc_cov * dt2;
    x.p += x.v * dt;
    x.R = x.R * so3::exp(gap_rate * dt);
    t = t1;
  };

  for (std::size_t k = 0; k + 1 < imu.size(); ++k) {
    const double t0 = std::max(imu[k].stamp, t);
    const double t1 = std::min(imu[k + 1].stamp, end);
    if (imu[k + 1].stamp - imu[k].stamp > q.max_gap) {
      gap_step(t0, t1);
    } else {
      step(imu[k], imu[k + 1], t0, t1);
    }
  }
  // From the last sample to the scan end with the last rates (the next sample is after the end),
  // unless the last sample is too old for its rates to say anything (a gap has begun).
  if (t < end) {
    if (end - imu.back().stamp > q.max_gap) {
      gap_step(t, end);
    } else {
      step(imu.back(), imu.back(), t, end);
    }
  }
  trajectory.push(ImuPose{t, x.R, x.p, x.v, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()});
  last = imu.back();
}

}  // namespace asuka::lio
