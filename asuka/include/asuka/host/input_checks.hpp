#pragma once
// The host's plausibility checks on its input (issue #12): the mistakes that otherwise give exit 0,
// a report that says ok and a trajectory metres off. Every entry point shares them through
// asuka::Host; each finding names the cause and the setting to change.
//
//   clocks      the first lidar frames and IMU samples lie on time ranges more than kMaxClockGap
//               apart (lidar stamps from boot time, a Livox timebase of 0, an IMU on another clock):
//               fatal, with both ranges and the offset that would align them.
//   IMU units   the mean |acc| of the first kUnitSamples samples (after acc_scale) is zero or far
//               from gravity (an accelerometer in g with acc_scale 1, in mg, a wrong field): fatal.
//   impossible  a sample beyond any IMU's range (|gyro| > kMaxGyro, |acc| > kMaxAcc) or not finite:
//               dropped with a counted warning; kMaxImpossible such gyro samples are fatal (a
//               gyroscope in deg/s reads such values whenever the sensor turns), as are as many such
//               accelerometer samples (milli-g).
//   gyro unit   more than 1 % of the first kGyroUnitSamples samples read above kDegGyro (10 rad/s,
//               which a person or a vehicle reaches only in moments): a gyroscope in deg/s turning
//               at 0.2-0.7 rad/s, below the impossible limit; fatal unless config_ros.gyro_scale was
//               given (which says the unit is known).
//
// Fatal findings do not stop the data flow here: the host records the first one (Host::input_error)
// and the applications stop reading and exit 2.
// Threads: the host's producer thread only.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include <asuka/core/types.hpp>

namespace asuka {

class InputChecks {
public:
  static constexpr double kMaxClockGap = 1.0;     ///< [s] between the lidar's and the IMU's first time ranges
  static constexpr std::size_t kClockFrames = 3;  ///< frames, and ...
  static constexpr std::size_t kClockImu = 20;    ///< ... IMU samples, before the clocks are compared
  static constexpr std::size_t kUnitSamples = 200;
  static constexpr double kGravity = 9.80665;
  static constexpr double kMaxGyro = 40.0;               ///< [rad/s] (2300 deg/s; MEMS ranges end at 2000 deg/s)
  static constexpr double kMaxAcc = 50.0 * kGravity;     ///< [m/s^2] (MEMS ranges end at 32 g)
  static constexpr std::uint64_t kMaxImpossible = 10;  ///< impossible gyro (or acc) samples that make the unit fatal
  static constexpr std::size_t kGyroUnitSamples = 2000;  ///< samples (10 s at 200 Hz) for the gyro-unit check
  static constexpr double kDegGyro = 10.0;               ///< [rad/s] (573 deg/s)
  static constexpr double kDegGyroShare = 0.01;          ///< share of samples above kDegGyro that is a unit mistake

  /// `report(kind, message, fatal)` receives every finding.
  using Report = std::function<void(const std::string& kind, const std::string& message, bool fatal)>;
  explicit InputChecks(Report report) : report_(std::move(report)) {}

  /// An IMU sample as it goes to the estimator (offset and acc_scale applied). Returns false when it
  /// is impossible and must be dropped. `acc_scale` and `acc_scale_auto` only word the messages.
  bool check_imu(const ImuData& imu, double acc_scale, bool acc_scale_auto);
  /// The gyro_scale in use and whether the configuration gave it (then the gyro-unit check is off).
  void set_gyro_scale(double scale, bool configured) {
    gyro_scale_ = scale;
    gyro_scale_configured_ = configured;
  }
  /// A lidar frame's stamp as it goes to the estimator (offset applied).
  void check_frame(double stamp);
  /// The input ended: decides what was still waiting for more samples.
  void finish(double acc_scale, bool acc_scale_auto);

private:
  void decide_units(double acc_scale, bool acc_scale_auto);
  void decide_gyro_unit();
  void compare_clocks();

  Report report_;
  // clocks
  double imu_first_ = std::numeric_limits<double>::infinity(), imu_last_ = -std::numeric_limits<double>::infinity();
  double frame_first_ = std::numeric_limits<double>::infinity(), frame_last_ = -std::numeric_limits<double>::infinity();
  std::size_t imu_seen_ = 0, frames_seen_ = 0;
  bool clocks_done_ = false;
  // units
  double acc_norm_sum_ = 0.0;
  std::size_t acc_norm_count_ = 0;
  bool units_done_ = false;
  // impossible samples
  std::uint64_t impossible_gyro_ = 0, impossible_acc_ = 0;
  double largest_gyro_ = 0.0, largest_acc_ = 0.0;
  // gyro unit
  double gyro_scale_ = 1.0;
  bool gyro_scale_configured_ = false;
  std::size_t gyro_unit_seen_ = 0, gyro_fast_ = 0;
  double gyro_fastest_ = 0.0;
  bool gyro_unit_done_ = false;
};

}  // namespace asuka
