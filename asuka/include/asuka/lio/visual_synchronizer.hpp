#pragma once
// Synchronization for visual frontends (#13): one package per camera image, holding the image, every
// IMU sample up to the image time and the LiDAR points timed in (previous cut, image time]. The LiDAR
// point stream is re-cut at image times: points keep their own times, a scan may be split between two
// images and two scans may be merged, so a frontend updates its state exactly at each image time
// whether or not the camera is hardware-synchronized with the lidar (SR-LIVO's sweep reconstruction;
// FAST-LIVO2 updates at image times the same way).
//
// Without images (none configured, or none for a while) it falls back to cutting at scan ends, with
// no image in the package, so a visual frontend keeps running as a LiDAR-inertial one. Worker thread
// only, no locks, like ScanSynchronizer.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <asuka/core/types.hpp>
#include <asuka/lio/scan_synchronizer.hpp>
#include <asuka/util/warning_counter.hpp>

namespace spdlog {
class logger;
}

namespace asuka::lio {

/// One package: the state is updated at `end`. A ScanPackage with an image, so the filter-frontend
/// skeleton runs a visual frontend's frame loop unchanged:
///   begin  [s] the previous cut (the first package: its first point); for a LiDAR-only package of one
///          whole frame, that frame's stamp (the scan start, as a ScanPackage has it)
///   end    [s] the image time (or the scan end of a LiDAR-only package)
///   frame  never null: the points timed in (begin, end], stamped at `begin`, offsets from it; may be empty
///   imu    every sample not later than `end` not in an earlier package
struct VisualPackage : ScanPackage {
  Image::ConstPtr image;  ///< the image taken at `end`; null for a LiDAR-only package (no image in time)
};

struct VisualSyncParams {
  /// [s] an image waits at most this long (in IMU time) for the LiDAR to cover it; after that it is
  /// cut with the points there are (a LiDAR gap must not stall the camera).
  double max_lidar_wait = 0.5;
  /// [s] no image for this long (in LiDAR time) past a scan's end: the scan is cut at its end without
  /// an image (the camera stopped, or none is configured). 0 disables the fallback.
  double image_timeout = 0.5;
  /// false: no camera is configured, so none is waited for: every scan is cut at its end as soon as
  /// the IMU covers it, exactly as ScanSynchronizer would (a visual frontend without a camera).
  bool expect_images = true;
};

struct VisualSyncDiagnostics {
  std::uint64_t packages = 0;
  std::uint64_t image_packages = 0;
  std::uint64_t lidar_only_packages = 0;  ///< cut at a scan end for lack of images
  std::uint64_t stale_images = 0;         ///< images not later than the last cut: dropped
  std::uint64_t lidar_gaps = 0;           ///< images cut before the LiDAR covered them
  std::uint64_t imu_out_of_order = 0;     ///< IMU samples older than the newest, dropped
  std::uint64_t imu_gaps = 0;             ///< consecutive IMU samples more than kImuGapSeconds apart
  std::uint64_t frames_out_of_order = 0;  ///< frames starting before the points already cut: their early points dropped
};

class VisualSynchronizer {
public:
  using Package = VisualPackage;
  static constexpr bool kUsesImages = true;

  explicit VisualSynchronizer(const VisualSyncParams& params = {}, std::shared_ptr<spdlog::logger> logger = nullptr);

  /// R-IMU-2, as ScanSynchronizer: while on, every IMU sample handed out is also kept in
  /// imu_history() for the static initialization. Turning it off clears the history.
  void collect_imu_history(bool on);
  const std::vector<ImuData>& imu_history() const { return imu_history_; }

  void push_imu(const ImuData& imu);
  void push_frame(const LidarFrame::ConstPtr& frame);
  void push_image(const Image::ConstPtr& image);

  /// Fills `out` with the next package when its inputs are complete: the IMU has reached its end and
  /// the LiDAR has covered it (or waited max_lidar_wait); false otherwise.
  bool pop(VisualPackage& out);
  /// Packages that pop() could hand out now (the frontend's workload).
  int ready() const;

  double last_cut() const { return last_cut_; }
  std::size_t images_buffered() const { return images_.size(); }
  std::size_t points_buffered() const { return points_.size(); }
  VisualSyncDiagnostics diagnostics() const;
  void clear();

private:
  struct TimedPoint {
    double time = 0.0;  ///< [s] absolute
    Point point;
  };
  /// The next cut and what it is: an image's time, or a scan end for lack of images.
  struct Cut {
    double end = 0.0;
    bool image = false;
    bool lidar_gap = false;
  };
  bool next_cut(Cut& cut) const;

  VisualSyncParams params_;
  std::shared_ptr<spdlog::logger> logger_;
  bool collect_history_ = false;
  std::vector<ImuData> imu_history_;
  std::deque<ImuData> imu_;
  std::deque<TimedPoint> points_;       ///< in time order, all later than last_cut_
  /// (end, start) of the frames whose points are buffered, by end (LiDAR-only cuts)
  std::deque<std::pair<double, double>> scan_ends_;
  std::deque<Image::ConstPtr> images_;  ///< in arrival order, later than last_cut_
  LidarType lidar_type_ = LidarType::LIVOX;
  double last_cut_ = -1e300;
  double newest_imu_ = -1e300;
  double lidar_covered_ = -1e300;       ///< [s] every point up to here has arrived (the latest frame's end)
  bool started_ = false;                ///< the first package sets last_cut_
  VisualSyncDiagnostics diag_;
  WarningCounter stale_images_;
  WarningCounter lidar_gaps_;
  WarningCounter imu_out_of_order_;
  WarningCounter imu_gaps_;
  WarningCounter frames_out_of_order_;
};

}  // namespace asuka::lio
