#include <asuka/host/host.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/util/process_memory.hpp>

namespace asuka {

namespace {

constexpr double kGravity = 9.80665;          // [m/s^2] standard gravity: Livox IMUs report in g
constexpr std::size_t kAccScaleSamples = 10;  // samples averaged by acc_scale auto
constexpr std::size_t kBackPressureHigh = 40; // queued events: below the frame queue's 50 (R-ROS-7)
constexpr std::size_t kBackPressureLow = 8;    // ... lowered to fit smaller queues (back_pressure_limits)

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

HostParams HostParams::from_config(const Config& input) {
  const auto& odometry = GlobalConfig::instance().module("config_odometry");
  HostParams p;
  p.so_name = odometry.get<std::string>("so_name", "");
  if (p.so_name.empty()) p.so_name = input.get<std::string>("so_name", "");
  if (p.so_name.empty()) {
    throw ConfigError(odometry.name() + ": required key 'so_name' is missing (the frontend plugin, e.g. \"fastlio\")");
  }
  p.imu_time_offset = input.get_in_range("imu_time_offset", 0.0, -10.0, 10.0);
  p.time_offset_lidar_to_imu = input.get_in_range("time_offset_lidar_to_imu", 0.0, -10.0, 10.0);
  p.time_offset_camera_to_imu = input.get_in_range("time_offset_camera_to_imu", 0.0, -10.0, 10.0);
  p.map_save_every = input.get_in_range("map_save_every", 0, 0, 1000000);
  p.map_publish_every = input.get_in_range("map_publish_every", 0, 0, 1000000);

  // acc_scale: a positive number, or "auto" (the default).
  if (input.has("acc_scale")) {
    try {
      p.acc_scale = input.get_in_range("acc_scale", 1.0, 1e-6, 1e6);
    } catch (const ConfigError&) {
      std::string value;
      try {
        value = input.get<std::string>("acc_scale", "auto");
      } catch (const ConfigError&) {
      }
      if (value != "auto") throw ConfigError(input.name() + ": key 'acc_scale' must be a positive number or \"auto\"");
      p.acc_scale = 0.0;
    }
  } else {
    input.get<std::string>("acc_scale", "auto");  // recorded in the effective config
  }
  p.gyro_scale_configured = input.has("gyro_scale");
  p.gyro_scale = input.get_in_range("gyro_scale", 1.0, 1e-6, 1e3);
  p.reorder_window = input.get_in_range("reorder_window", 0.0, 0.0, 10.0);
  p.executor = AsyncOdometryEstimationParams::from_config(input);
  return p;
}

Host::Host(const HostParams& params)
: logger_(module_logger("ros")),
  params_(params),
  acc_scale_(params.acc_scale),
  checks_([this](const std::string& kind, const std::string& message, bool fatal) { report_input_finding(kind, message, fatal); }),
  record_(!params.record_dir.empty() ? RunRecord(params.record_dir) : params.record_summary_only ? RunRecord::summary_only() : RunRecord()) {
  checks_.set_gyro_scale(params_.gyro_scale, params_.gyro_scale_configured);
  std::string error;
  odometry_ = OdometryEstimation::load_module(params_.so_name, &error);
  if (!odometry_) throw ConfigError("cannot start: " + error);  // an unknown frontend or a bad key: the configuration's (exit 2)
  preprocessor_ = odometry_->cloud_preprocessor();  // R-PLUG-4
  frontend_uses_images_ = odometry_->uses_images();  // asked before the worker owns the frontend
  if (params_.load_extensions) extensions_ = ExtensionModule::load_from_config();

  degeneracy_ = std::make_unique<DegeneracyReport>(module_logger("degeneracy"));
  new_frame_connection_ = connect(OdometryCallbacks::on_new_frame, [this](const EstimationFrame::ConstPtr& frame) {
    degeneracy_->add(frame->pose_stamp, frame->localizability ? &*frame->localizability : nullptr);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      last_extrinsic_ = frame->T_imu_lidar;
      if (frame->extrinsic_check) extrinsic_check_ = *frame->extrinsic_check;
    }
    // #16: a wrong extrinsic rotation makes the whole run untrustworthy: an input error, as units and
    // clocks are (the applications stop reading and exit 2).
    // #12: a gyroscope whose angles are a multiple of the LiDAR's (deg/s, a wrong gyro_scale) likewise;
    // another factor than a unit mix-up is warned about (#17: the LiDAR alone may have spun).
    if (frame->extrinsic_check && (frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::GYRO_SCALE ||
                                   frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT)) {
      report_input_finding("gyro_scale", frame->extrinsic_check->message, frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::GYRO_SCALE);
    }
    if (frame->extrinsic_check && (frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::SUSPECT ||
                                   frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::WRONG)) {
      report_input_finding("extrinsic", frame->extrinsic_check->message, frame->extrinsic_check->verdict == ExtrinsicRotationCheck::Verdict::WRONG);
    }
    {
      const std::size_t resident = record_.mode() == RunRecord::Mode::STREAM ? resident_bytes() : 0;
      std::lock_guard<std::mutex> lock(record_mutex_);
      record_.scan(*frame, resident);
      if (!record_error_logged_ && !record_.error().empty()) {
        record_error_logged_ = true;  // once: the run goes on, the report says it again at the end
        logger_->error("{}: the trajectory and per-scan outputs are no longer being written (the run goes on)", record_.error());
      }
    }
    // The window's last pose: the producer estimates once it has handed over the IMU the search needs
    // after it (hand_over), so the estimate does not depend on thread timing.
    if (time_offset_.add_pose(frame->pose_stamp, frame->T_world_imu.linear())) time_offset_window_end_ = frame->pose_stamp;
    // #16: the map every N scans, to the listener (the live node's map topic) and to a file (so that a
    // long run that ends badly still leaves one). On the worker thread, between two scans of the
    // frontend: nothing writes the map meanwhile. The file is written beside and renamed, so it is
    // never half written.
    if (params_.map_publish_every > 0 && map_listener_ && ++scans_since_map_publish_ >= params_.map_publish_every) {
      scans_since_map_publish_ = 0;
      auto points = std::make_shared<std::vector<Eigen::Vector3f>>();
      if (odometry_->map_points(*points)) map_listener_(frame->pose_stamp, std::move(points));
    }
    if (params_.map_save_every > 0 && !params_.map_save_path.empty() && ++scans_since_map_save_ >= params_.map_save_every) {
      scans_since_map_save_ = 0;
      const std::string partial = params_.map_save_path + ".partial";
      std::error_code ec;
      if (odometry_->save_map(partial)) std::filesystem::rename(partial, params_.map_save_path, ec);
      if (ec) module_logger("ros")->warn("cannot write the periodic map to '{}': {}", params_.map_save_path, ec.message());
    }
  });
  high_rate_connection_ = connect(OdometryCallbacks::on_high_rate_pose, [this](const HighRatePose& pose) {
    std::lock_guard<std::mutex> lock(record_mutex_);
    record_.high_rate(StampedPose{pose.stamp, pose.T_world_imu}, pose.latency_seconds);
  });
  async_ = std::make_unique<AsyncOdometryEstimation>(odometry_, params_.executor);
  // R-ROS-7 blocks above 40 queued events, which must stay below the smaller queue's capacity or
  // that queue overflows first (an imu_queue_capacity of 30 cost metres): smaller queues lower the
  // thresholds with them.
  const std::size_t smallest =
    std::min({params_.executor.imu_queue_capacity, params_.executor.frame_queue_capacity, params_.executor.image_queue_capacity});
  back_pressure_high_ = std::min(kBackPressureHigh, smallest > 0 ? smallest - 1 : 0);
  back_pressure_low_ = std::min(kBackPressureLow, back_pressure_high_ / 4);
}

Host::~Host() {
  if (async_) async_->stop();  // R-ROS-5: stop again (idempotent) before the frontend goes
  new_frame_connection_.disconnect();
  high_rate_connection_.disconnect();
}

void Host::count_warning(const std::string& kind, const std::string& source, const std::string& message) {
  std::uint64_t count = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count = ++stats_.warnings[kind];
  }
  // The first few of each kind in full, then a reminder every 100 so a bad input cannot flood the log.
  if (count <= 3 || count % 100 == 0) {
    logger_->warn("[{}{}] '{}': {}", kind, count > 3 ? fmt::format(" x{}", count) : std::string(), source, message);
  }
}

