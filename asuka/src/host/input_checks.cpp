#include <asuka/host/input_checks.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace asuka {

bool InputChecks::check_imu(const ImuData& imu, double acc_scale, bool acc_scale_auto) {
  const double gyro = imu.gyro.norm(), acc = imu.acc.norm();
  if (!std::isfinite(gyro) || !std::isfinite(acc) || !std::isfinite(imu.stamp)) {
    report_("imu_implausible", fmt::format("IMU sample at {:.6f} is not finite; dropped", imu.stamp), false);
    return false;
  }
  if (gyro > kMaxGyro || acc > kMaxAcc) {
    report_("imu_implausible",
            fmt::format("IMU sample at {:.6f} reads |gyro| {:.4g} rad/s, |acc| {:.4g} m/s^2, beyond any IMU's range ({} rad/s, {} m/s^2); dropped", imu.stamp,
                        gyro, acc, kMaxGyro, kMaxAcc),
            false);
    if (gyro > kMaxGyro) {
      largest_gyro_ = std::max(largest_gyro_, gyro);
      if (++impossible_gyro_ == kMaxImpossible) {
        report_("imu_units",
                fmt::format("the gyroscope read more than {} rad/s in {} samples (up to {:.4g}): no MEMS gyroscope measures that, so it most likely "
                            "reports deg/s; asuka expects rad/s (as sensor_msgs/Imu): convert the driver's output",
                            kMaxGyro, impossible_gyro_, largest_gyro_),
                true);
      }
    }
    if (acc > kMaxAcc) {
      largest_acc_ = std::max(largest_acc_, acc);
      if (++impossible_acc_ == kMaxImpossible) {
        report_("imu_units",
                fmt::format("the accelerometer read more than {:.4g} m/s^2 after {} in {} samples (up to {:.4g}): no MEMS accelerometer measures that, "
                            "so its unit is wrong{}",
                            kMaxAcc, acc_scale_auto ? fmt::format("acc_scale auto ({})", acc_scale) : fmt::format("acc_scale {}", acc_scale),
                            impossible_acc_, largest_acc_,
                            largest_acc_ / acc_scale > 300.0 && largest_acc_ / acc_scale < 30000.0
                                ? fmt::format(" (milli-g? then set config_ros.acc_scale to {})", kGravity / 1000.0)
                                : std::string()),
                true);
      }
    }
    return false;
  }
  imu_first_ = std::min(imu_first_, imu.stamp);
  imu_last_ = std::max(imu_last_, imu.stamp);
  ++imu_seen_;
  compare_clocks();
  if (!units_done_) {
    acc_norm_sum_ += acc;
    if (++acc_norm_count_ >= kUnitSamples) decide_units(acc_scale, acc_scale_auto);
  }
  if (!gyro_unit_done_) {
    if (gyro > kDegGyro) ++gyro_fast_;
    gyro_fastest_ = std::max(gyro_fastest_, gyro);
    if (++gyro_unit_seen_ >= kGyroUnitSamples) decide_gyro_unit();
  }
  return true;
}

void InputChecks::decide_gyro_unit() {
  gyro_unit_done_ = true;
  if (gyro_scale_configured_ || gyro_unit_seen_ == 0) return;
  if (static_cast<double>(gyro_fast_) <= kDegGyroShare * static_cast<double>(gyro_unit_seen_)) return;
  report_("imu_units",
          fmt::format("the gyroscope read more than {} rad/s ({:.0f} deg/s) in {} of the first {} IMU samples (up to {:.4g}) after gyro_scale {}: a "
                      "person or a vehicle turns that fast only for moments, so the gyroscope most likely reports deg/s. Set "
                      "config_ros.gyro_scale to {:.9f} (deg/s to rad/s); if the sensor really turns this fast, set config_ros.gyro_scale to 1 "
                      "to say the unit is rad/s",
                      kDegGyro, kDegGyro * 180.0 / M_PI, gyro_fast_, gyro_unit_seen_, gyro_fastest_, gyro_scale_, M_PI / 180.0),
          true);
}

