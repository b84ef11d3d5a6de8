#pragma once
// Parameters of the fastlivo frontend (config_odometry_fastlivo.json; every key, unit and default is
// in docs/frontends/fastlivo.md): the shared LiDAR filter's keys (asuka/lio/ieskf_frontend.hpp), the
// camera (sensor.camera, asuka/lio/camera_config.hpp) and the visual update's keys (section "visual").

#include <optional>

#include <asuka/lio/camera_config.hpp>
#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/visual_synchronizer.hpp>
#include <asuka/visual/photometric.hpp>
#include <asuka/visual/visual_map.hpp>

namespace asuka {
class Config;
}

namespace asuka::fastlivo {

struct VisualParams {
  bool enable = true;                ///< false: LiDAR-inertial only, images ignored
  int pyramid_levels = 3;            ///< coarse-to-fine alignment over this many levels
  visual::PhotometricParams photometric;  ///< patch half size, residual sigma and Huber threshold
  int patch_margin = 4;              ///< [px] samples stored around a reference patch for the warp
  int max_iterations = 3;            ///< iterated updates per pyramid level
  int grid_size = 32;                ///< [px] at most one map point aligned, and one added, per cell
  double min_corner_score = 20.0;    ///< [grey^2/px^2] Shi-Tomasi score a new map point needs
  double outlier_error = 25.0;       ///< [grey] a patch whose mean |residual| exceeds this is an outlier
  std::size_t min_targets = 10;      ///< fewer aligned patches: no visual update for this image
  double max_depth = 30.0;           ///< [m] map points farther from the camera are not used
  double ref_min_angle_deg = 8.0;    ///< a new reference patch when the view differs this much from every stored one
  double ref_min_scale = 1.3;        ///< ... or its distance differs by this factor
  int max_failures = 3;              ///< consecutive outlier alignments before a map point is dropped
  bool estimate_exposure = true;     ///< estimate the inverse exposure of every image
  double exposure_std = 0.05;        ///< random walk of the inverse exposure per image (relative)
  visual::VisualMapParams map;       ///< voxel size (one point per voxel) and reference patches per point
  lio::VisualSyncParams sync;        ///< image_timeout, max_lidar_wait
  double colour_voxel_size = 0.2;    ///< [m] the coloured map keeps one averaged point per voxel
};

struct FastlivoParams {
  lio::IeskfParams filter;
  std::optional<lio::CameraConfig> camera;  ///< sensor.camera; none: LiDAR-inertial only (warned)
  VisualParams visual;

  /// fastlivo's defaults of the common keys (as fastlio's).
  static lio::FilterFrontendParams defaults();
  /// Reads `config`; throws ConfigError for bad values.
  static FastlivoParams from_config(const Config& config);
};

}  // namespace asuka::fastlivo