std::string Host::input_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return input_error_;
}

void Host::report_input_finding(const std::string& kind, const std::string& message, bool fatal) {
  const std::string source = kind == "clocks" || kind == "extrinsic" || kind == "gyro_scale" ? params_.lidar_source + " and IMU" : kind == "imu_units" || kind == "imu_implausible" ? "IMU" : params_.lidar_source;
  if (!fatal) {
    count_warning(kind, source, message);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.warnings[kind];
    if (input_error_.empty()) input_error_ = message;
  }
  logger_->error("[{}] '{}': {}", kind, source, message);
}

void Host::count_message(StreamId stream, std::uint64_t points, double decode_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stream == StreamId::IMU) {
    ++stats_.imu_messages;
  } else if (stream == StreamId::LIDAR) {
    ++stats_.frame_messages;
    stats_.points_in += points;
  } else if (stream == StreamId::CAMERA) {
    ++stats_.image_messages;
  }
  stats_.decode_seconds += decode_seconds;
}

void Host::insert_imu(ImuData imu) {
  const double stamp = imu.stamp;
  imu_jumps_.push(
      std::move(imu), stamp, [this](ImuData accepted) { accept_imu(std::move(accepted)); },
      [this](const ImuData&, double bad, double before, double after) {
        count_warning("time_outlier", "IMU",
                      fmt::format("sample stamped {:.6f} lies {:.3f} s after the one before ({:.6f}), and the next ({:.6f}) continues from before it: "
                                  "a single bad stamp; dropped",
                                  bad, bad - before, before, after));
      });
}

