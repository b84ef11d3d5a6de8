#pragma once
// The LiDAR-IMU time offset, estimated from what a run produces (#12 item 4): the frontend's poses,
// one per scan, are registered against the map by the LiDAR, so their rotation from one scan to the
// next is the rotation the LiDAR saw over that interval; the gyroscope integrated over the same
// interval, shifted by a candidate offset tau, says the same only when tau is the offset between the
// two clocks. The estimate is the tau that maximizes the normalized cross-correlation of the two
// rotation-rate signals (all three axes, means removed so a gyro bias does not matter), searched on
// a grid over +-max_offset and refined around the peak.
//
// Sign: a pose stamped s matches the gyroscope at s + tau. Lidar stamps late by d (or IMU stamps
// early by d) give tau = -d; the correction is time_offset_lidar_to_imu + tau.
//
// The frontend's poses blend the LiDAR with the IMU's prediction, so a large offset is estimated
// somewhat short of its size (the filter follows the IMU a little); the check is there to tell a
// user that the clocks disagree and by about how much, and a run with the suggested value then
// measures what is left. It uses the first window_poses poses only (memory and time bounded on any
// run length).
// Threads: add_imu and add_pose may come from different threads (the host's producer, the worker).

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka {

struct TimeOffsetParams {
  double max_offset = 1.0;          ///< [s] searched over +-this
  double coarse_step = 0.005;       ///< [s] grid step, then refined to fine_step around the peak
  double fine_step = 0.0005;        ///< [s]
  std::size_t window_poses = 300;   ///< poses used (30 s of 10 Hz scans), counted from the start
  std::size_t min_poses = 50;       ///< fewer: no estimate
  double min_rate_std = 0.05;       ///< [rad/s] the rotation rate must vary at least this much (else the offset is unobservable)
  double min_correlation = 0.7;     ///< a peak below this is not trusted
  double warn_above = 0.02;         ///< [s] an estimate beyond this is warned about
  double max_gyro_gap = 0.05;       ///< [s] gyroscope samples further apart: the intervals across the gap are left out
  /// The poses' frame is rotated against the gyroscope's by an unknown, constant rotation (the
  /// LiDAR's own poses and an unknown extrinsic, as the doctor has them): the correlation is then
  /// taken at the rotation that fits best at each shift (the nuclear norm of the cross-covariance,
  /// a proper rotation), so it does not depend on the frames.
  bool unknown_rotation = false;
};

struct TimeOffsetEstimate {
  bool valid = false;        ///< an estimate was made and its peak is trusted
  double offset = 0.0;       ///< [s] tau: a pose stamped s matches the gyroscope at s + tau
  double correlation = 0.0;  ///< normalized cross-correlation at tau
  double at_zero = 0.0;      ///< ... and at tau = 0
  double rate_std = 0.0;     ///< [rad/s] spread of the LiDAR-seen rotation rate
  std::size_t poses = 0;     ///< poses used
  std::string reason;        ///< why no estimate (not valid), else empty
};

class TimeOffsetCheck {
public:
  explicit TimeOffsetCheck(const TimeOffsetParams& params = {}) : params_(params) {}

  /// A gyroscope sample [rad/s] as the frontend receives it (offsets applied), in stamp order.
  void add_imu(double stamp, const Eigen::Vector3d& gyro);
  /// A pose the frontend emitted: R_world_imu at `stamp`. Returns true when this pose completes the
  /// window (estimate() is then worth calling once).
  bool add_pose(double stamp, const Eigen::Matrix3d& R_world_imu);
  /// The estimate from what was collected (at most window_poses poses).
  TimeOffsetEstimate estimate() const;
  const TimeOffsetParams& params() const { return params_; }

  /// The estimator on its own, for given signals: poses (stamp, R) and gyroscope (stamp, rate).
  static TimeOffsetEstimate estimate(const std::vector<std::pair<double, Eigen::Matrix3d>>& poses,
                                     const std::vector<std::pair<double, Eigen::Vector3d>>& gyro, const TimeOffsetParams& params);

private:
  TimeOffsetParams params_;
  mutable std::mutex mutex_;
  std::vector<std::pair<double, Eigen::Matrix3d>> poses_;
  std::vector<std::pair<double, Eigen::Vector3d>> gyro_;
};

}  // namespace asuka
