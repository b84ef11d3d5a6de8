#pragma once
// AsukaROS: the host (R-ROS-1). Owns the frontend (loaded by so_name), takes its cloud preprocessor,
// owns the executor and the extension modules. The live node and the bag player both feed it through
// the same insert_imu / insert_frame, from one producer thread.
//
// IMU path (R-ROS-3):   decode -> handle_loop_back(raw stamp) -> + imu_time_offset -> * acc_scale -> executor
// Lidar path (R-ROS-4): decode -> handle_loop_back(raw stamp) -> + time_offset_lidar_to_imu
//                       -> frontend's CloudPreprocess -> executor
// With a reorder window > 0 (the bag player's default), events are handed to the executor in
// sensor-time order, which makes offline runs deterministic (docs/ros.md).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <asuka/core/async_odometry_estimation.hpp>
#include <asuka/core/callback_slot.hpp>
#include <asuka/core/extension_module.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace spdlog {
class logger;
}

namespace asuka_ros {

struct AsukaROSParams {
  std::string so_name;                 ///< frontend plugin (config_odometry.so_name)
  std::string imu_topic = "/livox/imu";
  std::string points_topic = "/livox/lidar";
  asuka::LidarType lidar_type = asuka::LidarType::LIVOX;
  double imu_time_offset = 0.0;           ///< [s] added to IMU stamps
  double time_offset_lidar_to_imu = 0.0;  ///< [s] added to lidar stamps
  double acc_scale = 0.0;                 ///< multiplier for accelerations; 0 = auto (1 or g)
  std::string map_saving_path;            ///< where save() writes the map ("" = do not save)
  PointTimeOptions point_time;
  double reorder_window = 0.0;            ///< [s] of sensor time; 0 = hand over in arrival order
  std::string world_frame = "world";      ///< frame id of published poses (asuka_rosnode)
  std::string body_frame = "body";        ///< frame id of the IMU/body frame (asuka_rosnode)
  asuka::AsyncOdometryEstimationParams executor;

  /// From GlobalConfig: config_ros (topics, lidar_type, offsets, acc_scale, point_time, executor) and
  /// config_odometry (so_name). Throws ConfigError naming file, key, value and what was expected.
  static AsukaROSParams from_config();
};

/// Counts for the run report.
struct AsukaROSStats {
  std::uint64_t imu_messages = 0;
  std::uint64_t imu_inserted = 0;
  std::uint64_t frame_messages = 0;
  std::uint64_t frames_inserted = 0;
  std::uint64_t points_in = 0;     ///< points in the decoded messages
  std::uint64_t points_kept = 0;   ///< points after the frontend's preprocessing
  std::uint64_t imu_loop_backs = 0;
  std::uint64_t lidar_loop_backs = 0;
  std::uint64_t reordered_late = 0;  ///< events older than what was already handed over
  std::map<std::string, std::uint64_t> warnings;  ///< by kind
  double decode_seconds = 0.0;
  double preprocess_seconds = 0.0;
};

class AsukaROS {
public:
  /// Loads the frontend and the extensions listed in the root config. Throws std::runtime_error with
  /// a clear message when the frontend or an extension cannot be loaded.
  explicit AsukaROS(const AsukaROSParams& params);
  ~AsukaROS();

  AsukaROS(const AsukaROS&) = delete;
  AsukaROS& operator=(const AsukaROS&) = delete;

  // ---- ROS messages (R-ROS-3, R-ROS-4); producer thread -------------------------------------
  void insert_imu(const sensor_msgs::Imu& msg);
  void insert_frame(const sensor_msgs::PointCloud2& msg);
  void insert_frame(const LivoxCustomMsg& msg);
  void insert_frame(const Livox2CustomMsg& msg);

  // ---- decoded data (what the message overloads call after decoding) --------------------------
  /// R-ROS-3: loop-back check on the raw stamp, then the time offset, then acc_scale.
  void insert_imu(asuka::ImuData imu);
  /// R-ROS-4: loop-back check on the raw stamp, then the time offset, then the preprocessor.
  void insert_frame(asuka::Frame::Ptr frame);

  /// R-ROS-2: warns "lidar/imu loop back detected: OLD -> NEW" when `stamp` is strictly older than
  /// the stream's previous stamp; always updates the baseline; never drops data. WORLD: no-op.
  void handle_loop_back(double stamp, asuka::FrameId frame_id);