void Host::accept_imu(ImuData imu) {
  handle_loop_back(imu.stamp, StreamId::IMU);  // raw stamp, before any offset (R-ROS-2)
  imu.stamp += params_.imu_time_offset;
  apply_acc_scale_and_submit(imu);
}

void Host::apply_acc_scale_and_submit(ImuData imu) {
  if (acc_scale_ <= 0.0) {
    acc_scale_pending_.push_back(imu);
    if (acc_scale_pending_.size() >= kAccScaleSamples) decide_acc_scale();
    return;
  }
  imu.acc *= acc_scale_;
  imu.gyro *= params_.gyro_scale;
  if (!checks_.check_imu(imu, acc_scale_, params_.acc_scale <= 0.0)) return;
  Event event;
  event.stream = StreamId::IMU;
  event.stamp = imu.stamp;
  event.imu = imu;
  submit(std::move(event));
}

void Host::decide_acc_scale() {
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

void Host::insert_frame(LidarFrame::Ptr frame) {
  if (!frame) return;
  const double stamp = frame->stamp;
  frame_jumps_.push(
      std::move(frame), stamp, [this](LidarFrame::Ptr accepted) { accept_frame(std::move(accepted)); },
      [this](const LidarFrame::Ptr&, double bad, double before, double after) {
        count_warning("time_outlier", params_.lidar_source,
                      fmt::format("frame stamped {:.6f} lies {:.3f} s after the one before ({:.6f}), and the next ({:.6f}) continues from before it: "
                                  "a single bad stamp; dropped",
                                  bad, bad - before, before, after));
      });
}

void Host::accept_frame(LidarFrame::Ptr frame) {
  handle_loop_back(frame->stamp, StreamId::LIDAR);  // raw stamp, before any offset (R-ROS-2)
  frame->stamp += params_.time_offset_lidar_to_imu;
  checks_.check_frame(frame->stamp);

  LidarFrame::ConstPtr ready = frame;
  if (preprocessor_) {
    const auto start = std::chrono::steady_clock::now();
    ready = preprocessor_->preprocess(*frame);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.preprocess_seconds += seconds_since(start);
  }
  if (!ready) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.points_kept += ready->points.size();
  }
  if (ready->points.empty()) {
    count_warning("empty_after_preprocess", params_.lidar_source,
                  fmt::format("frame at {:.6f}: no point left after preprocessing (range window, decimation, line filter); skipped", ready->stamp));
    return;
  }
  Event event;
  event.stream = StreamId::LIDAR;
  event.stamp = ready->stamp;
  event.frame = std::move(ready);
  submit(std::move(event));
}

