#pragma once
// Parameters of the fastlio frontend, with units and defaults (config_odometry_fastlio.json; every
// key is documented in docs/frontends/fastlio.md).

#include <string>

#include <Eigen/Geometry>

#include <asuka/lio/cloud_preprocessor.hpp>

namespace asuka {
class Config;
}

namespace asuka::fastlio {


struct FastlioParams {
  // sensor: T_imu_lidar, the lidar origin and orientation in the IMU frame (p_imu = R p_lidar + t).
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  lio::PreprocessParams preprocess;  ///< R-PRE-1 (asuka/lio/cloud_preprocessor.hpp)
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
  bool extrinsic_est_en = false;       ///< estimate T_imu_lidar online (starting from the sensor block)
  double extrinsic_init_std_rot = 0.02;  ///< [rad] prior standard deviation of the configured extrinsic rotation, per axis
  double extrinsic_init_std_pos = 0.05;  ///< [m] prior standard deviation of the configured extrinsic translation, per axis

  /// Reads `config` (sections sensor, preprocess, mapping); throws ConfigError for bad values.
  static FastlioParams from_config(const Config& config);
};

}  // namespace asuka::fastlio