void InputChecks::check_frame(double stamp) {
  if (!std::isfinite(stamp)) return;
  frame_first_ = std::min(frame_first_, stamp);
  frame_last_ = std::max(frame_last_, stamp);
  ++frames_seen_;
  compare_clocks();
}

void InputChecks::finish(double acc_scale, bool acc_scale_auto) {
  if (!units_done_ && acc_norm_count_ > 0) decide_units(acc_scale, acc_scale_auto);
  if (!gyro_unit_done_ && gyro_unit_seen_ >= kUnitSamples) decide_gyro_unit();  // a short input: judged on what there is
  if (!clocks_done_ && imu_seen_ > 0 && frames_seen_ > 0) {
    // Fewer samples than the check waits for: compare what there is.
    const std::size_t imu = imu_seen_, frames = frames_seen_;
    imu_seen_ = std::max(imu, kClockImu);
    frames_seen_ = std::max(frames, kClockFrames);
    compare_clocks();
  }
}

void InputChecks::decide_units(double acc_scale, bool acc_scale_auto) {
  units_done_ = true;
  const double mean = acc_norm_sum_ / static_cast<double>(acc_norm_count_);
  // Motion changes the mean |acc| of a second by far less than half of gravity; a unit mistake
  // changes it by a factor (g: 9.8, mg: 1/102) or to zero.
  if (mean >= 0.5 * kGravity && mean <= 1.5 * kGravity) return;
  const std::string scale = acc_scale_auto ? fmt::format("acc_scale auto ({})", acc_scale) : fmt::format("acc_scale {}", acc_scale);
  std::string cause;
  if (mean < 0.1 * kGravity) {
    cause = "the accelerometer reads (almost) zero: the IMU does not report acceleration on this topic, or reports it in another field";
  } else if (std::fabs(mean * kGravity - kGravity) < 0.3 * kGravity) {
    cause = fmt::format("the accelerometer reports in g: set config_ros.acc_scale to {} (or \"auto\" to detect it)", kGravity);
  } else {
    cause = fmt::format("the accelerometer's unit or config_ros.acc_scale is wrong (expected m/s^2 after scaling: set acc_scale to {:.6g})",
                        kGravity / mean * acc_scale);
  }
  report_("imu_units",
          fmt::format("mean |acc| of the first {} IMU samples is {:.4g} m/s^2 after {}, where gravity alone gives {}: {}", acc_norm_count_, mean, scale,
                      kGravity, cause),
          true);
}

void InputChecks::compare_clocks() {
  if (clocks_done_ || imu_seen_ < kClockImu || frames_seen_ < kClockFrames) return;
  clocks_done_ = true;
  // The distance between the two time ranges (0 when they overlap). An IMU that starts a few
  // seconds after the lidar still touches the lidar's range by the time both are counted.
  const double gap = std::max(frame_first_ - imu_last_, imu_first_ - frame_last_);
  if (gap <= kMaxClockGap) return;
  const double offset = imu_first_ - frame_first_;
  const std::string remedy =
      std::fabs(offset) <= 10.0
          ? fmt::format("Give both drivers one time source, or set config_ros.time_offset_lidar_to_imu to about {:.6f} s", offset)
          : fmt::format("Give both drivers one time source: the offset, about {:.6f} s, is beyond what config_ros.time_offset_lidar_to_imu accepts "
                        "(10 s)",
                        offset);
  report_("clocks",
          fmt::format("lidar and IMU stamps are on different clocks: the first {} lidar frames span [{:.6f}, {:.6f}] s and the first {} IMU samples "
                      "[{:.6f}, {:.6f}] s, {:.3f} s apart (lidar stamps from boot time, a Livox timebase of 0, or two unsynchronized drivers). {}",
                      frames_seen_, frame_first_, frame_last_, imu_seen_, imu_first_, imu_last_, gap, remedy),
          true);
}

}  // namespace asuka
