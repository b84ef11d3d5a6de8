#pragma once
// What every filter frontend is configured with, read once: the sensor extrinsic, preprocessing, the
// scan end rule, static IMU initialization, the map and plane association. Each frontend's own
// parameters embed this struct and add the keys of its filter (docs/frontends/NAME.md).

#include <string>

#include <Eigen/Geometry>

#include <asuka/lio/default_cloud_preprocessor.hpp>
#include <asuka/lio/degeneracy.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/plane_cache.hpp>
#include <asuka/lio/scan_synchronizer.hpp>
#include <asuka/lio/voxel_map.hpp>

namespace asuka {
class Config;
}

namespace asuka::lio {

struct FilterFrontendParams {
  // sensor: T_imu_lidar, the lidar origin and orientation in the IMU frame (p_imu = R p_lidar + t).
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  bool extrinsic_check = true;  ///< sensor.extrinsic_check: the extrinsic rotation checked against the motion (extrinsic_check.hpp)
  PreprocessParams preprocess;                     ///< R-PRE-1
  ScanEndRule end_rule = ScanEndRule::LAST_POINT;  ///< the frontend's rule; INSTANTANEOUS with preprocess.instantaneous
  // static IMU initialization (R-IMU-1)
  double gravity = 9.80665;  ///< [m/s^2]
  int init_imu_count = 100;  ///< MAX_INI_COUNT: IMU samples averaged at rest
  std::string imu_section = "mapping";  ///< where the initialization keys are read (fastlio: mapping, batchlio: imu)
  bool lidar_start_velocity = true;  ///< #12: the velocity the LiDAR alone measures over the initialization's scans starts the filter
  bool hold_at_rest = true;  ///< #17: after a static start, the state is held at rest until the IMU shows motion (rest_detector.hpp)
  // mapping
  double scan_voxel_size = 0.5;         ///< [m] down-sampling of each scan before registration
  double map_voxel_size = 0.5;          ///< [m] map voxel edge
  int map_max_points_per_voxel = VoxelMap::kMaxPointsPerVoxel;  ///< points a map voxel holds (not a key)
  double map_min_point_distance = 0.2;  ///< [m] map down-sampling
  double local_map_half_size = 150.0;   ///< [m] map box around the sensor
  int knn = 5;                          ///< map points per plane fit
  double plane_max_residual = 0.1;      ///< [m] a fitted plane's points must lie this close
  double plane_min_spread = 0.15;       ///< [m] a fitted plane's points must spread this much across their main direction
  int plane_knn_wide = 12;              ///< neighbours of the second try when the knn nearest are a strip
  bool plane_wide_reach = true;         ///< #17: a degenerate scan's thin fits get a second try over a wider block (plane_association.hpp)
  /// [s] #17, #21: the first this many seconds of motion after a static start's rest hold, while the map
  /// is mostly the rest's scans (a spinning lidar's rings): no wide reach, and degenerate scans weighted down
  double rest_map_seconds = 3.0;
  /// #21: a degenerate scan in rest_map_seconds gets this times measurement_std (1: as any scan; ieskf_frontend.hpp)
  double rest_map_degenerate_std_scale = 3.0;
  bool plane_curvature = true;          ///< #17: planes follow the neighbours' curvature at the point (plane_fit.hpp surface_offset)
  bool plane_spread_leave_one_out = false;  ///< #17: the spread must also hold without any one neighbour (plane_fit.hpp; opt-in, docs/frontends/fastlio.md)
  double plane_cache_cell = 0.0;        ///< [m] #14: planes kept per world cell of this edge and reused (plane_cache.hpp); 0 = off
  int plane_cache_scans = 10;           ///< #14: a cached plane is used for this many scans
  double measurement_std = 0.03;        ///< [m] point-to-plane residual noise
  double max_residual = 0.1;            ///< [m] larger point-to-plane residuals are not used
  // #21 degeneracy (docs/degeneracy.md)
  double degeneracy_threshold = kDefaultDegeneracyThreshold;  ///< share of a scan's points below which a direction is unconstrained
  bool degeneracy_projection = true;    ///< the LiDAR update leaves unconstrained directions to the IMU
  // #16 outputs
  bool dense_scan = false;              ///< output.dense_scan: every preprocessed point, de-skewed, on EstimationFrame::points_dense_imu
  int map_record_max_points = 10000000; ///< output.map_record_max_points: map.pcd's record of the run (map_record.hpp); 0 = the local map
  double map_record_voxel_size = 0.1;   ///< [m] output.map_record_voxel_size: the record keeps one point per cell of this edge

  VoxelMapParams map_params() const;
  PlaneAssociationParams association_params() const;
  PlaneCacheParams plane_cache_params() const { return PlaneCacheParams{plane_cache_cell, plane_cache_scans}; }
  ImuInitializerParams initializer_params() const;

  /// Reads `sensor.*`, `preprocess.*` (with `preprocess.instantaneous`), `mapping.*` and the
  /// initialization keys `<imu_section>.gravity` and `<imu_section>.init_imu_count` (fastlio keeps
  /// them under "mapping" as FAST-LIO does, batchlio under "imu") over `defaults`, which carry the
  /// frontend's own defaults and end rule. Throws ConfigError naming file, key, value and range.
  static FilterFrontendParams from_config(const Config& config, const FilterFrontendParams& defaults, const std::string& imu_section);
};

}  // namespace asuka::lio
