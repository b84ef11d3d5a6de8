#include "batchlio_params.hpp"

#include <asuka/config/config.hpp>
#include <asuka/lio/extrinsic.hpp>

namespace asuka::batchlio {

BatchlioParams BatchlioParams::from_config(const Config& c) {
  BatchlioParams p;
  c.mark_known("so_name");
  p.T_imu_lidar = lio::extrinsic_from_config(c);
  p.preprocess = lio::PreprocessParams::from_config(c);

  p.gyro_cov = c.get_in_range("imu.gyro_cov", p.gyro_cov, 1e-10, 100.0);
  p.acc_cov = c.get_in_range("imu.acc_cov", p.acc_cov, 1e-10, 100.0);
  p.b_gyro_cov = c.get_in_range("imu.b_gyro_cov", p.b_gyro_cov, 0.0, 1.0);
  p.b_acc_cov = c.get_in_range("imu.b_acc_cov", p.b_acc_cov, 0.0, 1.0);
  p.satu_gyro = c.get_in_range("imu.satu_gyro", p.satu_gyro, 0.1, 1000.0);
  p.satu_acc = c.get_in_range("imu.satu_acc", p.satu_acc, 1.0, 10000.0);
  p.gravity = c.get_in_range("imu.gravity", p.gravity, 9.0, 10.5);
  p.init_imu_count = c.get_in_range("imu.init_imu_count", p.init_imu_count, 1, 100000);

  p.omega_process_cov = c.get_in_range("process.omega_process_cov", p.omega_process_cov, 1e-6, 1e6);
  p.acc_process_cov = c.get_in_range("process.acc_process_cov", p.acc_process_cov, 1e-6, 1e7);

  p.batch_dt = c.get_in_range("mapping.batch_dt", p.batch_dt, 0.0, 0.1);
  p.batch_deskew = c.get<bool>("mapping.batch_deskew", p.batch_deskew);
  p.scan_voxel_size = c.get_in_range("mapping.scan_voxel_size", p.scan_voxel_size, 0.01, 10.0);
  p.map_voxel_size = c.get_in_range("mapping.map_voxel_size", p.map_voxel_size, 0.05, 10.0);
  p.map_min_point_distance = c.get_in_range("mapping.map_min_point_distance", p.map_min_point_distance, 0.0, 10.0);
  p.local_map_half_size = c.get_in_range("mapping.local_map_half_size", p.local_map_half_size, 5.0, 10000.0);
  p.knn = c.get_in_range("mapping.knn", p.knn, 3, 50);
  p.plane_max_residual = c.get_in_range("mapping.plane_max_residual", p.plane_max_residual, 0.001, 1.0);
  p.measurement_std = c.get_in_range("mapping.measurement_std", p.measurement_std, 1e-4, 1.0);
  p.max_residual = c.get_in_range("mapping.max_residual", p.max_residual, 0.001, 10.0);
  return p;
}

}  // namespace asuka::batchlio
