#include <asuka_ros/asuka_ros.hpp>

#include <cmath>
#include <stdexcept>
#include <thread>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>

namespace asuka_ros {

namespace {

constexpr double kGravity = 9.80665;          // [m/s^2] standard gravity: Livox IMUs report in g
constexpr std::size_t kAccScaleSamples = 10;  // samples averaged by acc_scale auto
constexpr std::size_t kBackPressureHigh = 40; // queued events: below the frame queue's 50
constexpr std::size_t kBackPressureLow = 8;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

AsukaROSParams AsukaROSParams::from_config() {
  auto& global = asuka::GlobalConfig::instance();
  const auto& ros = global.module("config_ros");
  const auto& odometry = global.module("config_odometry");
  AsukaROSParams p;

  p.so_name = odometry.get<std::string>("so_name", "");
  if (p.so_name.empty()) p.so_name = ros.get<std::string>("so_name", "");
  if (p.so_name.empty()) {
    throw asuka::ConfigError(odometry.name() + ": required key 'so_name' is missing (the frontend plugin, e.g. \"fastlio\")");
  }
  p.imu_topic = ros.get<std::string>("imu_topic", p.imu_topic);
  p.points_topic = ros.get<std::string>("points_topic", p.points_topic);
  const auto lidar_type = ros.get_enum("lidar_type", asuka::to_string(p.lidar_type), asuka::lidar_type_names());
  asuka::lidar_type_from_string(lidar_type, p.lidar_type);
  p.imu_time_offset = ros.get_in_range("imu_time_offset", 0.0, -10.0, 10.0);
  p.time_offset_lidar_to_imu = ros.get_in_range("time_offset_lidar_to_imu", 0.0, -10.0, 10.0);

  // acc_scale: a positive number, or "auto" (the default).
  if (ros.has("acc_scale")) {
    try {
      p.acc_scale = ros.get_in_range("acc_scale", 1.0, 1e-6, 1e6);
    } catch (const asuka::ConfigError&) {
      std::string value;
      try {
        value = ros.get<std::string>("acc_scale", "auto");
      } catch (const asuka::ConfigError&) {
      }
      if (value != "auto") throw asuka::ConfigError(ros.name() + ": key 'acc_scale' must be a positive number or \"auto\"");
      p.acc_scale = 0.0;
    }
  } else {
    ros.get<std::string>("acc_scale", "auto");  // recorded in the effective config
  }

  p.map_saving_path = ros.get<std::string>("map_saving_path", "");
  p.point_time.field = ros.get<std::string>("point_time.field", "");
  const auto unit = ros.get_enum("point_time.unit", "auto", {"auto", "s", "ms", "us", "ns"});
  time_unit_from_string(unit, p.point_time.unit);
  const auto reference = ros.get_enum("point_time.reference", "auto", {"auto", "absolute", "relative"});
  time_reference_from_string(reference, p.point_time.reference);
  p.reorder_window = ros.get_in_range("reorder_window", 0.0, 0.0, 10.0);
  p.world_frame = ros.get<std::string>("frames.world", p.world_frame);
  p.body_frame = ros.get<std::string>("frames.body", p.body_frame);
  p.executor = asuka::AsyncOdometryEstimationParams::from_config(ros);
  return p;
}

AsukaROS::AsukaROS(const AsukaROSParams& params)
: params_(params), logger_(asuka::module_logger("ros")), decoder_(params.lidar_type, params.point_time), acc_scale_(params.acc_scale) {
  std::string error;
  odometry_ = asuka::OdometryEstimation::load_module(params_.so_name, &error);
  if (!odometry_) throw std::runtime_error("cannot start: " + error);
  preprocess_ = odometry_->cloud_preprocess();  // R-PLUG-4
  extensions_ = asuka::ExtensionModule::load_from_config();

  new_frame_connection_ = asuka::connect(asuka::OdometryCallbacks::on_new_frame, [this](const asuka::EstimationFrame::ConstPtr& frame) {
    std::lock_guard<std::mutex> lock(mutex_);
    trajectory_.push_back(asuka::StampedPose{frame->pose_stamp, frame->T_world_imu});
    scan_seconds_.push_back(frame->processing_seconds);
    last_extrinsic_ = frame->T_imu_lidar;
  });
  high_rate_connection_ = asuka::connect(asuka::OdometryCallbacks::on_high_rate_pose, [this](const asuka::HighRatePose& pose) {
    std::lock_guard<std::mutex> lock(mutex_);
    high_rate_.push_back(asuka::StampedPose{pose.stamp, pose.T_world_imu});
    high_rate_latency_.push_back(pose.latency_seconds);
  });
  async_ = std::make_unique<asuka::AsyncOdometryEstimation>(odometry_, params_.executor);
  logger_->info("frontend '{}', imu '{}', points '{}' ({}), acc_scale {}, reorder window {} s", params_.so_name, params_.imu_topic, params_.points_topic,
                asuka::to_string(params_.lidar_type), acc_scale_ > 0.0 ? std::to_string(acc_scale_) : std::string("auto"), params_.reorder_window);
}

AsukaROS::~AsukaROS() {
  if (async_) async_->stop();  // R-ROS-5: stop again (idempotent) before the frontend goes
  new_frame_connection_.disconnect();
  high_rate_connection_.disconnect();
}

void AsukaROS::count_warning(const std::string& topic, const DecodeIssue& issue) {
  std::uint64_t count = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count = ++stats_.warnings[issue.kind];
  }
  // The first few of each kind in full, then a reminder every 100 so a bad topic cannot flood the log.
  if (count <= 3 || count % 100 == 0) {
    logger_->warn("[{}{}] topic '{}': {}", issue.kind, count > 3 ? fmt::format(" x{}", count) : std::string(), topic, issue.message);
  }
}

void AsukaROS::insert_imu(const sensor_msgs::Imu& msg) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.imu_messages;
  }
  auto decoded = decode_imu(msg);
  if (decoded.error) {
    count_warning(params_.imu_topic, *decoded.error);
    return;
  }
  insert_imu(*decoded.imu);
}

