#pragma once
// What a run produces per estimated scan and per high-rate pose: the trajectory, the frontend's time
// per scan, the process's memory, the localizability, the high-rate stream (#18).
//
// A run of hours must not keep these in memory (batchlio's high-rate stream alone is about 1000
// poses per second of data), so with an output directory they go to files as they come:
//   trajectory.tum             one pose per estimated scan
//   trajectory_high_rate.tum   the high-rate stream (frontends that emit one), opened at its first pose
//   scans.csv                  per scan: pose stamp, the frontend's time, resident memory, map points,
//                              the frontend's CPU time
//   localizability.csv         per registered scan: the localizability figure (#21), opened at its first
// flushed every kFlushEvery scans, so a run that ends badly still leaves what came before. Without a
// directory they are kept in memory (tests and other in-process users) or, in summary mode, only
// counted. The summaries (count, mean, percentiles, maximum) are kept in bounded memory either way.

#include <cstddef>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <asuka/core/types.hpp>
#include <asuka/host/degeneracy_report.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/util/running_stats.hpp>

namespace asuka {

/// scans.csv (#18): the map's size and the CPU time were added after the first three columns.
constexpr const char* kScansCsvHeader = "# stamp_s,estimate_ms,resident_mb,map_points,estimate_cpu_ms\n";
/// localizability.csv, one format whether streamed or written from memory at the end.
constexpr const char* kLocalizabilityCsvHeader = "# stamp_s,degenerate,share0,share1,share2,share3,share4,share5\n";
std::string localizability_csv_line(const ScanLocalizability& scan);

class RunRecord {
public:
  enum class Mode {
    MEMORY,   ///< keep the per-scan and high-rate series in memory (default)
    STREAM,   ///< write them to files in a directory as they come, keep only summaries
    SUMMARY,  ///< keep only summaries (a live run without an output directory)
  };
  static constexpr std::size_t kFlushEvery = 100;

  RunRecord() = default;
  /// STREAM into `directory` (which must exist); the files open when their first line comes.
  explicit RunRecord(std::string directory);
  static RunRecord summary_only();

  Mode mode() const { return mode_; }

  /// One estimated scan: its pose, the frontend's wall and CPU time, the map's size and the
  /// localizability; `resident_bytes` (the process's memory now) goes into scans.csv (STREAM).
  void scan(const EstimationFrame& frame, std::size_t resident_bytes);
  void high_rate(const StampedPose& pose, double latency_seconds);
  /// Flushes and closes the files (STREAM); false and `error` when anything could not be written.
  /// Later calls of scan() and high_rate() reopen nothing and are counted only.
  bool close(std::string* error);

  // Summaries, in every mode.
  std::size_t scans() const { return scans_; }
  /// The first file that could not be opened or written ("" while all is well).
  const std::string& error() const { return error_; }
  const RunningStats& scan_seconds() const { return scan_seconds_; }
  std::size_t high_rate_poses() const { return high_rate_count_; }
  /// [s] first and last stamp of the high-rate stream (0 without one).
  double high_rate_first() const { return high_rate_first_; }
  double high_rate_last() const { return high_rate_last_; }
  const RunningStats& high_rate_latency() const { return latency_; }

  // The series, MEMORY only (empty otherwise).
  const std::vector<StampedPose>& trajectory() const { return trajectory_; }
  const std::vector<ScanLocalizability>& localizability() const { return localizability_; }
  const std::vector<StampedPose>& high_rate_trajectory() const { return high_rate_; }

  /// The files written (STREAM; "" for a file that was never opened, and in the other modes).
  std::string trajectory_path() const;
  std::string high_rate_path() const;
  std::string scans_path() const;
  std::string localizability_path() const;

private:
  std::string path(const char* name) const;
  bool open_once(std::ofstream& file, const char* name, const char* header);

  Mode mode_ = Mode::MEMORY;
  std::string directory_;
  bool closed_ = false;
  std::string error_;  ///< the first file that could not be opened or written

  RunningStats scan_seconds_, latency_;
  std::size_t scans_ = 0;  ///< every scan (a frontend's NaN time is not counted in scan_seconds_)
  std::size_t high_rate_count_ = 0;
  double high_rate_first_ = 0.0, high_rate_last_ = 0.0;

  std::vector<StampedPose> trajectory_, high_rate_;
  std::vector<ScanLocalizability> localizability_;

  TumWriter trajectory_file_, high_rate_file_;
  std::ofstream scans_file_, localizability_file_;
  std::size_t trajectory_written_ = 0, scans_written_ = 0, localizability_written_ = 0;
};

}  // namespace asuka