  /// Hands every event still held (reorder window, acc_scale detection) to the executor.
  void flush();
  /// R-ROS-6: flush, then poll workload() at 100 Hz until it is 0 (auto_quit) — returns at once
  /// otherwise.
  void wait(bool auto_quit);
  /// R-ROS-5: flush, stop the executor (joins the worker), then frontend->save_map(path). Returns
  /// the frontend's result.
  bool save(const std::string& path);

  asuka::AsyncOdometryEstimation& executor() { return *async_; }
  const asuka::AsyncOdometryEstimation& executor() const { return *async_; }
  asuka::OdometryEstimation& frontend() { return *odometry_; }
  const std::vector<asuka::ExtensionModule::Ptr>& extensions() const { return extensions_; }
  const AsukaROSParams& params() const { return params_; }
  AsukaROSStats stats() const;
  /// The acc_scale in use (0 while auto detection is still collecting samples).
  double acc_scale() const { return acc_scale_; }
  /// The trajectory so far, one pose per estimated frame as the frontend emitted it (IMU pose,
  /// stamped when it holds). Thread-safe copy.
  std::vector<asuka::StampedPose> trajectory() const;
  /// Per estimated scan, the frontend's own processing time [s] (EstimationFrame::processing_seconds).
  std::vector<double> scan_processing_seconds() const;
  /// The lidar-IMU extrinsic of the last estimated frame (EstimationFrame::T_imu_lidar: configured,
  /// or estimated online), once there is one.
  std::optional<Eigen::Isometry3d> last_extrinsic() const;
  /// The frontend's high-rate pose stream (on_high_rate_pose; batchlio: one per batch window), as
  /// emitted; empty for frontends that emit only per scan. Thread-safe copy.
  std::vector<asuka::StampedPose> high_rate_trajectory() const;
  /// Per high-rate pose, HighRatePose::latency_seconds.
  std::vector<double> high_rate_latency_seconds() const;
  /// Time convention of the point clouds, once known.
  std::optional<PointTimeConvention> point_time_convention() const { return decoder_.convention(); }

private:
  struct Event {
    double stamp = 0.0;
    std::uint64_t sequence = 0;  ///< arrival order breaks ties: deterministic
    bool is_imu = true;
    asuka::ImuData imu;
    asuka::Frame::ConstPtr frame;
    bool operator>(const Event& other) const { return stamp != other.stamp ? stamp > other.stamp : sequence > other.sequence; }
  };

  /// Counts by kind; logs the first three of each kind in full, then every 100th.
  void count_warning(const std::string& topic, const DecodeIssue& issue);
  template <typename Msg>
  void decode_and_insert(const Msg& msg);
  void after_decode(DecodedFrame decoded);
  void apply_acc_scale_and_submit(asuka::ImuData imu);
  void decide_acc_scale();
  void submit(Event event);
  void hand_over(const Event& event);

  AsukaROSParams params_;
  std::shared_ptr<spdlog::logger> logger_;
  asuka::OdometryEstimation::Ptr odometry_;
  asuka::CloudPreprocess::Ptr preprocess_;
  std::vector<asuka::ExtensionModule::Ptr> extensions_;
  std::unique_ptr<asuka::AsyncOdometryEstimation> async_;
  CloudDecoder decoder_;

  double last_timestamp_lidar_ = -1.0;  // R-ROS-2 baselines
  double last_timestamp_imu_ = -1.0;

  double acc_scale_ = 0.0;
  std::vector<asuka::ImuData> acc_scale_pending_;

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> reorder_;
  std::uint64_t sequence_ = 0;
  double newest_stamp_ = -std::numeric_limits<double>::infinity();
  double last_handed_stamp_ = -std::numeric_limits<double>::infinity();

  mutable std::mutex mutex_;  // guards stats_ and trajectory_ (trajectory_ is written on the worker)
  AsukaROSStats stats_;
  std::vector<asuka::StampedPose> trajectory_;
  std::vector<double> scan_seconds_;
  std::optional<Eigen::Isometry3d> last_extrinsic_;
  std::vector<asuka::StampedPose> high_rate_;
  std::vector<double> high_rate_latency_;
  asuka::ScopedConnection new_frame_connection_;
  asuka::ScopedConnection high_rate_connection_;
};

}  // namespace asuka_ros