void AsukaROS::insert_imu(asuka::ImuData imu) {
  handle_loop_back(imu.stamp, asuka::FrameId::IMU);  // raw stamp, before any offset (R-ROS-2)
  imu.stamp += params_.imu_time_offset;
  apply_acc_scale_and_submit(imu);
}

void AsukaROS::apply_acc_scale_and_submit(asuka::ImuData imu) {
  if (acc_scale_ <= 0.0) {
    acc_scale_pending_.push_back(imu);
    if (acc_scale_pending_.size() >= kAccScaleSamples) decide_acc_scale();
    return;
  }
  imu.acc *= acc_scale_;
  Event event;
  event.is_imu = true;
  event.stamp = imu.stamp;
  event.imu = imu;
  submit(std::move(event));
}

void AsukaROS::decide_acc_scale() {
  if (acc_scale_ > 0.0 || acc_scale_pending_.empty()) return;
  double mean_norm = 0.0;
  for (const auto& s : acc_scale_pending_) mean_norm += s.acc.norm();
  mean_norm /= static_cast<double>(acc_scale_pending_.size());
  // Between the two readings of gravity (1 in g, 9.8 in m/s^2) the geometric middle is ~3.1.
  acc_scale_ = mean_norm < std::sqrt(kGravity) ? kGravity : 1.0;
  logger_->info("acc_scale auto: mean |acc| of the first {} IMU samples is {:.4f}, so the IMU reports in {}; scaling accelerations by {}",
                acc_scale_pending_.size(), mean_norm, acc_scale_ > 1.0 ? "g" : "m/s^2", acc_scale_);
  auto pending = std::move(acc_scale_pending_);
  acc_scale_pending_.clear();
  for (auto& s : pending) apply_acc_scale_and_submit(s);
}

template <typename Msg>
void AsukaROS::decode_and_insert(const Msg& msg) {
  const auto start = std::chrono::steady_clock::now();
  auto decoded = decoder_.decode(msg);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.decode_seconds += seconds_since(start);
  }
  after_decode(std::move(decoded));
}

void AsukaROS::insert_frame(const sensor_msgs::PointCloud2& msg) { decode_and_insert(msg); }
void AsukaROS::insert_frame(const LivoxCustomMsg& msg) { decode_and_insert(msg); }
void AsukaROS::insert_frame(const Livox2CustomMsg& msg) { decode_and_insert(msg); }

void AsukaROS::after_decode(DecodedFrame decoded) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.frame_messages;
    stats_.points_in += decoded.points_in;
  }
  if (decoder_.take_new_convention()) {
    const PointTimeConvention convention = *decoder_.convention();
    logger_->info("point time convention of '{}': {}", params_.points_topic, convention.reason);
    // Detected, not forced, and not the unit this lidar's driver writes: it is converted, but a
    // driver or a bag conversion got the unit wrong, which deserves a warning.
    const auto expected = expected_point_time_unit(params_.lidar_type);
    if (params_.point_time.unit == TimeUnit::AUTO && expected != TimeUnit::AUTO && convention.unit != expected) {
      count_warning(params_.points_topic, DecodeIssue{"point_time_unit", fmt::format("per-point time is in {}, not the {} {} drivers write; converted "
                                                                                     "(config_ros point_time.unit forces a unit)",
                                                                                     to_string(convention.unit), to_string(expected),
                                                                                     asuka::to_string(params_.lidar_type))});
    }
  }
  for (const auto& w : decoded.warnings) count_warning(params_.points_topic, w);
  if (decoded.error) {
    count_warning(params_.points_topic, *decoded.error);
    return;
  }
  insert_frame(std::move(decoded.frame));
}

