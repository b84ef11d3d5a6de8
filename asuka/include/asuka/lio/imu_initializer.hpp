#pragma once
// Static IMU initialization (R-IMU-1, R-IMU-3, R-IMU-4): incremental means of the accelerometer and
// gyroscope while the sensor rests, then the rotation that aligns the measured gravity with the
// world's. Shared by the filter frontends; the world frame is the gravity-aligned IMU frame at
// initialization (docs/conventions.md).

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/imu_initialization.hpp>
#include <asuka/core/types.hpp>

namespace asuka::lio {

struct ImuInitializerParams {
  std::size_t max_init_count = 100;  ///< R-IMU-1's MAX_INI_COUNT: initialized once more samples than this were averaged
  Eigen::Vector3d gravity_world = Eigen::Vector3d(0.0, 0.0, -9.80665);  ///< [m/s^2] the configured gravity
  bool imu_enabled = true;  ///< false: no IMU is used; initialization completes at once with identity rotation
};

class ImuInitializer : public ImuInitialization {
public:
  /// `max_init_count`: samples to average (R-IMU-1's MAX_INI_COUNT). `gravity_world`: the configured
  /// gravity, (0, 0, -9.80665) by default.
  explicit ImuInitializer(std::size_t max_init_count = 100, const Eigen::Vector3d& gravity_world = Eigen::Vector3d(0.0, 0.0, -9.80665));
  explicit ImuInitializer(const ImuInitializerParams& params);

  /// Adds a sample; returns true when this sample completed the initialization.
  bool add(const ImuData& imu);

  /// One package (R-IMU-1, R-IMU-2): when `history` (every sample since the start, collected by the
  /// synchronizer while initializing) is not empty, the means are recomputed over it instead of
  /// adding `package`, so no sample counts twice. Returns is_initialized().
  bool process(const std::vector<ImuData>& package, const std::vector<ImuData>& history);

  /// Stores new parameters; they take effect at the next reset() (R-IMU-4: reset re-applies the
  /// configuration, as the estimator pushes its config into the preprocessor on every reset).
  void configure(const ImuInitializerParams& params) { pending_ = params; }
  const ImuInitializerParams& params() const { return active_; }

  bool is_initialized() const override { return initialized_; }
  Eigen::Vector3d get_mean_acceleration() const override { return mean_acc_; }
  Eigen::Vector3d get_mean_gyroscope() const override { return mean_gyro_; }
  void reset() override;

  /// R_world_imu at initialization: rotates the measured specific force (up) onto -gravity_world.
  Eigen::Matrix3d rotation() const;
  /// Gyroscope bias estimate: the mean rate at rest [rad/s].
  Eigen::Vector3d gyro_bias() const { return mean_gyro_; }
  std::size_t count() const { return count_; }

  /// #12 item 1: whether the sensor moved while the samples were averaged. At rest the gyroscope
  /// reads its bias plus noise and the accelerometer gravity plus noise; a moving start shows as a
  /// spread of either far above any IMU's noise, or a mean rate no gyro bias reaches.
  static constexpr double kMovingGyroStd = 0.05;   ///< [rad/s] per-axis spread of the rate at rest: MEMS noise is below 0.01
  static constexpr double kMovingAccStd = 0.3;     ///< [m/s^2] per-axis spread of acc at rest: MEMS noise is below 0.1
  static constexpr double kMovingGyroMean = 0.1;   ///< [rad/s] a mean rate beyond every MEMS bias (about 0.01-0.05)
  bool moving() const;
  /// Largest per-axis standard deviation of the gyroscope [rad/s] and accelerometer [m/s^2] samples.
  double gyro_std() const;
  double acc_std() const;
  /// For a moving start: the rotation at the last averaged sample that aligns the mean specific
  /// force, each sample rotated into that frame with the integrated (bias-uncorrected) gyroscope,
  /// onto -gravity_world. The motion's mean acceleration is all that remains in the mean, so it tilts
  /// this estimate only by the velocity change over the window; rotation() would average specific
  /// forces measured in different orientations. `later` (samples after the last averaged one, up
  /// to `end` [s]) carries the rotation on to `end`, where the filter starts.
  Eigen::Matrix3d rotation_from_motion(const std::vector<ImuData>& later = {}, double end = -1e300) const;

private:
  ImuInitializerParams pending_;  ///< applied by reset()
  ImuInitializerParams active_;
  std::size_t count_ = 0;
  bool initialized_ = false;
  Eigen::Vector3d mean_acc_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d mean_gyro_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d sq_acc_ = Eigen::Vector3d::Zero();   ///< Welford sums of squared deviations
  Eigen::Vector3d sq_gyro_ = Eigen::Vector3d::Zero();
  std::vector<ImuData> samples_;  ///< the averaged samples (at most max_init_count + 1), for rotation_from_motion()
};

}  // namespace asuka::lio
