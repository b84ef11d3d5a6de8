#pragma once
// Parameters of the fastlio frontend, with units and defaults (config_odometry_fastlio.json; every
// key is documented in docs/frontends/fastlio.md).

#include <asuka/lio/filter_frontend_params.hpp>

namespace asuka {
class Config;
}

namespace asuka::fastlio {

struct FastlioParams {
  /// sensor, preprocess, initialization (mapping.gravity, mapping.init_imu_count), map and plane
  /// association: the keys every filter frontend reads (asuka/lio/filter_frontend_params.hpp).
  lio::FilterFrontendParams common = defaults();
  // mapping: the filter
  int max_iterations = 4;                ///< IEKF iterations per scan
  double gyr_cov = 0.1;                  ///< [(rad/s)^2] gyroscope noise variance per sample (FAST-LIO's gyr_cov)
  double acc_cov = 0.1;                  ///< [(m/s^2)^2] accelerometer noise variance per sample
  double b_gyr_cov = 1e-4;               ///< gyroscope bias random walk variance per sample
  double b_acc_cov = 1e-4;               ///< accelerometer bias random walk variance per sample
  bool extrinsic_est_en = false;         ///< estimate T_imu_lidar online (starting from the sensor block)
  double extrinsic_init_std_rot = 0.02;  ///< [rad] prior standard deviation of the configured extrinsic rotation, per axis
  double extrinsic_init_std_pos = 0.05;  ///< [m] prior standard deviation of the configured extrinsic translation, per axis

  /// fastlio's defaults of the common keys: R-SYNC-4's end rule, 3 cm point-to-plane noise.
  static lio::FilterFrontendParams defaults();
  /// Reads `config` (sections sensor, preprocess, mapping); throws ConfigError for bad values.
  static FastlioParams from_config(const Config& config);
};

}  // namespace asuka::fastlio
