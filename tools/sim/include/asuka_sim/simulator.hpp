#pragma once
// asuka_sim: simulates a LiDAR-inertial rig moving through a scene and writes a ROS 1 bag, the ground
// truth (TUM) and a JSON sidecar with every parameter. Deterministic per seed: the same parameters
// give byte-identical files.

#include <cstdint>
#include <string>
#include <vector>

#include <asuka_sim/imu_model.hpp>
#include <asuka_sim/lidar_model.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {

/// Faults written into the bag on purpose (each is off by default). See docs/simulator.md.
struct FaultParams {
  bool loop = false;                  ///< the whole recording twice: header stamps jump back once
  double imu_gap_start = -1.0;        ///< [s] IMU messages missing from here ...
  double imu_gap_length = 0.0;        ///< [s] ... for this long (0 = no gap)
  int imu_out_of_order = 0;           ///< pairs of consecutive IMU messages written swapped
  bool no_point_time = false;         ///< clouds carry no per-point time (Livox: offset_time 0)
  std::string point_time_unit;        ///< "" or s|ms|us|ns: per-point time written in this unit instead
  double nan_points = 0.0;            ///< fraction of points with NaN coordinates
  int empty_frame_every = 0;          ///< every Nth frame has no points (0 = never)
  int drop_frame_every = 0;           ///< every Nth frame is not written (0 = never)
  double lidar_time_offset = 0.0;     ///< [s] added to every lidar stamp (a constant lidar-IMU offset)
};

struct SimParams {
  std::string lidar = "avia";
  std::string scene = "courtyard";
  double duration = 60.0;  ///< [s]
  std::uint64_t seed = 1;
  /// [s] sensor clock at the start, whole seconds: stamps look like a real recording's (absolute
  /// epoch time), so time-unit detection sees what it sees on real bags.
  std::int64_t start_time = 1700000000;
  TrajectoryParams trajectory;
  ImuNoiseParams imu;
  LidarNoiseParams lidar_noise;
  bool extrinsic_set = false;  ///< use `T_imu_lidar` instead of the model's default
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  bool acc_in_g = false;          ///< IMU acceleration in g (as Livox IMUs publish)
  double imu_time_offset = 0.0;   ///< [s] added to every IMU stamp
  bool livox_pointcloud2 = false; ///< Livox as PointCloud2 PointXYZRTLT instead of CustomMsg
  bool header_at_end = false;     ///< Velodyne/Robosense: header stamped at the scan end
  bool instantaneous = false;     ///< every point of a frame at the frame stamp (R-SYNC-5)
  FaultParams faults;
};

struct SimResult {
  std::string bag_path;
  std::string ground_truth_path;
  std::string sidecar_path;
  std::string imu_topic;
  std::string points_topic;
  std::size_t imu_messages = 0;
  std::size_t frames = 0;
  std::size_t points = 0;
};

/// Topics of a model's bag: {imu, points}.
std::pair<std::string, std::string> topics_for(const LidarModel& model);

/// Writes `<output_dir>/sim.bag`, `ground_truth.tum` and `sim.json`. Throws std::invalid_argument for
/// bad parameters (unknown names, negative values) and std::runtime_error for I/O failures.
SimResult run_simulation(const SimParams& params, const std::string& output_dir);

}  // namespace asuka::sim
