#pragma once
// Host: the ROS-free input pipeline every entry point shares (asuka_rosbag, asuka_rosnode, tests,
// and anything that holds decoded sensor data in memory). It loads the frontend by so_name
// (R-PLUG-2, R-PLUG-5), takes its cloud preprocessor (R-PLUG-4), loads the extensions, owns the
// executor, and runs every input through the same steps:
//
//   IMU   (R-ROS-3):  loop-back check on the raw stamp -> + imu_time_offset -> x acc_scale -> reorder -> executor
//   lidar (R-ROS-4):  loop-back check on the raw stamp -> + time_offset_lidar_to_imu
//                     -> the frontend's preprocessor -> reorder -> executor
//   image (#13):      loop-back check on the raw stamp -> + time_offset_camera_to_imu -> reorder -> executor
//
// With a reorder window > 0 (offline runs), events are handed to the executor in sensor-time order
// and producers are held back while the executor's queues are full (R-ROS-7), which makes offline
// runs deterministic. It records the trajectory, the high-rate pose stream and the counters of the
// run report. Nothing here calls into the frontend except through the executor: only the worker
// thread touches it (R-EXEC-1).
//
// Threads: insert_*, flush, wait and save come from one producer thread; the accessors are safe from
// any thread.

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <functional>
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
#include <asuka/host/degeneracy_report.hpp>
#include <asuka/host/run_record.hpp>
#include <asuka/host/input_checks.hpp>
#include <asuka/host/time_offset_check.hpp>
#include <asuka/host/time_outliers.hpp>
#include <asuka/io/trajectory_io.hpp>

namespace spdlog {
class logger;
}

namespace asuka {

class Config;

struct HostParams {
  std::string so_name;                    ///< frontend plugin (config_odometry.so_name, R-PLUG-5)
  double imu_time_offset = 0.0;           ///< [s] added to IMU stamps
  double time_offset_lidar_to_imu = 0.0;  ///< [s] added to lidar stamps
  double time_offset_camera_to_imu = 0.0; ///< [s] added to image stamps
  double acc_scale = 0.0;                 ///< multiplier for accelerations; 0 = auto (1 or g, from the first samples)
  double gyro_scale = 1.0;                ///< multiplier for angular rates (pi/180 for a gyroscope in deg/s)
  bool gyro_scale_configured = false;     ///< gyro_scale was given: the unit is known, the deg/s check is off
  double reorder_window = 0.0;            ///< [s] of sensor time; 0 = hand over in arrival order
  bool load_extensions = true;            ///< load the extensions the root config lists
  std::string lidar_source = "lidar";     ///< names the LiDAR input in warnings (the ROS layer: its topic)
  int map_save_every = 0;                 ///< #16: save the map every N estimated scans while running (config map_save_every; 0 = only at the end)
  std::string map_save_path;              ///< where (set by the application: its map.pcd); empty = no periodic saving
  int map_publish_every = 0;              ///< #16: hand the map to the map listener every N estimated scans (config map_publish_every; 0 = never)
  /// #18: where the per-scan outputs go as they are produced (run_record.hpp): a directory that
  /// exists (set by the application: its output directory), or "" to keep them in memory, or, with
  /// record_summary_only, to count them only (a live run without an output directory).
  std::string record_dir;
  bool record_summary_only = false;
  AsyncOdometryEstimationParams executor;

  /// so_name from config_odometry; offsets, acc_scale, reorder_window and executor from `input`
  /// (config_ros for the ROS apps). Throws ConfigError naming file, key, value and what was expected.
  static HostParams from_config(const Config& input);
};

/// Counts for the run report.
struct HostStats {
  std::uint64_t imu_messages = 0;    ///< IMU messages received (before decoding)
  std::uint64_t imu_inserted = 0;    ///< IMU samples handed on towards the executor
  std::uint64_t frame_messages = 0;  ///< cloud messages received (before decoding)
  std::uint64_t frames_inserted = 0;
  std::uint64_t image_messages = 0;  ///< image messages received (before decoding)
  std::uint64_t images_inserted = 0; ///< images handed on towards the executor
  std::uint64_t points_in = 0;       ///< points in the decoded messages
  std::uint64_t points_kept = 0;     ///< points after the frontend's preprocessing
  std::uint64_t imu_loop_backs = 0;
  std::uint64_t lidar_loop_backs = 0;
  std::uint64_t image_loop_backs = 0;
  std::uint64_t reordered_late = 0;  ///< events older than what was already handed over
  std::map<std::string, std::uint64_t> warnings;  ///< by kind
  double decode_seconds = 0.0;
  double preprocess_seconds = 0.0;
};

class Host {
public:
  /// Loads the frontend and (params.load_extensions) the extensions listed in the root config. Throws
  /// ConfigError when the frontend cannot be loaded (an unknown name, listing the installed ones, or a
  /// bad key of its config: the applications exit 2), std::runtime_error when an extension cannot.
  explicit Host(const HostParams& params);
  virtual ~Host();

  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  /// R-ROS-3: loop-back check on the raw stamp, then the time offset, then acc_scale. A lone stamp
  /// more than 1 s ahead of its neighbours is dropped first, with a counted warning (time_outliers.hpp).
  void insert_imu(ImuData imu);
  /// R-ROS-4: loop-back check on the raw stamp, then the time offset, then the preprocessor. The
  /// frame's offsets are in ms from its stamp (R-PRE-2); a null frame is ignored; a lone stamp more
  /// than 1 s ahead of its neighbours is dropped first, as for the IMU.
  void insert_frame(LidarFrame::Ptr frame);
  /// #13: loop-back check on the raw stamp, then time_offset_camera_to_imu; a null or inconsistent
  /// image (Image::valid) is counted and skipped; a lone stamp more than 1 s ahead is dropped as for
  /// the IMU. LiDAR-inertial frontends ignore images (OdometryEstimation::insert_image).
  void insert_image(Image::Ptr image);

