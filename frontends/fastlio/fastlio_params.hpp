#pragma once
// Parameters of the fastlio frontend, with units and defaults (config_odometry_fastlio.json; every
// key is documented in frontends/fastlio/README.md).

#include <string>

#include <Eigen/Geometry>

namespace asuka {
class Config;
}

namespace asuka::fastlio {

struct PreprocessParams {
  double min_distance = 0.5;    ///< [m] points closer are dropped (R-PRE-1)
  double max_distance = 300.0;  ///< [m] points farther are dropped (negative -> 0)
  int point_filter_num = 2;     ///< keep every Nth valid point (>= 1)
  int scan_line = 6;            ///< Livox: lines >= this are dropped (>= 1)
  double scan_rate = 10.0;      ///< [Hz]
};

struct FastlioParams {
  // sensor: T_imu_lidar, the lidar origin and orientation in the IMU frame (p_imu = R p_lidar + t).
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  PreprocessParams preprocess;
  // mapping
  double scan_voxel_size = 0.5;        ///< [m] down-sampling of each scan before registration
  double map_voxel_size = 0.5;         ///< [m] map voxel edge
  double map_min_point_distance = 0.2; ///< [m] map down-sampling
  double local_map_half_size = 150.0;  ///< [m] map box around the sensor
  int max_iterations = 4;              ///< IEKF iterations per scan
  int knn = 5;                         ///< map points per plane fit
  double plane_max_residual = 0.1;     ///< [m] a fitted plane's points must lie this close
  double measurement_std = 0.03;       ///< [m] point-to-plane residual noise
  double max_residual = 0.1;           ///< [m] larger point-to-plane residuals are not used
  double gyr_cov = 0.1;                ///< [(rad/s)^2] gyroscope noise variance per sample (FAST-LIO's gyr_cov)
  double acc_cov = 0.1;                ///< [(m/s^2)^2] accelerometer noise variance per sample
  double b_gyr_cov = 1e-4;             ///< gyroscope bias random walk variance per sample
  double b_acc_cov = 1e-4;             ///< accelerometer bias random walk variance per sample
  double gravity = 9.80665;            ///< [m/s^2]
  int init_imu_count = 100;            ///< IMU samples averaged at rest (R-IMU-1)
  bool instantaneous = false;          ///< frames are instantaneous (R-SYNC-5)

  /// Reads `config` (sections sensor, preprocess, mapping); throws ConfigError for bad values.
  static FastlioParams from_config(const Config& config);
};

}  // namespace asuka::fastlio