void Host::insert_image(Image::Ptr image) {
  if (!image) return;
  if (!image->valid()) {
    count_warning("bad_image", "camera",
                  fmt::format("image at {:.6f}: {}x{} {} with stride {} and {} pixels: inconsistent sizes; skipped", image->stamp, image->width,
                              image->height, to_string(image->encoding), image->stride, image->pixels ? "" : "no"));
    return;
  }
  const double stamp = image->stamp;
  image_jumps_.push(
      std::move(image), stamp, [this](Image::Ptr accepted) { accept_image(std::move(accepted)); },
      [this](const Image::Ptr&, double bad, double before, double after) {
        count_warning("time_outlier", "camera",
                      fmt::format("image stamped {:.6f} lies {:.3f} s after the one before ({:.6f}), and the next ({:.6f}) continues from before it: "
                                  "a single bad stamp; dropped",
                                  bad, bad - before, before, after));
      });
}

void Host::accept_image(Image::Ptr image) {
  handle_loop_back(image->stamp, StreamId::CAMERA);  // raw stamp, before any offset (R-ROS-2)
  image->stamp += params_.time_offset_camera_to_imu;
  Event event;
  event.stream = StreamId::CAMERA;
  event.stamp = image->stamp;
  event.image = std::move(image);
  submit(std::move(event));
}

void Host::handle_loop_back(double stamp, StreamId stream) {
  if (stream == StreamId::NONE) return;
  double& baseline = stream == StreamId::IMU ? last_stamp_imu_ : stream == StreamId::LIDAR ? last_stamp_lidar_ : last_stamp_camera_;
  if (stamp < baseline) {
    logger_->warn("{} loop back detected: {:.9f} -> {:.9f}", to_string(stream), baseline, stamp);
    std::lock_guard<std::mutex> lock(mutex_);
    ++(stream == StreamId::IMU ? stats_.imu_loop_backs : stream == StreamId::LIDAR ? stats_.lidar_loop_backs : stats_.image_loop_backs);
  }
  baseline = stamp;  // always, so one loop back warns once
}

void Host::submit(Event event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event.stream == StreamId::IMU) {
      ++stats_.imu_inserted;
    } else if (event.stream == StreamId::LIDAR) {
      ++stats_.frames_inserted;
    } else {
      ++stats_.images_inserted;
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

void Host::hand_over(const Event& event) {
  last_handed_stamp_ = event.stamp;
  if (params_.reorder_window > 0.0 && async_->queued_events() > back_pressure_high_) {
    // R-ROS-7: offline, wait for the worker instead of letting a ring buffer overflow.
    async_->wait_queued_at_most(back_pressure_low_, std::chrono::hours(1));
  }
  if (event.stream == StreamId::IMU) {
    time_offset_.add_imu(event.imu.stamp, event.imu.gyro);
    if (!time_offset_checked_.load() && event.imu.stamp > time_offset_window_end_.load() + time_offset_.params().max_offset + 0.1) check_time_offset();
    async_->insert_imu(event.imu);
  } else if (event.stream == StreamId::LIDAR) {
    async_->insert_frame(event.frame);
  } else {
    async_->insert_image(event.image);
  }
}

void Host::flush() {
  // Items held at a forward jump: nothing follows to tell, so they go on (time_outliers.hpp).
  imu_jumps_.flush([this](ImuData accepted) { accept_imu(std::move(accepted)); });
  frame_jumps_.flush([this](LidarFrame::Ptr accepted) { accept_frame(std::move(accepted)); });
  image_jumps_.flush([this](Image::Ptr accepted) { accept_image(std::move(accepted)); });
  decide_acc_scale();  // fewer than kAccScaleSamples in the whole input: decide with what there is
  checks_.finish(acc_scale_, params_.acc_scale <= 0.0);
  while (!reorder_.empty()) {
    hand_over(reorder_.top());
    reorder_.pop();
  }
}

void Host::wait(bool auto_quit) {
  flush();
  bool no_images = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    no_images = frontend_uses_images_ && !no_images_warned_ && stats_.images_inserted == 0 && (stats_.frames_inserted > 0 || stats_.imu_inserted > 0);
    no_images_warned_ = no_images_warned_ || no_images;
  }
  if (no_images) {
    count_warning("no_images", "camera",
                  fmt::format("the frontend '{}' uses camera images but none arrived (config_ros image_topic empty, absent or unreadable): it ran on "
                              "LiDAR and IMU alone",
                              params_.so_name));
  }
  if (!auto_quit) return;
  // R-ROS-6 / R-EXEC-7 without polling: the worker signals after every event. Once every queued
  // event is consumed, nothing but more input can lower the frontend's workload; a frontend that
  // still reports work then breaks its contract (OdometryEstimation::workload), and waiting for it
  // would hang the end of every run.
  const int left = async_->wait_consumed();
  if (left > 0) logger_->warn("the frontend still reports workload {} with no input left; not waiting for it", left);
  check_time_offset();
}

