#include <asuka/lio/visual_synchronizer.hpp>

#include <algorithm>
#include <limits>

#include <spdlog/spdlog.h>

#include <asuka/util/logging.hpp>

namespace asuka::lio {

VisualSynchronizer::VisualSynchronizer(const VisualSyncParams& params, std::shared_ptr<spdlog::logger> logger)
    : params_(params), logger_(logger ? std::move(logger) : module_logger("odom")) {}

void VisualSynchronizer::collect_imu_history(bool on) {
  collect_history_ = on;
  if (!on) {
    imu_history_.clear();
    imu_history_.shrink_to_fit();
  }
}

void VisualSynchronizer::push_imu(const ImuData& imu) {
  if (imu.stamp < newest_imu_) {
    ++diag_.imu_out_of_order;
    if (imu_out_of_order_.add()) logger_->warn("visual sync: IMU sample at {:.6f} is older than the newest ({:.6f}); dropped", imu.stamp, newest_imu_);
    return;
  }
  check_imu_gap(newest_imu_, imu.stamp, imu_gaps_, *logger_);
  newest_imu_ = imu.stamp;
  imu_.push_back(imu);
}

void VisualSynchronizer::push_frame(const LidarFrame::ConstPtr& frame) {
  if (!frame) return;
  lidar_type_ = frame->lidar_type;
  std::vector<TimedPoint> incoming;
  incoming.reserve(frame->points.size());
  std::size_t too_old = 0;
  for (const auto& p : frame->points) {
    const double t = frame->stamp + static_cast<double>(p.offset_ms) * 1e-3;
    if (t <= last_cut_) {
      ++too_old;  // the state is already past it
      continue;
    }
    incoming.push_back(TimedPoint{t, p});
  }
  if (too_old > 0) {
    ++diag_.frames_out_of_order;
    if (frames_out_of_order_.add()) {
      logger_->warn("visual sync: {} of {} points of the frame at {:.6f} are not later than the last cut ({:.6f}); dropped", too_old,
                    frame->points.size(), frame->stamp, last_cut_);
    }
  }
  std::stable_sort(incoming.begin(), incoming.end(), [](const TimedPoint& a, const TimedPoint& b) { return a.time < b.time; });
  if (points_.empty() || incoming.empty() || incoming.front().time >= points_.back().time) {
    points_.insert(points_.end(), incoming.begin(), incoming.end());  // the usual case: frames in order
  } else {
    std::vector<TimedPoint> merged;
    merged.reserve(points_.size() + incoming.size());
    std::merge(points_.begin(), points_.end(), incoming.begin(), incoming.end(), std::back_inserter(merged),
               [](const TimedPoint& a, const TimedPoint& b) { return a.time < b.time; });
    points_.assign(merged.begin(), merged.end());
  }
  const double end = frame->end_stamp();
  lidar_covered_ = std::max(lidar_covered_, end);
  if (end > last_cut_) {
    const std::pair<double, double> entry{end, frame->stamp};
    scan_ends_.insert(std::upper_bound(scan_ends_.begin(), scan_ends_.end(), entry), entry);
  }
}

void VisualSynchronizer::push_image(const Image::ConstPtr& image) {
  if (!image || !params_.expect_images) return;  // no camera configured: images are not this frontend's input
  if (image->stamp <= last_cut_) {
    ++diag_.stale_images;
    if (stale_images_.add()) {
      logger_->warn("visual sync: image at {:.6f} is not later than the state ({:.6f}): too late or out of order; dropped", image->stamp, last_cut_);
    }
    return;
  }
  const auto at = std::upper_bound(images_.begin(), images_.end(), image->stamp, [](double t, const Image::ConstPtr& i) { return t < i->stamp; });
  images_.insert(at, image);
}

bool VisualSynchronizer::next_cut(Cut& cut) const {
  const double inf = std::numeric_limits<double>::infinity();
  const double image_time = images_.empty() ? inf : images_.front()->stamp;
  // No camera: every scan end, once the IMU has reached it.
  if (!params_.expect_images) {
    if (scan_ends_.empty() || newest_imu_ < scan_ends_.front().first) return false;
    cut = Cut{scan_ends_.front().first, false, false};
    return true;
  }
  // A scan end with no image before it, nor within image_timeout after it (in LiDAR time): cut there.
  if (params_.image_timeout > 0.0 && !scan_ends_.empty()) {
    const double end = scan_ends_.front().first;
    if (end + params_.image_timeout < image_time && newest_imu_ >= end && lidar_covered_ >= end + params_.image_timeout) {
      cut = Cut{end, false, false};
      return true;
    }
  }
  if (images_.empty() || newest_imu_ < image_time) return false;
  if (lidar_covered_ >= image_time) {
    cut = Cut{image_time, true, false};
    return true;
  }
  if (newest_imu_ >= image_time + params_.max_lidar_wait) {
    cut = Cut{image_time, true, true};  // the LiDAR is silent: the camera goes on without it
    return true;
  }
  return false;
}

bool VisualSynchronizer::pop(VisualPackage& out) {
  Cut cut;
  if (!next_cut(cut)) return false;
  out = VisualPackage{};
  out.end = cut.end;
  if (cut.image) {
    out.image = images_.front();
    images_.pop_front();
  }
  if (started_) {
    out.begin = last_cut_;
    // A LiDAR-only cut at a scan end whose frame started after the previous cut: the package is that
    // frame, stamped at its start like a ScanPackage (R-OUT-1 for a visual frontend without images).
    if (!cut.image && !scan_ends_.empty() && scan_ends_.front().first == cut.end && scan_ends_.front().second > last_cut_ &&
        (points_.empty() || points_.front().time >= scan_ends_.front().second)) {
      out.begin = scan_ends_.front().second;
    }
  } else {
    out.begin = !points_.empty() ? std::min(points_.front().time, cut.end) : !imu_.empty() ? std::min(imu_.front().stamp, cut.end) : cut.end;
  }

  auto frame = std::make_shared<LidarFrame>();
  frame->stamp = out.begin;
  frame->lidar_type = lidar_type_;
  frame->has_point_time = true;
  while (!points_.empty() && points_.front().time <= cut.end) {
    Point p = points_.front().point;
    p.offset_ms = static_cast<float>((points_.front().time - out.begin) * 1e3);
    frame->points.push_back(p);
    points_.pop_front();
  }
  out.frame = std::move(frame);
  while (!imu_.empty() && imu_.front().stamp <= cut.end) {
    out.imu.push_back(imu_.front());
    if (collect_history_) imu_history_.push_back(imu_.front());
    imu_.pop_front();
  }

  last_cut_ = cut.end;
  started_ = true;
  while (!scan_ends_.empty() && scan_ends_.front().first <= cut.end) scan_ends_.pop_front();
  while (!images_.empty() && images_.front()->stamp <= cut.end) {  // equal stamps: one image per time
    ++diag_.stale_images;
    if (stale_images_.add()) logger_->warn("visual sync: a second image at {:.6f}; dropped", images_.front()->stamp);
    images_.pop_front();
  }

  ++diag_.packages;
  if (cut.image) {
    ++diag_.image_packages;
  } else {
    ++diag_.lidar_only_packages;
  }
  if (cut.lidar_gap && lidar_covered_ > -1e299) {  // before the first scan it is the start, not a gap
    ++diag_.lidar_gaps;
    if (lidar_gaps_.add()) {
      logger_->warn("visual sync: the image at {:.6f} was cut before the LiDAR covered it (LiDAR data up to {:.6f}): a LiDAR gap", cut.end,
                    lidar_covered_);
    }
  }
  return true;
}

int VisualSynchronizer::ready() const {
  Cut cut;
  return next_cut(cut) ? 1 : 0;
}

VisualSyncDiagnostics VisualSynchronizer::diagnostics() const {
  VisualSyncDiagnostics d = diag_;
  d.imu_gaps = imu_gaps_.count();
  return d;
}

void VisualSynchronizer::clear() {
  imu_.clear();
  points_.clear();
  scan_ends_.clear();
  images_.clear();
  last_cut_ = newest_imu_ = lidar_covered_ = -1e300;
  started_ = false;
  diag_ = {};
  imu_history_.clear();
  stale_images_.reset();
  lidar_gaps_.reset();
  imu_out_of_order_.reset();
  frames_out_of_order_.reset();
  imu_gaps_.reset();
}

}  // namespace asuka::lio
