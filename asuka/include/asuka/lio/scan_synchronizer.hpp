#pragma once
// Synchronization of LiDAR frames with the IMU (R-SYNC-1..8): a package is one frame, its begin and
// end times, and every IMU sample up to its end. Shared by the filter-based frontends; lives behind
// the executor (worker thread), so it needs no locks.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <asuka/core/types.hpp>
#include <asuka/util/warning_counter.hpp>

namespace spdlog {
class logger;
}

namespace asuka::lio {

/// One synchronized package (R-SYNC-1): a LiDAR frame and the IMU samples up to its end.
struct ScanPackage {
  LidarFrame::ConstPtr frame;
  double begin = 0.0;  ///< [s] frame stamp (start)
  double end = 0.0;    ///< [s] the time the frame's last point holds
  std::vector<ImuData> imu;  ///< every sample not later than `end` that was not in an earlier package
};

/// Consecutive IMU samples farther apart than this are reported as a gap [s] (20 periods at 200 Hz;
/// no IMU driver is that slow).
constexpr double kImuGapSeconds = 0.1;

/// The IMU-gap check both synchronizers make as a sample arrives: a sample more than kImuGapSeconds
/// after the newest one (`newest`, -1e300 before the first) is counted in `counter` and warned about.
void check_imu_gap(double newest, double stamp, WarningCounter& counter, spdlog::logger& logger);

/// Counters of R-SYNC-8; the original only logs, we also count.
struct SyncDiagnostics {
  std::uint64_t packages = 0;
  std::uint64_t mean_time_fallbacks = 0;   ///< end from the running mean scan time (R-SYNC-4)
  std::uint64_t unordered_frames = 0;      ///< points not in time order: the maximum offset was used
  std::uint64_t suspicious_offsets = 0;    ///< sweep longer than 1 s or shorter than 1 ms: wrong unit?
  std::uint64_t imu_out_of_order = 0;      ///< IMU samples older than the newest one, dropped
  std::uint64_t frames_out_of_order = 0;   ///< frames older than the previous one (kept)
  std::uint64_t imu_gaps = 0;              ///< consecutive IMU samples more than kImuGapSeconds apart
};

/// How a package's end time is found. One rule per synchronizer, written once (end_of()).
enum class ScanEndRule {
  LAST_POINT,     ///< R-SYNC-4: the last point's offset, with the mean-scan-time fallbacks (fastlio)
  MAX_OFFSET,     ///< R-PRE-2: begin + maximum offset x 1e-3, no fallback (batchlio)
  INSTANTANEOUS,  ///< R-SYNC-5: every point at the frame stamp, end = begin (preprocess.instantaneous)
};

/// A package that ends no later than the filter's state time (frames out of order, or a bag that
/// loops back) cannot be registered at the current pose without corrupting the map: returns true
/// when `package` is such a package, counting it in `counter` and warning through `logger`.
bool is_stale(const ScanPackage& package, double state_time, WarningCounter& counter, spdlog::logger& logger);

class ScanSynchronizer {
public:
  using Package = ScanPackage;
  static constexpr bool kUsesImages = false;

  explicit ScanSynchronizer(ScanEndRule end_rule = ScanEndRule::LAST_POINT, std::shared_ptr<spdlog::logger> logger = nullptr);

  /// R-IMU-2: while on, every IMU sample handed out in a package is also appended to imu_history(),
  /// the full history since the start that the static initialization prefers. Turning it off clears
  /// the history.
  void collect_imu_history(bool on);
  const std::vector<ImuData>& imu_history() const { return imu_history_; }

  void push_imu(const ImuData& imu);
  void push_frame(const LidarFrame::ConstPtr& frame);

  /// R-SYNC-2..7: false while either buffer is empty or the IMU has not reached the locked frame's
  /// end; otherwise fills `out` and pops the frame.
  bool pop(ScanPackage& out);

  /// Frames whose IMU has arrived (a pop would succeed now) - the frontend's workload.
  int ready() const;
  ScanEndRule end_rule() const { return end_rule_; }
  std::size_t frames_buffered() const { return frames_.size(); }
  std::size_t imu_buffered() const { return imu_.size(); }
  double mean_scan_time() const { return mean_scan_time_; }
  SyncDiagnostics diagnostics() const;
  void clear();

private:
  struct Pending {
    LidarFrame::ConstPtr frame;
    float max_offset_ms = 0.0f;  ///< the frame's maximum point offset, computed once at push
  };
  /// What the end rule says of a frame, without changing anything: pop() and ready() both ask here.
  struct End {
    double end = 0.0;            ///< [s]
    double scan_time = 0.0;      ///< [s] the sweep the points span (LAST_POINT)
    bool fallback = false;       ///< end from the running mean scan time (R-SYNC-4)
    bool unordered = false;      ///< the last point is not the latest: the maximum offset was used
    bool suspicious = false;     ///< sweep longer than 1 s or shorter than 1 ms with many points
  };
  End end_of(const Pending& pending) const;
  /// end_of() for the head frame, counted, warned and folded into the running mean (once per frame).
  double lock_end(const Pending& pending);

  ScanEndRule end_rule_;
  std::shared_ptr<spdlog::logger> logger_;
  bool collect_history_ = false;
  std::vector<ImuData> imu_history_;
  std::deque<Pending> frames_;  ///< a frame, its stamp and its end travel together (R-SYNC-7)
  std::deque<ImuData> imu_;
  bool frame_locked_ = false;  ///< R-SYNC-3: the head frame's end is computed once
  double locked_end_ = 0.0;
  double mean_scan_time_ = 0.0;
  std::uint64_t scan_count_ = 0;
  double newest_imu_ = -1e300;
  double newest_frame_ = -1e300;
  std::uint64_t packages_ = 0;
  std::uint64_t mean_time_fallbacks_ = 0;
  std::uint64_t frames_out_of_order_ = 0;
  WarningCounter unordered_frames_{3, 0};
  WarningCounter suspicious_offsets_{3, 0};
  WarningCounter imu_out_of_order_;
  WarningCounter imu_gaps_;
};

}  // namespace asuka::lio