void Host::check_time_offset() {
  if (time_offset_checked_.exchange(true)) return;
  const TimeOffsetEstimate e = time_offset_.estimate();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    time_offset_estimate_ = e;
  }
  if (!e.valid) {
    logger_->info("lidar-IMU time offset not estimated from {} poses: {}", e.poses, e.reason);
    return;
  }
  if (std::fabs(e.offset) <= time_offset_.params().warn_above) {
    logger_->info("lidar-IMU time offset: {:+.4f} s from {} poses (correlation {:.3f}): the clocks agree", e.offset, e.poses, e.correlation);
    return;
  }
  const double suggested = params_.time_offset_lidar_to_imu + e.offset;
  count_warning("time_offset", params_.lidar_source + " and IMU",
                fmt::format("the rotation the LiDAR registers matches the gyroscope {:.3f} s {} (normalized correlation {:.3f}, {:.3f} at no offset, over "
                            "{} poses): the lidar and IMU stamps are offset by about {:.3f} s. Set config_ros.time_offset_lidar_to_imu to {:.3f} "
                            "(it is {:.3f}) and run again: an offset this large is estimated somewhat short, the next run measures what is left "
                            "(asuka_doctor on the recording estimates the whole offset from the LiDAR alone)",
                            std::fabs(e.offset), e.offset > 0.0 ? "later" : "earlier", e.correlation, e.at_zero, e.poses, std::fabs(e.offset), suggested,
                            params_.time_offset_lidar_to_imu));
}

std::optional<TimeOffsetEstimate> Host::time_offset_estimate() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return time_offset_estimate_;
}

bool Host::save(const std::string& path) {
  flush();
  async_->stop();  // R-ROS-5: joins the worker first, so nothing writes the map while it is saved
  check_time_offset();  // a live run ends here, without wait()
  if (path.empty()) return false;
  return odometry_->save_map(path);
}

HostStats Host::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::optional<Eigen::Isometry3d> Host::last_extrinsic() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_extrinsic_;
}

std::optional<ExtrinsicRotationCheck> Host::extrinsic_check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return extrinsic_check_;
}

bool Host::close_record(std::string* error) {
  std::lock_guard<std::mutex> lock(record_mutex_);
  return record_.close(error);
}

std::vector<ScanLocalizability> Host::scan_localizability() const {
  std::lock_guard<std::mutex> lock(record_mutex_);
  return record_.localizability();
}

std::vector<StampedPose> Host::trajectory() const {
  std::lock_guard<std::mutex> lock(record_mutex_);
  return record_.trajectory();
}

std::vector<StampedPose> Host::high_rate_trajectory() const {
  std::lock_guard<std::mutex> lock(record_mutex_);
  return record_.high_rate_trajectory();
}

}  // namespace asuka
