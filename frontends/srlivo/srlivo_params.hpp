#pragma once
// Parameters of the srlivo frontend (config_odometry_srlivo.json; every key, unit and default is in
// docs/frontends/srlivo.md): the shared LiDAR filter's keys (asuka/lio/ieskf_frontend.hpp), the camera
// (sensor.camera, asuka/lio/camera_config.hpp) and the visual update's keys (section "visual").

#include <cstddef>
#include <optional>

#include <asuka/lio/camera_config.hpp>
#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/visual_synchronizer.hpp>
#include <asuka/visual/colour_map.hpp>

namespace asuka {
class Config;
}

namespace asuka::srlivo {

struct VisualParams {
  bool enable = true;                 ///< false: LiDAR-inertial only, images ignored
  visual::ColourMapParams map;        ///< point_spacing, colour_drift (local box: mapping.local_map_half_size)
  double photometric_std = 4.0;       ///< [grey] noise of one pixel's radiance against its map colour (sensor noise and model error)
  double position_std_px = 1.0;       ///< [px] where a map point lands in the image is this uncertain (its LiDAR position, the
                                      ///< texture's footprint): a residual's variance grows by (gradient * this)^2
  double huber = 2.0;                 ///< [sigmas] normalized residuals beyond this are down-weighted (Huber)
  double outlier_sigmas = 4.0;        ///< after the first iteration, residuals beyond this many sigmas are dropped (occlusion, motion)
  int max_iterations = 4;             ///< iterated updates per image
  int grid_size = 8;                  ///< [px] at most one photometric measurement per cell, the steepest
  double min_gradient = 4.0;          ///< [grey/px] flatter pixels constrain nothing and are not measured
  int min_observations = 2;           ///< images a map point's colour needs before it is measured against
  double max_colour_std = 12.0;       ///< [grey] map colours less certain than this are not measured against
  std::size_t min_targets = 30;       ///< fewer measurements: no visual pose update for this image
  double max_depth = 30.0;            ///< [m] map points farther from the camera are not used
  int window_frames = 2;              ///< the points of this many recent sweeps are measured and coloured
  bool estimate_exposure = true;      ///< estimate the inverse exposure of every image
  double exposure_std = 0.05;         ///< random walk of the inverse exposure per image (relative)
  lio::VisualSyncParams sync;         ///< image_timeout, max_lidar_wait
};

struct SrlivoParams {
  lio::IeskfParams filter;
  std::optional<lio::CameraConfig> camera;  ///< sensor.camera; none: LiDAR-inertial only (warned)
  VisualParams visual;

  /// srlivo's defaults of the common keys (as fastlio's).
  static lio::FilterFrontendParams defaults();
  /// Reads `config`; throws ConfigError for bad values.
  static SrlivoParams from_config(const Config& config);
};

}  // namespace asuka::srlivo
