#include <asuka/lio/filter_frontend_params.hpp>

#include <asuka/config/config.hpp>
#include <asuka/lio/extrinsic.hpp>

namespace asuka::lio {

VoxelMapParams FilterFrontendParams::map_params() const {
  return VoxelMapParams{map_voxel_size, map_max_points_per_voxel, map_min_point_distance, local_map_half_size};
}

PlaneAssociationParams FilterFrontendParams::association_params() const {
  return PlaneAssociationParams{static_cast<std::size_t>(knn), 3.0 * map_voxel_size, plane_max_residual, max_residual, plane_min_spread,
                                static_cast<std::size_t>(plane_knn_wide),
                                plane_spread_leave_one_out ? SpreadTest::without_any_one : SpreadTest::all_points,
                                false,  // the wide reach only where a frontend finds a scan degenerate (plane_wide_reach)
                                plane_curvature};
}

ImuInitializerParams FilterFrontendParams::initializer_params() const {
  return ImuInitializerParams{static_cast<std::size_t>(init_imu_count), Eigen::Vector3d(0, 0, -gravity), true};
}

FilterFrontendParams FilterFrontendParams::from_config(const Config& c, const FilterFrontendParams& defaults, const std::string& imu_section) {
  FilterFrontendParams p = defaults;
  c.mark_known("so_name");
  p.T_imu_lidar = extrinsic_from_config(c);
  p.extrinsic_check = c.get<bool>("sensor.extrinsic_check", p.extrinsic_check);
  p.preprocess = PreprocessParams::from_config(c);  // R-PRE-1
  if (c.get<bool>("preprocess.instantaneous", false)) p.end_rule = ScanEndRule::INSTANTANEOUS;  // R-SYNC-5

  p.imu_section = imu_section;
  p.gravity = c.get_in_range(imu_section + ".gravity", p.gravity, 9.0, 10.5);
  p.init_imu_count = c.get_in_range(imu_section + ".init_imu_count", p.init_imu_count, 1, 100000);
  p.lidar_start_velocity = c.get<bool>(imu_section + ".lidar_start_velocity", p.lidar_start_velocity);
  p.hold_at_rest = c.get<bool>(imu_section + ".hold_at_rest", p.hold_at_rest);

  p.scan_voxel_size = c.get_in_range("mapping.scan_voxel_size", p.scan_voxel_size, 0.01, 10.0);
  p.map_voxel_size = c.get_in_range("mapping.map_voxel_size", p.map_voxel_size, 0.05, 10.0);
  p.map_min_point_distance = c.get_in_range("mapping.map_min_point_distance", p.map_min_point_distance, 0.0, 10.0);
  p.local_map_half_size = c.get_in_range("mapping.local_map_half_size", p.local_map_half_size, 5.0, 10000.0);
  p.knn = c.get_in_range("mapping.knn", p.knn, 3, 50);
  p.plane_max_residual = c.get_in_range("mapping.plane_max_residual", p.plane_max_residual, 0.001, 1.0);
  p.plane_min_spread = c.get_in_range("mapping.plane_min_spread", p.plane_min_spread, 0.0, 2.0);
  p.plane_knn_wide = c.get_in_range("mapping.plane_knn_wide", p.plane_knn_wide, 0, 64);  // the maps' k-NN holds at most 64
  p.plane_wide_reach = c.get<bool>("mapping.plane_wide_reach", p.plane_wide_reach);
  p.rest_map_seconds = c.get_in_range("mapping.rest_map_seconds", p.rest_map_seconds, 0.0, 60.0);
  p.rest_map_degenerate_std_scale = c.get_in_range("mapping.rest_map_degenerate_std_scale", p.rest_map_degenerate_std_scale, 1.0, 100.0);
  p.plane_spread_leave_one_out = c.get<bool>("mapping.plane_spread_leave_one_out", p.plane_spread_leave_one_out);
  p.plane_curvature = c.get<bool>("mapping.plane_curvature", p.plane_curvature);
  p.plane_cache_cell = c.get_in_range("mapping.plane_cache_cell", p.plane_cache_cell, 0.0, 10.0);
  p.plane_cache_scans = c.get_in_range("mapping.plane_cache_scans", p.plane_cache_scans, 1, 1000);
  p.measurement_std = c.get_in_range("mapping.measurement_std", p.measurement_std, 1e-4, 1.0);
  p.max_residual = c.get_in_range("mapping.max_residual", p.max_residual, 0.001, 10.0);
  p.degeneracy_threshold = c.get_in_range("mapping.degeneracy_threshold", p.degeneracy_threshold, 0.0, 1.0);
  p.degeneracy_projection = c.get<bool>("mapping.degeneracy_projection", p.degeneracy_projection);
  p.dense_scan = c.get<bool>("output.dense_scan", p.dense_scan);
  p.map_record_max_points = c.get_in_range("output.map_record_max_points", p.map_record_max_points, 0, 1000000000);
  p.map_record_voxel_size = c.get_in_range("output.map_record_voxel_size", p.map_record_voxel_size, 0.01, 10.0);
  return p;
}

}  // namespace asuka::lio
