#pragma once
// #21: what the user learns about degenerate scans. The host feeds it every EstimationFrame; it
// merges consecutive degenerate scans into intervals (a gap of up to kMergeGap seconds of
// well-conditioned scans does not split one), names the unconstrained directions in words once an
// interval holds kWarnScans degenerate scans (a warning: the first three such intervals, then every
// tenth; shorter ones are counted, not warned about: a scan or two with a sparse map at the start of
// nearly every run), and summarizes the run for report.json (docs/degeneracy.md).
// Threads: add() from the executor's worker (on_new_frame), summary() from any thread.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/util/warning_counter.hpp>

namespace spdlog {
class logger;
}

namespace asuka {

/// Describes one of loc's degenerate directions (index < loc.degenerate) in words for a warning:
/// "translation along world (0.99, 0.05, 0.00)" or "rotation about world (0.00, 0.00, 1.00) (yaw)".
std::string describe_direction(const Localizability& loc, int index);

struct DegenerateInterval {
  double begin = 0.0;  ///< [s] pose stamp of its first degenerate scan
  double end = 0.0;    ///< [s] pose stamp of its last
  std::uint64_t scans = 0;  ///< degenerate scans in it
  std::vector<std::string> directions;  ///< the first scan's unconstrained directions, in words
  Eigen::Matrix<double, 6, 1> least_constrained = Eigen::Matrix<double, 6, 1>::Zero();  ///< that scan's weakest direction [rot; trans], world
  double min_eigenvalue = 0.0;  ///< smallest normalized information over the interval
};

struct DegeneracySummary {
  std::uint64_t scans = 0;             ///< scans with a localizability (registered)
  std::uint64_t degenerate_scans = 0;  ///< of those, with at least one unconstrained direction
  double threshold = 0.0;              ///< the frontend's mapping.degeneracy_threshold
  bool projected = false;              ///< the frontend left the unconstrained directions to the IMU
  std::vector<DegenerateInterval> intervals;
};

/// One registered scan's figure, for localizability.csv (kept by RunRecord).
struct ScanLocalizability {
  double stamp = 0.0;  ///< [s] pose stamp
  int degenerate = 0;
  Eigen::Matrix<double, 6, 1> shares = Eigen::Matrix<double, 6, 1>::Zero();  ///< Localizability::eigenvalues
};

class DegeneracyReport {
public:
  /// Degenerate scans closer than this [s] belong to one interval.
  static constexpr double kMergeGap = 1.0;
  /// An interval is warned about once it holds this many degenerate scans.
  static constexpr std::uint64_t kWarnScans = 3;

  explicit DegeneracyReport(std::shared_ptr<spdlog::logger> logger);

  /// One estimated scan: its pose stamp and its localizability (null: not registered).
  void add(double stamp, const Localizability* localizability);
  DegeneracySummary summary() const;

private:
  std::shared_ptr<spdlog::logger> logger_;
  mutable std::mutex mutex_;
  DegeneracySummary summary_;
  std::optional<double> origin_;  ///< the first scan's stamp: warnings give times from it
  double last_stamp_ = 0.0;
  bool open_ = false;  ///< the last interval may still grow
  WarningCounter intervals_warned_{3, 10};
  bool last_warned_ = false;  ///< the last interval was warned about
  bool last_judged_ = false;  ///< the last interval reached kWarnScans (warned or rate-limited)

  void warn(const DegenerateInterval& interval, const Localizability& loc, double t_begin);
};

}  // namespace asuka
