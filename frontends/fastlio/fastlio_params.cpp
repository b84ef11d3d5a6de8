#include "fastlio_params.hpp"

#include <algorithm>

#include <asuka/config/config.hpp>
#include <asuka/lio/extrinsic.hpp>

namespace asuka::fastlio {

FastlioParams FastlioParams::from_config(const Config& c) {
  FastlioParams p;
  c.mark_known("so_name");
  p.T_imu_lidar = lio::extrinsic_from_config(c);

  p.preprocess = lio::PreprocessParams::from_config(c);  // R-PRE-1

  p.scan_voxel_size = c.get_in_range("mapping.scan_voxel_size", p.scan_voxel_size, 0.01, 10.0);
  p.map_voxel_size = c.get_in_range("mapping.map_voxel_size", p.map_voxel_size, 0.05, 10.0);
  p.map_min_point_distance = c.get_in_range("mapping.map_min_point_distance", p.map_min_point_distance, 0.0, 10.0);
  p.local_map_half_size = c.get_in_range("mapping.local_map_half_size", p.local_map_half_size, 5.0, 10000.0);
  p.max_iterations = c.get_in_range("mapping.max_iterations", p.max_iterations, 1, 50);
  p.knn = c.get_in_range("mapping.knn", p.knn, 3, 50);
  p.plane_max_residual = c.get_in_range("mapping.plane_max_residual", p.plane_max_residual, 0.001, 1.0);
  p.measurement_std = c.get_in_range("mapping.measurement_std", p.measurement_std, 1e-4, 1.0);
  p.max_residual = c.get_in_range("mapping.max_residual", p.max_residual, 0.001, 10.0);
  p.gyr_cov = c.get_in_range("mapping.gyr_cov", p.gyr_cov, 0.0, 100.0);
  p.acc_cov = c.get_in_range("mapping.acc_cov", p.acc_cov, 0.0, 100.0);
  p.b_gyr_cov = c.get_in_range("mapping.b_gyr_cov", p.b_gyr_cov, 0.0, 1.0);
  p.b_acc_cov = c.get_in_range("mapping.b_acc_cov", p.b_acc_cov, 0.0, 1.0);
  p.gravity = c.get_in_range("mapping.gravity", p.gravity, 9.0, 10.5);
  p.init_imu_count = c.get_in_range("mapping.init_imu_count", p.init_imu_count, 1, 100000);
  p.instantaneous = c.get<bool>("preprocess.instantaneous", false);
  p.extrinsic_est_en = c.get<bool>("mapping.extrinsic_est_en", p.extrinsic_est_en);
  p.extrinsic_init_std_rot = c.get_in_range("mapping.extrinsic_init_std_rot", p.extrinsic_init_std_rot, 1e-6, 0.5);
  p.extrinsic_init_std_pos = c.get_in_range("mapping.extrinsic_init_std_pos", p.extrinsic_init_std_pos, 1e-6, 1.0);
  return p;
}

}  // namespace asuka::fastlio
