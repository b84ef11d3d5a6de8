#pragma once
// The simulation without any output format: SimParams in, ground truth out, and every message the
// sensors would publish handed to a SimSink in the order a recorder receives it (record time
// ascending, faults applied). Two sinks exist: the ROS 1 bag writer (simulator.hpp,
// run_simulation) and the in-memory feed of decoded data for asuka::Host (memory_feed.hpp). No ROS.

#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include <optional>

#include <asuka/io/trajectory_io.hpp>
#include <asuka_sim/camera_sim.hpp>
#include <asuka_sim/imu_model.hpp>
#include <asuka_sim/lidar_model.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {

/// Faults written into the recording on purpose (each is off by default). See docs/simulator.md.
struct FaultParams {
  bool loop = false;                  ///< the whole recording twice: header stamps jump back once
  double imu_gap_start = -1.0;        ///< [s] IMU messages missing from here ...
  double imu_gap_length = 0.0;        ///< [s] ... for this long (0 = no gap)
  int imu_out_of_order = 0;           ///< pairs of consecutive IMU messages written swapped
  bool no_point_time = false;         ///< clouds carry no per-point time (Livox: offset_time 0)
  std::string point_time_unit;        ///< "" or s|ms|us|ns: per-point time written in this unit instead (bags only)
  double nan_points = 0.0;            ///< fraction of points with NaN coordinates
  int empty_frame_every = 0;          ///< every Nth frame has no points (0 = never)
  int drop_frame_every = 0;           ///< every Nth frame is not written (0 = never)
  double lidar_late_start = 0.0;      ///< [s] frames starting before this are not written: the IMU runs alone first (#12)
  double lidar_time_offset = 0.0;     ///< [s] added to every lidar stamp (a constant lidar-IMU offset)
  // IMU value faults (#12; applied to what the IMU publishes, never to the ground truth)
  double imu_zeros_at_start = 0.0;  ///< [s] IMU samples read exactly zero (acc and gyro) for this long (>= duration: an all-zero IMU)
  bool imu_zero_acc = false;        ///< the accelerometer reads zero throughout (the gyroscope is real)
  bool gyro_in_deg = false;         ///< the gyroscope reports deg/s instead of rad/s
  int imu_nan_every = 0;            ///< every Nth IMU sample has NaN acceleration and angular velocity (0 = never)
  int imu_spike_every = 0;          ///< every Nth IMU sample reads a corrupt 1000 rad/s, 1000 m/s^2 (0 = never)
  int imu_duplicate_every = 0;      ///< every Nth IMU sample carries the stamp of the one before (0 = never)
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
  bool livox_pointcloud2 = false; ///< Livox as PointCloud2 PointXYZRTLT instead of CustomMsg (bags only)
  std::string format = "ros1";     ///< bag format: ros1 (sim.bag), ros2-mcap or ros2-sqlite (the rosbag2 folder sim_ros2/)
  bool header_at_end = false;     ///< Velodyne/Robosense: header stamped at the scan end (bags only)
  bool instantaneous = false;     ///< every point of a frame at the frame stamp (R-SYNC-5)
  CameraSimParams camera;         ///< #13: camera.model "" = no camera
  FaultParams faults;
};

/// One LiDAR frame as the simulation hands it out.
struct SimFrame {
  std::int64_t clock0 = 0;  ///< [s] whole seconds added to every stamp (SimParams::start_time)
  double start = 0.0;       ///< [s] frame start on the lidar clock (faults applied), relative to clock0
  double true_start = 0.0;  ///< [s] frame start on the true clock: when the sweep really began
  double period = 0.1;      ///< [s]
  std::vector<SimPoint> points;
};

/// Receives the recording, message by message, in record-time order.
class SimSink {
public:
  virtual ~SimSink() = default;
  /// An IMU sample received at `received` [s, sensor clock]. sample.measured is in SI units on the
  /// true clock; the sink applies SimParams::start_time, imu_time_offset and acc_in_g.
  virtual void imu(double received, const ImuSample& sample) = 0;
  /// A LiDAR frame received at `received` [s, sensor clock].
  virtual void frame(double received, const SimFrame& frame) = 0;
  /// A camera image received at `received` [s, sensor clock] (only with a camera).
  virtual void image(double received, const SimImage& image) {
    (void)received;
    (void)image;
  }
  // What the simulation knows besides the messages, as it becomes known (#18: a long simulation
  // holds none of it; the bag writer streams it to files, the in-memory feed keeps it).
  /// The IMU pose at every IMU sample time (sensor clock), in time order.
  virtual void ground_truth(const StampedPose& pose) { (void)pose; }
  /// The IMU-only dead reckoning (degeneracy_truth.hpp), in time order.
  virtual void dead_reckoning(const StampedPose& pose) { (void)pose; }
  /// #21: a frame's end (sensor clock) and the scene's localizability of the pose there, per frame.
  virtual void degeneracy_truth(double stamp, const Localizability& truth) {
    (void)stamp;
    (void)truth;
  }
};

/// What a simulation produced besides its messages. The three per-sample series (ground_truth,
/// degeneracy_truth, dead_reckoning) are filled by simulate_in_memory only: simulate() hands them to
/// its sink as they are made.
struct SimOutput {
  std::vector<StampedPose> ground_truth;  ///< the IMU pose at every IMU sample time (sensor clock)
  LidarModel model;
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  Eigen::Vector2d peaks = Eigen::Vector2d::Zero();  ///< peak speed [m/s] and yaw rate [rad/s]
  ImuSample first_imu, last_imu;
  std::vector<std::size_t> swapped_imu;  ///< indices of the IMU pairs written swapped
  std::optional<SimCamera> camera;       ///< the camera's intrinsics and T_imu_camera (ground truth)
  std::vector<double> image_times;       ///< [s] true mid-exposure time of every image rendered, relative to start_time
  std::vector<double> image_exposures;   ///< [s] exposure of each
  std::vector<int> dropped_images;       ///< indices of images not written (fault)
  /// #21 (degeneracy_truth.hpp): per frame, its end (sensor clock) and the scene's localizability of
  /// the pose there; and the IMU-only dead reckoning from the static start (sensor clock).
  std::vector<std::pair<double, Localizability>> degeneracy_truth;
  std::vector<StampedPose> dead_reckoning;
};

/// Runs the simulation into `sink`, one message at a time: memory does not grow with the duration
/// (frames are cast, IMU samples drawn and images rendered when written). Deterministic per seed.
/// Throws std::invalid_argument for bad parameters (unknown names, negative values).
SimOutput simulate(const SimParams& params, SimSink& sink);

/// The factor from seconds to a point-time unit ("s", "ms", "us", "ns"); throws std::invalid_argument.
double point_time_unit_scale(const std::string& unit);

}  // namespace asuka::sim