void AsukaROS::insert_frame(asuka::Frame::Ptr frame) {
  if (!frame) return;
  handle_loop_back(frame->stamp, asuka::FrameId::LIDAR);  // raw stamp, before any offset (R-ROS-2)
  frame->stamp += params_.time_offset_lidar_to_imu;

  asuka::Frame::ConstPtr ready = frame;
  if (preprocess_) {
    const auto start = std::chrono::steady_clock::now();
    ready = preprocess_->preprocess(*frame);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.preprocess_seconds += seconds_since(start);
  }
  if (!ready) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.points_kept += ready->points.size();
  }
  if (ready->points.empty()) {
    count_warning(params_.points_topic, DecodeIssue{"empty_after_preprocess", fmt::format("frame at {:.6f}: no point left after preprocessing (range window, decimation, line "
                                                                    "filter); skipped",
                                                                    ready->stamp)});
    return;
  }
  Event event;
  event.is_imu = false;
  event.stamp = ready->stamp;
  event.frame = std::move(ready);
  submit(std::move(event));
}

void AsukaROS::handle_loop_back(double stamp, asuka::FrameId frame_id) {
  if (frame_id == asuka::FrameId::WORLD) return;
  const bool is_imu = frame_id == asuka::FrameId::IMU;
  double& baseline = is_imu ? last_timestamp_imu_ : last_timestamp_lidar_;
  if (stamp < baseline) {
    logger_->warn("{} loop back detected: {:.9f} -> {:.9f}", asuka::to_string(frame_id), baseline, stamp);
    std::lock_guard<std::mutex> lock(mutex_);
    ++(is_imu ? stats_.imu_loop_backs : stats_.lidar_loop_backs);
  }
  baseline = stamp;  // always, so one loop back warns once
}

void AsukaROS::submit(Event event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event.is_imu) {
      ++stats_.imu_inserted;
    } else {
      ++stats_.frames_inserted;
    }
  }
  if (params_.reorder_window <= 0.0) {
    hand_over(event);
    return;
  }
  event.sequence = sequence_++;
  if (event.stamp < last_handed_stamp_) {
    // Older than what the executor already has (a loop back, an out-of-order sample): hand over
    // everything held, wait until the executor has fed it, then this event. The order stays a
    // function of the input alone.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.reordered_late;
    }
    while (!reorder_.empty()) {
      hand_over(reorder_.top());
      reorder_.pop();
    }
    async_->wait_idle();
    hand_over(event);
    newest_stamp_ = event.stamp;
    return;
  }
  newest_stamp_ = std::max(newest_stamp_, event.stamp);
  reorder_.push(std::move(event));
  while (!reorder_.empty() && reorder_.top().stamp <= newest_stamp_ - params_.reorder_window) {
    hand_over(reorder_.top());
    reorder_.pop();
  }
}

void AsukaROS::hand_over(const Event& event) {
  last_handed_stamp_ = event.stamp;
  if (params_.reorder_window > 0.0 && async_->queued_events() > kBackPressureHigh) {
    // R-ROS-7: offline, wait for the worker instead of letting a ring buffer overflow.
    async_->wait_queued_at_most(kBackPressureLow, std::chrono::hours(1));
  }
  if (event.is_imu) {
    async_->insert_imu(event.imu);
  } else {
    async_->insert_frame(event.frame);
  }
}

void AsukaROS::flush() {
  decide_acc_scale();  // fewer than kAccScaleSamples in the whole input: decide with what there is
  while (!reorder_.empty()) {
    hand_over(reorder_.top());
    reorder_.pop();
  }
}

void AsukaROS::wait(bool auto_quit) {
  flush();
  if (!auto_quit) return;
  // R-ROS-6: 100 Hz polling of workload(); a stopped or tripped executor ends the wait too. A frontend
  // whose workload stays above 0 with nothing queued for 2 s breaks its contract (work it cannot do
  // without more input); waiting longer would hang the end of every run.
  int last = -1;
  auto unchanged_since = std::chrono::steady_clock::now();
  while (async_->running() && async_->ok()) {
    const int workload = async_->workload();
    if (workload == 0) {
      // Nothing queued and nothing held, but the last event may still be inside the frontend
      // (workload() does not count the event in flight): wait for the executor to be idle.
      if (async_->wait_for(std::chrono::milliseconds(10))) break;
      continue;
    }
    if (workload != last || async_->queued_events() > 0) {
      last = workload;
      unchanged_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - unchanged_since > std::chrono::seconds(2)) {
      logger_->warn("the frontend still reports workload {} with no input left; not waiting for it", workload);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool AsukaROS::save(const std::string& path) {
  flush();
  async_->stop();  // R-ROS-5: joins the worker first, so nothing writes the map while it is saved
  if (path.empty()) return false;
  return odometry_->save_map(path);
}

AsukaROSStats AsukaROS::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::vector<double> AsukaROS::scan_processing_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return scan_seconds_;
}

std::optional<Eigen::Isometry3d> AsukaROS::last_extrinsic() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_extrinsic_;
}

std::vector<asuka::StampedPose> AsukaROS::trajectory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return trajectory_;
}

std::vector<asuka::StampedPose> AsukaROS::high_rate_trajectory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return high_rate_;
}

std::vector<double> AsukaROS::high_rate_latency_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return high_rate_latency_;
}

}  // namespace asuka_ros
