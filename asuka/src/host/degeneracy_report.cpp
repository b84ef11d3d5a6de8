#include <asuka/host/degeneracy_report.hpp>

#include <algorithm>

#include <spdlog/spdlog.h>

#include <cmath>

namespace asuka {

std::string describe_direction(const Localizability& loc, int index) {
  const Eigen::Matrix<double, 6, 1> c = loc.directions.col(index);
  const bool translation = c.tail<3>().norm() >= c.head<3>().norm();
  Eigen::Vector3d axis = translation ? c.tail<3>() : c.head<3>();
  axis.normalize();
  // The sign of an eigenvector is arbitrary: show its largest component positive.
  Eigen::Index largest = 0;
  axis.cwiseAbs().maxCoeff(&largest);
  if (axis[largest] < 0.0) axis = -axis;
  // -0.00 reads oddly in a warning.
  for (int k = 0; k < 3; ++k) {
    if (std::fabs(axis[k]) < 0.005) axis[k] = 0.0;
  }
  if (translation) return fmt::format("translation along world ({:.2f}, {:.2f}, {:.2f})", axis.x(), axis.y(), axis.z());
  const char* name = std::fabs(axis.z()) > 0.9 ? " (yaw)" : std::fabs(axis.z()) < 0.3 ? " (roll/pitch)" : "";
  return fmt::format("rotation about world ({:.2f}, {:.2f}, {:.2f}){}", axis.x(), axis.y(), axis.z(), name);
}

DegeneracyReport::DegeneracyReport(std::shared_ptr<spdlog::logger> logger) : logger_(std::move(logger)) {}

void DegeneracyReport::add(double stamp, const Localizability* loc) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!origin_) origin_ = stamp;
  // An open interval ends once kMergeGap has passed without a degenerate scan.
  if (open_ && stamp - summary_.intervals.back().end > kMergeGap) {
    open_ = false;
    const auto& last = summary_.intervals.back();
    if (last_warned_) {
      logger_->info("the LiDAR constrains every direction again after t = {:.1f} s ({} degenerate scans over {:.1f} s)", last.end - *origin_, last.scans,
                    last.end - last.begin);
    }
  }
  if (loc == nullptr) return;
  ++summary_.scans;
  summary_.threshold = loc->threshold;
  summary_.projected = summary_.projected || loc->projected;
  if (loc->degenerate == 0) return;
  ++summary_.degenerate_scans;
  if (open_) {
    auto& current = summary_.intervals.back();
    current.end = stamp;
    ++current.scans;
    current.min_eigenvalue = std::min(current.min_eigenvalue, loc->eigenvalues[0]);
  } else {
    DegenerateInterval interval;
    interval.begin = interval.end = stamp;
    interval.scans = 1;
    interval.least_constrained = loc->directions.col(0);
    interval.min_eigenvalue = loc->eigenvalues[0];
    for (int k = 0; k < loc->degenerate; ++k) interval.directions.push_back(describe_direction(*loc, k));
    summary_.intervals.push_back(interval);
    open_ = true;
    last_warned_ = false;
    last_judged_ = false;
  }
  const DegenerateInterval& current = summary_.intervals.back();
  if (last_judged_ || current.scans < kWarnScans) return;
  last_judged_ = true;
  last_warned_ = intervals_warned_.add();
  if (last_warned_) warn(current, *loc, current.begin - *origin_);
}

void DegeneracyReport::warn(const DegenerateInterval& interval, const Localizability& loc, double t_begin) {
  std::string what;
  for (std::size_t k = 0; k < interval.directions.size(); ++k) what += (k == 0 ? "" : k + 1 == interval.directions.size() ? " and " : ", ") + interval.directions[k];
  logger_->warn("{} {} not constrained by the LiDAR since t = {:.1f} s (stamp {:.3f}, {} scans so far; {:.2f} % of the last scan's {} matched points "
                "constrain it, below mapping.degeneracy_threshold {:.2f} %): {}. Structure along it, or a camera (fastlivo, srlivo), would constrain it{}",
                what, interval.directions.size() > 1 ? "are" : "is", t_begin, interval.begin, interval.scans, 100.0 * std::max(0.0, loc.eigenvalues[0]),
                loc.points, 100.0 * loc.threshold,
                loc.projected  ? "the IMU alone carries the state along it, and the error along it grows as dead reckoning's does"
                : loc.settling ? "a start in motion is still settling, so the LiDAR update still moves the state along it (the LiDAR is still "
                                 "measuring the velocity the IMU would carry); once the start has settled the IMU alone carries it"
                               : "the LiDAR update still moves the state along it on noise (mapping.degeneracy_projection is off), and the "
                                 "position along it can drift by metres (docs/degeneracy.md); set it to true (the default) to leave such directions "
                                 "to the IMU",
                intervals_warned_.count() > 3 ? fmt::format(" ({} degenerate intervals so far)", intervals_warned_.count()) : std::string());
}

DegeneracySummary DegeneracyReport::summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return summary_;
}

}  // namespace asuka
