#include <asuka/host/run_record.hpp>

#include <filesystem>
#include <utility>

#include <fmt/format.h>

namespace asuka {

std::string localizability_csv_line(const ScanLocalizability& scan) {
  const auto& e = scan.shares;
  return fmt::format("{:.6f},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", scan.stamp, scan.degenerate, e[0], e[1], e[2], e[3], e[4], e[5]);
}

RunRecord::RunRecord(std::string directory) : mode_(Mode::STREAM), directory_(std::move(directory)) {}

RunRecord RunRecord::summary_only() {
  RunRecord r;
  r.mode_ = Mode::SUMMARY;
  return r;
}

std::string RunRecord::path(const char* name) const { return (std::filesystem::path(directory_) / name).string(); }

bool RunRecord::open_once(std::ofstream& file, const char* name, const char* header) {
  if (file.is_open()) return true;
  if (closed_ || !error_.empty()) return false;
  file.open(path(name), std::ios::out | std::ios::trunc);
  if (!file) {
    error_ = "cannot open " + path(name) + " for writing";
    return false;
  }
  file << header;
  return true;
}

void RunRecord::scan(const EstimationFrame& frame, std::size_t resident_bytes) {
  const StampedPose pose{frame.pose_stamp, frame.T_world_imu};
  const Localizability* loc = frame.localizability ? &*frame.localizability : nullptr;
  scan_seconds_.add(frame.processing_seconds);
  ++scans_;
  switch (mode_) {
    case Mode::SUMMARY:
      return;
    case Mode::MEMORY:
      trajectory_.push_back(pose);
      if (loc) localizability_.push_back(ScanLocalizability{pose.stamp, loc->degenerate, loc->eigenvalues});
      return;
    case Mode::STREAM:
      break;
  }
  if (closed_ || !error_.empty()) return;
  if (!trajectory_file_.is_open() && !trajectory_file_.open(path("trajectory.tum"), &error_)) return;
  trajectory_file_.write(pose);
  ++trajectory_written_;
  if (open_once(scans_file_, "scans.csv", kScansCsvHeader)) {
    scans_file_ << fmt::format("{:.6f},{:.4f},{:.1f},{},{:.4f}\n", pose.stamp, frame.processing_seconds * 1e3,
                               static_cast<double>(resident_bytes) / (1024.0 * 1024.0), frame.map_points, frame.processing_cpu_seconds * 1e3);
    ++scans_written_;
  }
  if (loc && open_once(localizability_file_, "localizability.csv", kLocalizabilityCsvHeader)) {
    localizability_file_ << localizability_csv_line(ScanLocalizability{pose.stamp, loc->degenerate, loc->eigenvalues});
    ++localizability_written_;
  }
  if (scans_ % kFlushEvery == 0) {
    trajectory_file_.flush();
    scans_file_.flush();
    if (localizability_file_.is_open()) localizability_file_.flush();
    if (high_rate_file_.is_open()) high_rate_file_.flush();
  }
}

void RunRecord::high_rate(const StampedPose& pose, double latency_seconds) {
  if (high_rate_count_ == 0) high_rate_first_ = pose.stamp;
  high_rate_last_ = pose.stamp;
  ++high_rate_count_;
  latency_.add(latency_seconds);
  if (mode_ == Mode::MEMORY) high_rate_.push_back(pose);
  if (mode_ != Mode::STREAM || closed_ || !error_.empty()) return;
  if (!high_rate_file_.is_open() && !high_rate_file_.open(path("trajectory_high_rate.tum"), &error_)) return;
  high_rate_file_.write(pose);
}

bool RunRecord::close(std::string* error) {
  if (mode_ != Mode::STREAM || closed_) {
    if (!error_.empty() && error) *error = error_;
    return error_.empty();
  }
  closed_ = true;
  std::string e;
  if (trajectory_file_.is_open() && !trajectory_file_.close(&e) && error_.empty()) error_ = e;
  if (high_rate_file_.is_open() && !high_rate_file_.close(&e) && error_.empty()) error_ = e;
  for (auto* file : {&scans_file_, &localizability_file_}) {
    if (!file->is_open()) continue;
    file->flush();
    if (!*file && error_.empty()) error_ = "error while writing into " + directory_ + " (a full disk?)";
    file->close();
  }
  if (!error_.empty() && error) *error = error_;
  return error_.empty();
}

std::string RunRecord::trajectory_path() const { return trajectory_written_ > 0 ? path("trajectory.tum") : ""; }
std::string RunRecord::high_rate_path() const { return high_rate_file_.written() > 0 ? path("trajectory_high_rate.tum") : ""; }
std::string RunRecord::scans_path() const { return scans_written_ > 0 ? path("scans.csv") : ""; }
std::string RunRecord::localizability_path() const { return localizability_written_ > 0 ? path("localizability.csv") : ""; }

}  // namespace asuka
