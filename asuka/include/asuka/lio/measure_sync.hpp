#pragma once
// Synchronization of LiDAR frames with the IMU (R-SYNC-1..8): a package is one frame, its begin and
// end times, and every IMU sample up to its end. Shared by the filter-based frontends; lives behind
// the executor (worker thread), so it needs no locks.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <asuka/core/types.hpp>

namespace spdlog {
class logger;
}

namespace asuka::lio {

struct MeasureGroup {
  Frame::ConstPtr frame;
  double begin = 0.0;  ///< [s] frame stamp (start)
  double end = 0.0;    ///< [s] the time the frame's last point holds
  std::vector<ImuData> imu;  ///< every sample not later than `end` that was not in an earlier package
};

/// Consecutive IMU samples farther apart than this are reported as a gap [s] (20 periods at 200 Hz;
/// no IMU driver is that slow).
constexpr double kImuGapSeconds = 0.1;

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

/// How a package's end time is found.
enum class FrameEndRule {
  LAST_POINT,  ///< fastlio (R-SYNC-4): the last point's offset, with the mean-scan-time fallbacks
  MAX_OFFSET,  ///< batchlio (R-PRE-2): begin + maximum offset x 1e-3, no fallback
};

/// A package that ends no later than the filter's state time (frames out of order, or a bag that
/// loops back) cannot be registered at the current pose without corrupting the map: returns true
/// when `group` is such a package, counting it in `count` and warning (the first three, then every
/// 100th) through `logger`.
bool is_stale(const MeasureGroup& group, double state_time, std::uint64_t& count, spdlog::logger& logger);

class MeasureSync {
public:
  /// `instantaneous`: frames are instantaneous, end = begin (R-SYNC-5).
  explicit MeasureSync(bool instantaneous = false, std::shared_ptr<spdlog::logger> logger = nullptr,
                       FrameEndRule end_rule = FrameEndRule::LAST_POINT);

  /// R-IMU-2: while on, every IMU sample handed out in a package is also appended to imu_history(),
  /// the full history since the start that the static initialization prefers. Turning it off clears
  /// the history.
  void collect_imu_history(bool on);
  const std::vector<ImuData>& imu_history() const { return imu_history_; }

  void push_imu(const ImuData& imu);
  void push_frame(const Frame::ConstPtr& frame);

  /// R-SYNC-2..7: false while either buffer is empty or the IMU has not reached the locked frame's
  /// end; otherwise fills `out` and pops the frame.
  bool pop(MeasureGroup& out);

  /// Frames whose IMU has arrived (a pop would succeed now) - the frontend's workload.
  int ready() const;
  std::size_t frames_buffered() const { return frames_.size(); }
  std::size_t imu_buffered() const { return imu_.size(); }
  double mean_scan_time() const { return mean_scan_time_; }
  const SyncDiagnostics& diagnostics() const { return diagnostics_; }
  void clear();

private:
  struct Pending {
    Frame::ConstPtr frame;
    float max_offset_ms = 0.0f;  ///< the frame's maximum point offset, computed once at push
  };
  double frame_end(const Pending& pending);

  bool instantaneous_;
  std::shared_ptr<spdlog::logger> logger_;
  FrameEndRule end_rule_;
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
  SyncDiagnostics diagnostics_;
};

}  // namespace asuka::lio
