#include "fastlivo_params.hpp"

#include <asuka/config/config.hpp>

namespace asuka::fastlivo {

lio::FilterFrontendParams FastlivoParams::defaults() {
  lio::FilterFrontendParams p;
  p.end_rule = lio::ScanEndRule::LAST_POINT;  // unused: the visual synchronizer cuts at image times
  p.measurement_std = 0.03;
  return p;
}

FastlivoParams FastlivoParams::from_config(const Config& c) {
  FastlivoParams p;
  p.filter = lio::IeskfParams::from_config(c, defaults());
  p.camera = lio::CameraConfig::from_config(c);
  auto& v = p.visual;
  v.enable = c.get<bool>("visual.enable", v.enable);
  v.pyramid_levels = c.get_in_range("visual.pyramid_levels", v.pyramid_levels, 1, visual::kMaxLevels);
  v.photometric.half = c.get_in_range("visual.patch_half_size", v.photometric.half, 2, 8);
  v.photometric.sigma = c.get_in_range("visual.photometric_std", v.photometric.sigma, 0.1, 255.0);
  v.photometric.huber = c.get_in_range("visual.huber", v.photometric.huber, 0.1, 1000.0);
  v.patch_margin = c.get_in_range("visual.patch_margin", v.patch_margin, 1, 16);  // 0: no warp fits, even the identity
  v.max_iterations = c.get_in_range("visual.max_iterations", v.max_iterations, 1, 20);
  v.grid_size = c.get_in_range("visual.grid_size", v.grid_size, 8, 256);
  v.min_corner_score = c.get_in_range("visual.min_corner_score", v.min_corner_score, 0.0, 1e6);
  v.outlier_error = c.get_in_range("visual.outlier_error", v.outlier_error, 0.1, 255.0);
  v.min_targets = static_cast<std::size_t>(c.get_in_range("visual.min_targets", static_cast<int>(v.min_targets), 1, 100000));
  v.max_depth = c.get_in_range("visual.max_depth", v.max_depth, 0.5, 1000.0);
  v.ref_min_angle_deg = c.get_in_range("visual.ref_min_angle_deg", v.ref_min_angle_deg, 0.5, 90.0);  // 0 or 1.0: a new reference every image
  v.ref_min_scale = c.get_in_range("visual.ref_min_scale", v.ref_min_scale, 1.01, 10.0);
  v.max_failures = c.get_in_range("visual.max_failures", v.max_failures, 1, 1000);
  v.estimate_exposure = c.get<bool>("visual.estimate_exposure", v.estimate_exposure);
  v.exposure_std = c.get_in_range("visual.exposure_std", v.exposure_std, 0.0, 1.0);
  v.map.voxel_size = c.get_in_range("visual.map_voxel_size", v.map.voxel_size, 0.01, 10.0);
  v.map.max_refs = static_cast<std::size_t>(c.get_in_range("visual.max_refs", static_cast<int>(v.map.max_refs), 1, 64));
  v.map.local_map_half_size = p.filter.common.local_map_half_size;
  v.sync.image_timeout = c.get_in_range("visual.image_timeout", v.sync.image_timeout, 0.0, 60.0);
  v.sync.max_lidar_wait = c.get_in_range("visual.max_lidar_wait", v.sync.max_lidar_wait, 0.0, 60.0);
  v.colour_voxel_size = c.get_in_range("visual.colour_voxel_size", v.colour_voxel_size, 0.01, 10.0);
  return p;
}

}  // namespace asuka::fastlivo
