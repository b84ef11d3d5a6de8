#include <asuka/lio/measure_sync.hpp>

#include <algorithm>

#include <asuka/util/logging.hpp>

namespace asuka::lio {

bool is_stale(const MeasureGroup& group, double state_time, std::uint64_t& count, spdlog::logger& logger) {
  if (group.end > state_time) return false;
  if (++count <= 3 || count % 100 == 0) {
    logger.warn("frame ending at {:.6f} is not after the state time {:.6f}; skipped ({} so far)", group.end, state_time, count);
  }
  return true;
}

MeasureSync::MeasureSync(bool instantaneous, std::shared_ptr<spdlog::logger> logger, FrameEndRule end_rule)
: instantaneous_(instantaneous), logger_(logger ? std::move(logger) : module_logger("odom")), end_rule_(end_rule) {}

void MeasureSync::collect_imu_history(bool on) {
  collect_history_ = on;
  if (!on) {
    imu_history_.clear();
    imu_history_.shrink_to_fit();
  }
}

void MeasureSync::push_imu(const ImuData& imu) {
  if (imu.stamp < newest_imu_) {
    // Integration needs time order; an older sample cannot be placed without re-integrating.
    ++diagnostics_.imu_out_of_order;
    if (diagnostics_.imu_out_of_order <= 3 || diagnostics_.imu_out_of_order % 100 == 0) {
      logger_->warn("IMU sample at {:.6f} is older than the newest ({:.6f}); dropped ({} so far)", imu.stamp, newest_imu_, diagnostics_.imu_out_of_order);
    }
    return;
  }
  // A gap far beyond the sample period: the filter propagates across it on the last rates, which
  // is only as good as the motion is smooth. Say so, with where.
  if (newest_imu_ > -1e299 && imu.stamp - newest_imu_ > kImuGapSeconds) {
    ++diagnostics_.imu_gaps;
    if (diagnostics_.imu_gaps <= 3 || diagnostics_.imu_gaps % 100 == 0) {
      logger_->warn("IMU gap: no sample for {:.3f} s before {:.6f} ({} gaps so far); propagating across it", imu.stamp - newest_imu_, imu.stamp,
                    diagnostics_.imu_gaps);
    }
  }
  newest_imu_ = imu.stamp;
  imu_.push_back(imu);
}

void MeasureSync::push_frame(const Frame::ConstPtr& frame) {
  if (!frame) return;
  if (frame->stamp < newest_frame_) ++diagnostics_.frames_out_of_order;
  newest_frame_ = frame->stamp;
  frames_.push_back(Pending{frame, frame->max_offset_ms()});
}

double MeasureSync::frame_end(const Pending& pending) {
  const Frame& frame = *pending.frame;
  const double begin = frame.stamp;
  if (instantaneous_) return begin;  // R-SYNC-5
  if (end_rule_ == FrameEndRule::MAX_OFFSET) return begin + static_cast<double>(pending.max_offset_ms) * 1e-3;  // R-PRE-2
  // R-SYNC-4: the last point's offset, unless the frame has <= 1 point or that offset is below half
  // the running mean scan time; then begin + mean. We also check the order: when points are not in
  // time order the last point is not the latest, so the maximum offset is used (R-SYNC-8's lacking).
  if (frame.points.size() <= 1) {
    ++diagnostics_.mean_time_fallbacks;
    return begin + mean_scan_time_;
  }
  double last = static_cast<double>(frame.points.back().offset_ms);
  const double max = static_cast<double>(pending.max_offset_ms);
  if (max > last + 1e-3) {
    ++diagnostics_.unordered_frames;
    if (diagnostics_.unordered_frames <= 3) {
      logger_->warn("frame at {:.6f}: points are not in time order (last offset {:.3f} ms, maximum {:.3f} ms); using the maximum", begin, last, max);
    }
    last = max;
  }
  const double scan_time = last * 1e-3;
  if (scan_time > 1.0 || (scan_time < 1e-3 && frame.points.size() > 100 && frame.has_point_time)) {
    ++diagnostics_.suspicious_offsets;
    if (diagnostics_.suspicious_offsets <= 3) {
      logger_->warn("frame at {:.6f}: its points span {:.6f} s; per-point times in the wrong unit? (asuka_doctor reports the unit; "
                    "config_ros point_time.unit forces it)",
                    begin, scan_time);
    }
  }
  if (scan_time < 0.5 * mean_scan_time_) {
    ++diagnostics_.mean_time_fallbacks;
    return begin + mean_scan_time_;
  }
  ++scan_count_;
  mean_scan_time_ += (scan_time - mean_scan_time_) / static_cast<double>(scan_count_);
  return begin + scan_time;
}

bool MeasureSync::pop(MeasureGroup& out) {
  if (frames_.empty() || imu_.empty()) return false;  // R-SYNC-2
  if (!frame_locked_) {
    locked_end_ = frame_end(frames_.front());  // R-SYNC-3: once, while waiting for the IMU
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
  ++diagnostics_.packages;
  // R-SYNC-8: what one needs to see a unit mistake or a header-at-end stamp.
  logger_->debug("package: begin {:.6f} end {:.6f} ({:.4f} s), newest IMU {:.6f}, {} IMU samples, queues {} frames / {} IMU", out.begin, out.end,
                 out.end - out.begin, newest_imu_, out.imu.size(), frames_.size(), imu_.size());
  return true;
}

int MeasureSync::ready() const {
  if (frames_.empty() || imu_.empty()) return 0;
  int n = 0;
  // The same end rule as pop() (R-SYNC-4), or workload() could report a frame pop() refuses.
  bool first = true;
  for (const auto& f : frames_) {
    double end = f.frame->stamp;
    if (first && frame_locked_) {
      end = locked_end_;
    } else if (!instantaneous_ && end_rule_ == FrameEndRule::MAX_OFFSET) {
      end = f.frame->stamp + static_cast<double>(f.max_offset_ms) * 1e-3;
    } else if (!instantaneous_) {
      const double scan_time = static_cast<double>(f.max_offset_ms) * 1e-3;
      const bool fallback = f.frame->points.size() <= 1 || scan_time < 0.5 * mean_scan_time_;
      end = f.frame->stamp + (fallback ? mean_scan_time_ : scan_time);
    }
    first = false;
    if (newest_imu_ >= end) ++n;
  }
  return n;
}

void MeasureSync::clear() {
  frames_.clear();
  imu_.clear();
  frame_locked_ = false;
  newest_imu_ = newest_frame_ = -1e300;
  mean_scan_time_ = 0.0;
  scan_count_ = 0;
  imu_history_.clear();
  diagnostics_ = SyncDiagnostics();
}

}  // namespace asuka::lio
