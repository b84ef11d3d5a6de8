#pragma once
// The filter frontends' cloud preprocessor (R-PLUG-4, R-PRE-1..5), shared by fastlio and batchlio:
// distance window and decimation for every lidar; for Livox the line and tag filters and the
// duplicate check; for Robosense frames without per-point time, the time rebuilt from each point's
// yaw on its ring. Output offsets are milliseconds from the frame start (R-PRE-2).
//
// Threads: preprocess() runs on the producer thread, concurrently with the estimator; it reads only
// its parameters (and a warn-once flag).

#include <atomic>
#include <memory>

#include <asuka/core/cloud_preprocessor.hpp>

namespace spdlog {
class logger;
}

namespace asuka {
class Config;
}

namespace asuka::lio {

/// R-PRE-1: the `preprocess` section of an odometry config.
struct PreprocessParams {
  double min_distance = 0.5;    ///< [m] points closer to the sensor are dropped
  double max_distance = 300.0;  ///< [m] points farther are dropped (a negative value is clamped to 0)
  int point_filter_num = 2;     ///< keep every Nth point (clamped to >= 1)
  int scan_line = 6;            ///< Livox: lines >= this are dropped; Robosense: rings with rebuilt time (clamped to >= 1)
  double scan_rate = 10.0;      ///< [Hz] spin rate, for the Robosense yaw-time reconstruction
  /// Spinning lidars: point_filter_num counts along each ring, so every ring keeps its share. By the
  /// raw index (false, FAST-LIO's rule and the default) it keeps every Nth laser of each firing where
  /// the driver stores points column by column: half the rings of a VLP-16 in the simulator's order,
  /// and in a VLP-16's firing order (-15, +1, -13, +3, ... deg) only the downward half. Organized
  /// clouds stored ring by ring decimate along each ring either way. Not the default yet: in small
  /// rooms it turned 16-line medians of 5-13 cm into 1.2-2.8 cm, in open scenes fastlio got worse and
  /// every frontend's per-scan time doubled (docs/frontends/fastlio.md, #17).
  bool decimate_per_ring = false;

  /// Reads the keys under `preprocess.`; out-of-range values are clamped as R-PRE-1 documents, with a
  /// warning that names the key, the value and what it became.
  static PreprocessParams from_config(const Config& config);
};

class DefaultCloudPreprocessor : public CloudPreprocessor {
public:
  explicit DefaultCloudPreprocessor(const PreprocessParams& params);

  LidarFrame::Ptr preprocess(const LidarFrame& raw) const override;

  const PreprocessParams& params() const { return params_; }

  /// Robosense without per-point time (R-PRE-4): rewrites `points[i].offset_ms` from the yaw of each
  /// point on its ring, for a sensor spinning clockwise (seen from above) at `scan_rate` Hz. The first
  /// point of a ring is at 0 ms; a yaw past the ring's first yaw is on the far side of the 0/360 deg
  /// wrap; a time that would go backwards on a ring is a full turn later. Points on rings >=
  /// `scan_line` or with non-finite coordinates get a negative offset (dropped by the caller).
  /// Returns how many points got no time.
  static std::size_t rebuild_time_from_yaw(std::vector<Point>& points, int scan_line, double scan_rate);

  /// Drops the points whose time lies far beyond the rest of the sweep (#12 item 5: one Livox point
  /// per second with offset_time 1.41 s stretched its frame to 1.41 s and cost 6.1 m): beyond 1.5 x
  /// the 99th percentile of the frame's offsets + 5 ms. Returns how many were dropped. Cheap when
  /// there is none (a pass for the maximum and the mean; the percentile only when the maximum is far
  /// above the mean). `latest_offset_ms` (if given) receives the largest offset before dropping.
  static std::size_t drop_time_outliers(LidarFrame& frame, float* latest_offset_ms = nullptr);

private:
  LidarFrame::Ptr livox(const LidarFrame& raw) const;
  LidarFrame::Ptr spinning(const LidarFrame& raw) const;
  bool in_window(const Point& p) const;

  PreprocessParams params_;
  std::shared_ptr<spdlog::logger> logger_;
  mutable std::atomic<bool> warned_rings_{false};
  mutable std::atomic<std::uint64_t> time_outlier_frames_{0};
};

}  // namespace asuka::lio
