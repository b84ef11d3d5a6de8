#include "srlivo_params.hpp"

#include <asuka/config/config.hpp>

namespace asuka::srlivo {

lio::FilterFrontendParams SrlivoParams::defaults() {
  lio::FilterFrontendParams p;
  p.end_rule = lio::ScanEndRule::LAST_POINT;  // unused: the visual synchronizer cuts at image times
  p.measurement_std = 0.03;
  return p;
}

SrlivoParams SrlivoParams::from_config(const Config& c) {
  SrlivoParams p;
  p.filter = lio::IeskfParams::from_config(c, defaults());
  p.camera = lio::CameraConfig::from_config(c);
  auto& v = p.visual;
  v.enable = c.get<bool>("visual.enable", v.enable);
  v.map.point_spacing = c.get_in_range("visual.point_spacing", v.map.point_spacing, 0.01, 5.0);
  v.map.colour_drift = c.get_in_range("visual.colour_drift", v.map.colour_drift, 0.0, 1e6);
  v.map.local_map_half_size = p.filter.common.local_map_half_size;
  v.photometric_std = c.get_in_range("visual.photometric_std", v.photometric_std, 0.1, 255.0);
  v.position_std_px = c.get_in_range("visual.position_std_px", v.position_std_px, 0.0, 100.0);
  v.huber = c.get_in_range("visual.huber", v.huber, 0.1, 100.0);
  v.outlier_sigmas = c.get_in_range("visual.outlier_sigmas", v.outlier_sigmas, 1.0, 100.0);
  v.max_iterations = c.get_in_range("visual.max_iterations", v.max_iterations, 1, 20);
  v.grid_size = c.get_in_range("visual.grid_size", v.grid_size, 2, 256);
  v.min_gradient = c.get_in_range("visual.min_gradient", v.min_gradient, 0.0, 1000.0);
  v.min_observations = c.get_in_range("visual.min_observations", v.min_observations, 1, 1000);
  v.max_colour_std = c.get_in_range("visual.max_colour_std", v.max_colour_std, 0.1, 255.0);
  v.min_targets = static_cast<std::size_t>(c.get_in_range("visual.min_targets", static_cast<int>(v.min_targets), 1, 100000));
  v.max_depth = c.get_in_range("visual.max_depth", v.max_depth, 0.5, 1000.0);
  v.window_frames = c.get_in_range("visual.window_frames", v.window_frames, 1, 100);
  v.estimate_exposure = c.get<bool>("visual.estimate_exposure", v.estimate_exposure);
  v.exposure_std = c.get_in_range("visual.exposure_std", v.exposure_std, 0.0, 1.0);
  v.sync.image_timeout = c.get_in_range("visual.image_timeout", v.sync.image_timeout, 0.0, 60.0);
  v.sync.max_lidar_wait = c.get_in_range("visual.max_lidar_wait", v.sync.max_lidar_wait, 0.0, 60.0);
  return p;
}

}  // namespace asuka::srlivo
