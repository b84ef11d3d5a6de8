#pragma once
// Parameters of the batchlio frontend, with units and defaults (config_odometry_batchlio.json; every
// key is documented in docs/frontends/batchlio.md).

#include <asuka/lio/filter_frontend_params.hpp>

namespace asuka {
class Config;
}

namespace asuka::batchlio {

struct BatchlioParams {
  /// sensor, preprocess, initialization (imu.gravity, imu.init_imu_count), map and plane
  /// association: the keys every filter frontend reads (asuka/lio/filter_frontend_params.hpp).
  lio::FilterFrontendParams common = defaults();

  // imu: the IMU is a measurement of the state's angular velocity and specific force.
  double gyro_cov = 1e-3;     ///< [(rad/s)^2] gyroscope measurement noise variance per sample
  double acc_cov = 1e-2;      ///< [(m/s^2)^2] accelerometer measurement noise variance per sample
  double b_gyro_cov = 1e-6;   ///< [(rad/s^2)^2 s] gyroscope bias random walk (variance per second)
  double b_acc_cov = 1e-4;    ///< [(m/s^3)^2 s] accelerometer bias random walk (variance per second)
  double satu_gyro = 35.0;    ///< [rad/s] gyroscope range: an axis at >= 99 % of it is not used
  double satu_acc = 29.4;     ///< [m/s^2] accelerometer range (3 g): an axis at >= 99 % of it is not used

  // process: constant angular velocity and specific force between measurements, driven by noise.
  // #17: ten times below Point-LIO's 100 and 1000 (docs/frontends/batchlio.md, "Process noise"): between
  // two IMU samples the LiDAR windows alone update omega and a, and a 1 ms window of a spinning
  // lidar constrains few directions.
  double omega_process_cov = 10.0;  ///< [(rad/s^2)^2 s] angular acceleration noise (variance per second)
  double acc_process_cov = 100.0;   ///< [(m/s^3)^2 s] jerk noise (variance per second)

  // mapping
  double batch_dt = 1e-3;    ///< [s] window of points per update; 0 = one update per point (Point-LIO)
  bool batch_deskew = true;  ///< move each point of a window to the window end with the filter's velocities

  /// batchlio's defaults of the common keys: R-PRE-2's end rule (maximum offset), 2 cm point-to-plane noise.
  static lio::FilterFrontendParams defaults();
  /// Reads `config` (sections sensor, preprocess, imu, process, mapping); throws ConfigError for bad
  /// values and clamps the preprocess keys as R-PRE-1 documents.
  static BatchlioParams from_config(const Config& config);
};

}  // namespace asuka::batchlio
