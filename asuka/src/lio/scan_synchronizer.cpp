#include <asuka/lio/scan_synchronizer.hpp>

#include <algorithm>

#include <asuka/util/logging.hpp>

namespace asuka::lio {

bool is_stale(const ScanPackage& package, double state_time, WarningCounter& counter, spdlog::logger& logger) {
  if (package.end > state_time) return false;
  if (counter.add()) {
    logger.warn("frame ending at {:.6f} is not after the state time {:.6f}; skipped ({} so far)", package.end, state_time, counter.count());
  }
  return true;
}

ScanSynchronizer::ScanSynchronizer(ScanEndRule end_rule, std::shared_ptr<spdlog::logger> logger)
: end_rule_(end_rule), logger_(logger ? std::move(logger) : module_logger("odom")) {}

void ScanSynchronizer::collect_imu_history(bool on) {
  collect_history_ = on;
  if (!on) {
    imu_history_.clear();
    imu_history_.shrink_to_fit();
  }
}

void check_imu_gap(double newest, double stamp, WarningCounter& counter, spdlog::logger& logger) {
  // A gap far beyond the sample period: the filter propagates across it on the last rates, which
  // is only as good as the motion is smooth. Say so, with where.
  if (newest > -1e299 && stamp - newest > kImuGapSeconds && counter.add()) {
    logger.warn("IMU gap: no sample for {:.3f} s before {:.6f} ({} gaps so far); propagating across it", stamp - newest, stamp, counter.count());
  }
}

void ScanSynchronizer::push_imu(const ImuData& imu) {
  if (imu.stamp < newest_imu_) {
    // Integration needs time order; an older sample cannot be placed without re-integrating.
    if (imu_out_of_order_.add()) {
      logger_->warn("IMU sample at {:.6f} is older than the newest ({:.6f}); dropped ({} so far)", imu.stamp, newest_imu_, imu_out_of_order_.count());
    }
    return;
  }
  check_imu_gap(newest_imu_, imu.stamp, imu_gaps_, *logger_);
  newest_imu_ = imu.stamp;
  imu_.push_back(imu);
}

void ScanSynchronizer::push_frame(const LidarFrame::ConstPtr& frame) {
  if (!frame) return;
  if (frame->stamp < newest_frame_) ++frames_out_of_order_;
  newest_frame_ = frame->stamp;
  frames_.push_back(Pending{frame, frame->max_offset_ms()});
}

namespace {

/// A sweep longer than 1 s, or a frame of many points that all share one time (Livox offset_time 0,
/// a time field in the wrong unit): per-point times that cannot be right.
bool suspicious_span(double scan_time, const LidarFrame& frame) {
  return scan_time > 1.0 || (scan_time < 1e-3 && frame.points.size() > 100 && frame.has_point_time);
}

}  // namespace

ScanSynchronizer::End ScanSynchronizer::end_of(const Pending& pending) const {
  const LidarFrame& frame = *pending.frame;
  End e;
  const double begin = frame.stamp;
  e.end = begin;
  switch (end_rule_) {
    case ScanEndRule::INSTANTANEOUS:  // R-SYNC-5
      return e;
    case ScanEndRule::MAX_OFFSET:  // R-PRE-2
      e.scan_time = static_cast<double>(pending.max_offset_ms) * 1e-3;
      e.suspicious = suspicious_span(e.scan_time, frame);  // warned for every rule that uses point times (#12)
      e.end = begin + e.scan_time;
      return e;
    case ScanEndRule::LAST_POINT:
      break;
  }
  // R-SYNC-4: the last point's offset, unless the frame has <= 1 point or that offset is below half
  // the running mean scan time; then begin + mean. We also check the order: when points are not in
  // time order the last point is not the latest, so the maximum offset is used (R-SYNC-8's lacking).
  if (frame.points.size() <= 1) {
    e.fallback = true;
    e.end = begin + mean_scan_time_;
    return e;
  }
  double last = static_cast<double>(frame.points.back().offset_ms);
  const double max = static_cast<double>(pending.max_offset_ms);
  if (max > last + 1e-3) {
    e.unordered = true;
    last = max;
  }
  e.scan_time = last * 1e-3;
  e.suspicious = suspicious_span(e.scan_time, frame);
  e.fallback = e.scan_time < 0.5 * mean_scan_time_;
  e.end = begin + (e.fallback ? mean_scan_time_ : e.scan_time);
  return e;
}

double ScanSynchronizer::lock_end(const Pending& pending) {
  const End e = end_of(pending);
  const double begin = pending.frame->stamp;
  if (e.unordered && unordered_frames_.add()) {
    logger_->warn("frame at {:.6f}: points are not in time order (last offset {:.3f} ms, maximum {:.3f} ms); using the maximum", begin,
                  static_cast<double>(pending.frame->points.back().offset_ms), static_cast<double>(pending.max_offset_ms));
  }
  if (e.suspicious && suspicious_offsets_.add()) {
    logger_->warn("frame at {:.6f}: its points span {:.6f} s; per-point times in the wrong unit? (asuka_doctor reports the unit; "
                  "config_ros point_time.unit forces it)",
                  begin, e.scan_time);
  }
  if (e.fallback) {
    ++mean_time_fallbacks_;
  } else if (end_rule_ == ScanEndRule::LAST_POINT) {
    ++scan_count_;
    mean_scan_time_ += (e.scan_time - mean_scan_time_) / static_cast<double>(scan_count_);
  }
  return e.end;
}

SyncDiagnostics ScanSynchronizer::diagnostics() const {
  SyncDiagnostics d;
  d.packages = packages_;
  d.mean_time_fallbacks = mean_time_fallbacks_;
  d.unordered_frames = unordered_frames_.count();
  d.suspicious_offsets = suspicious_offsets_.count();
  d.imu_out_of_order = imu_out_of_order_.count();
  d.frames_out_of_order = frames_out_of_order_;
  d.imu_gaps = imu_gaps_.count();
  return d;
}

bool ScanSynchronizer::pop(ScanPackage& out) {
  if (frames_.empty() || imu_.empty()) return false;  // R-SYNC-2
  if (!frame_locked_) {
    locked_end_ = lock_end(frames_.front());  // R-SYNC-3: once, while waiting for the IMU
    frame_locked_ = true;
  }
  if (newest_imu_ < locked_end_) return false;  // R-SYNC-6: wait for the IMU to reach the end

  out.frame = frames_.front().frame;
  out.begin = out.frame->stamp;
  out.end = locked_end_;
  out.imu.clear();
  while (!imu_.empty() && imu_.front().stamp <= locked_end_) {
    out.imu.push_back(imu_.front());
    if (collect_history_) imu_history_.push_back(imu_.front());
    imu_.pop_front();
  }
  frames_.pop_front();  // R-SYNC-7: the frame and its stamp leave together
  frame_locked_ = false;
  ++packages_;
  // R-SYNC-8: what one needs to see a unit mistake or a header-at-end stamp.
  logger_->debug("package: begin {:.6f} end {:.6f} ({:.4f} s), newest IMU {:.6f}, {} IMU samples, queues {} frames / {} IMU", out.begin, out.end,
                 out.end - out.begin, newest_imu_, out.imu.size(), frames_.size(), imu_.size());
  return true;
}

int ScanSynchronizer::ready() const {
  if (frames_.empty() || imu_.empty()) return 0;
  // The end rule of pop() (end_of()), or workload() could report a frame pop() refuses.
  int n = 0;
  bool first = true;
  for (const auto& f : frames_) {
    const double end = first && frame_locked_ ? locked_end_ : end_of(f).end;
    first = false;
    if (newest_imu_ >= end) ++n;
  }
  return n;
}

void ScanSynchronizer::clear() {
  frames_.clear();
  imu_.clear();
  frame_locked_ = false;
  newest_imu_ = newest_frame_ = -1e300;
  mean_scan_time_ = 0.0;
  scan_count_ = 0;
  imu_history_.clear();
  packages_ = mean_time_fallbacks_ = frames_out_of_order_ = 0;
  unordered_frames_.reset();
  suspicious_offsets_.reset();
  imu_out_of_order_.reset();
  imu_gaps_.reset();
}

}  // namespace asuka::lio