  /// R-ROS-2: warns "lidar/imu loop back detected: OLD -> NEW" when `stamp` is strictly older than
  /// the stream's previous stamp; always updates the baseline; never drops data. NONE: no-op.
  void handle_loop_back(double stamp, StreamId stream);

  /// Counts a problem of `kind` on `source` (a topic, a file) and warns: the first three of each kind
  /// in full, then every 100th.
  void count_warning(const std::string& kind, const std::string& source, const std::string& message);
  /// What the decoding layer saw before handing data over (for the report).
  void count_message(StreamId stream, std::uint64_t points = 0, double decode_seconds = 0.0);

  /// Hands every event still held (reorder window, acc_scale detection) to the executor.
  void flush();
  /// R-ROS-6, R-EXEC-7: flush, then, when `auto_quit`, block until the executor has consumed every
  /// event (event-driven, no polling). A frontend that still reports work it cannot do without more
  /// input is warned about, not waited for. Returns at once when `auto_quit` is false.
  void wait(bool auto_quit);
  /// R-ROS-5: flush, stop the executor (joins the worker), then the frontend's save_map(path).
  /// Returns the frontend's result (false for an empty path).
  bool save(const std::string& path);

  /// #16: with params.map_publish_every N > 0, `listener` gets the map's points (world frame) every N
  /// estimated scans, on the worker thread, with the scan's pose time (the live node's map topic). Set
  /// it before data flows.
  using MapListener = std::function<void(double stamp, std::shared_ptr<const std::vector<Eigen::Vector3f>> points)>;
  void set_map_listener(MapListener listener) { map_listener_ = std::move(listener); }

  AsyncOdometryEstimation& executor() { return *async_; }
  const AsyncOdometryEstimation& executor() const { return *async_; }
  const std::vector<ExtensionModule::Ptr>& extensions() const { return extensions_; }
  const HostParams& host_params() const { return params_; }
  HostStats stats() const;
  /// The first fatal finding of the input checks (input_checks.hpp: different clocks, IMU units), or
  /// empty. The data keeps flowing; the applications stop reading and exit 2 when it is set.
  std::string input_error() const;
  /// #12 item 4: the LiDAR-IMU time offset estimated from the frontend's poses and the gyroscope
  /// (time_offset_check.hpp), once the first window of poses is complete or the run ended; nullopt
  /// before. An estimate beyond its warn_above is warned about (kind time_offset) with the setting.
  std::optional<TimeOffsetEstimate> time_offset_estimate() const;
  /// #21: the degenerate scans and intervals so far (degeneracy_report.hpp).
  DegeneracySummary degeneracy() const { return degeneracy_->summary(); }
  /// The acc_scale in use (0 while auto detection is still collecting samples).
  double acc_scale() const { return acc_scale_; }
  /// The lidar-IMU extrinsic of the last estimated frame (configured, or estimated online).
  std::optional<Eigen::Isometry3d> last_extrinsic() const;
  /// #16: the frontend's extrinsic rotation check (asuka/lio/extrinsic_check.hpp), once it gave its
  /// verdict; nullopt before, or when the frontend has none. A WRONG verdict is also an input error
  /// (kind extrinsic), a SUSPECT one a warning.
  std::optional<ExtrinsicRotationCheck> extrinsic_check() const;
  /// #18: the run's per-scan and high-rate record (run_record.hpp): summaries in every mode, the
  /// series themselves in memory mode (record_dir empty). Read it once the run has stopped (save(),
  /// stop()): the worker writes it while scans are estimated.
  const RunRecord& record() const { return record_; }
  /// Flushes and closes the record's files (STREAM); false and `error` when one could not be written.
  bool close_record(std::string* error);
  /// #21: every registered scan's localizability figure so far (memory mode; copy).
  std::vector<ScanLocalizability> scan_localizability() const;
  /// The trajectory so far (memory mode): one pose per estimated frame as the frontend emitted it
  /// (IMU pose, stamped when it holds). Thread-safe copy.
  std::vector<StampedPose> trajectory() const;
  /// The frontend's high-rate pose stream (on_high_rate_pose), as emitted (memory mode); empty for
  /// frontends that emit only per scan. Thread-safe copy.
  std::vector<StampedPose> high_rate_trajectory() const;

protected:
  std::shared_ptr<spdlog::logger> logger_;

private:
  struct Event {
    double stamp = 0.0;
    std::uint64_t sequence = 0;  ///< arrival order breaks ties: deterministic
    StreamId stream = StreamId::IMU;
    ImuData imu;
    LidarFrame::ConstPtr frame;
    Image::ConstPtr image;
    bool operator>(const Event& other) const { return stamp != other.stamp ? stamp > other.stamp : sequence > other.sequence; }
  };

  /// insert_imu / insert_frame after the single-outlier filter (time_outliers.hpp).
  void accept_imu(ImuData imu);
  void accept_frame(LidarFrame::Ptr frame);
  void accept_image(Image::Ptr image);
  void apply_acc_scale_and_submit(ImuData imu);
  void report_input_finding(const std::string& kind, const std::string& message, bool fatal);
  /// Estimates the time offset once (the window is complete, or the run ends) and warns about it.
  void check_time_offset();
  void decide_acc_scale();
  void submit(Event event);
  void hand_over(const Event& event);

  HostParams params_;
  OdometryEstimation::Ptr odometry_;  ///< handed to the executor; the host itself only calls save_map() after stop()
  CloudPreprocessor::Ptr preprocessor_;
  std::vector<ExtensionModule::Ptr> extensions_;
  std::unique_ptr<AsyncOdometryEstimation> async_;

  double last_stamp_lidar_ = -1.0;  // R-ROS-2 baselines
  double last_stamp_imu_ = -1.0;
  double last_stamp_camera_ = -1.0;
  bool frontend_uses_images_ = false;
  bool no_images_warned_ = false;  // guarded by mutex_

  double acc_scale_ = 0.0;
  std::vector<ImuData> acc_scale_pending_;
  InputChecks checks_;
  TimeOffsetCheck time_offset_;
  std::optional<TimeOffsetEstimate> time_offset_estimate_;  // guarded by mutex_
  std::atomic<bool> time_offset_checked_{false};             ///< estimated once: read without a lock on every IMU sample
  std::atomic<double> time_offset_window_end_{std::numeric_limits<double>::infinity()};  ///< stamp of the window's last pose
  int scans_since_map_save_ = 0;  ///< #16 map_save_every: worker thread only
  int scans_since_map_publish_ = 0;  ///< #16 map_publish_every: worker thread only
  MapListener map_listener_;
  // A forward jump above 1 s is held until the stream's next item tells a lone bad stamp (dropped)
  // from a real gap (#12 item 5).
  ForwardJumpFilter<ImuData> imu_jumps_{1.0};
  ForwardJumpFilter<LidarFrame::Ptr> frame_jumps_{1.0};
  ForwardJumpFilter<Image::Ptr> image_jumps_{1.0};
  std::size_t back_pressure_high_ = 0, back_pressure_low_ = 0;  // R-ROS-7's thresholds for the queues in use
  std::string input_error_;  // guarded by mutex_

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> reorder_;
  std::uint64_t sequence_ = 0;
  double newest_stamp_ = -std::numeric_limits<double>::infinity();
  double last_handed_stamp_ = -std::numeric_limits<double>::infinity();

  mutable std::mutex mutex_;  // guards stats_ and the recorded outputs (written on the worker)
  HostStats stats_;
  std::unique_ptr<DegeneracyReport> degeneracy_;  ///< fed on the worker (on_new_frame); locks itself
  /// Written on the worker (files too), read after the run: a lock of its own, so that a slow disk
  /// never holds up the input path's mutex_.
  mutable std::mutex record_mutex_;
  RunRecord record_;  ///< guarded by record_mutex_
  bool record_error_logged_ = false;  ///< guarded by record_mutex_
  std::optional<Eigen::Isometry3d> last_extrinsic_;          // guarded by mutex_
  std::optional<ExtrinsicRotationCheck> extrinsic_check_;    // guarded by mutex_
  ScopedConnection new_frame_connection_;
  ScopedConnection high_rate_connection_;
};

}  // namespace asuka
