#pragma once
// batchlio: Point-LIO's high-rate filter (He et al., "Point-LIO: Robust High-Bandwidth LiDAR-Inertial
// Odometry", Adv. Intell. Syst. 2023) with one update per time window of points (Batch-LIO).
//
// The state carries the angular velocity and the specific force besides pose, velocity, biases and
// gravity; between measurements they are constant (driven by process noise). The IMU is a
// *measurement* of them (saturated axes left out), not an input. The points of a scan are taken in
// time order in windows of `batch_dt`; the points of a window are moved to its end with the
// filter's own angular and linear velocity and form one point-to-plane update. batch_dt = 0 is
// Point-LIO's point-by-point update. One state per window is emitted on
// OdometryCallbacks::on_high_rate_pose once the scan is decided (from the pass that stands);
// on_new_frame fires once per scan.
//
// The frame loop is the shared skeleton's (asuka/lio/filter_frontend.hpp); the filter steps are in
// batchlio_filter.hpp. Threads: the executor's worker thread only.

#include <cstdint>
#include <vector>

#include <asuka/lio/degeneracy.hpp>
#include <asuka/lio/filter_frontend.hpp>

#include "batchlio_filter.hpp"
#include "batchlio_params.hpp"

namespace asuka::batchlio {

class BatchLio : public lio::FilterFrontend<State> {
public:
  explicit BatchLio(const BatchlioParams& params);

  bool save_map(const std::string& path) override;

private:
  struct Timed {
    Eigen::Vector3d p_imu;  ///< the point in the IMU frame at its own time
    double t = 0.0;
    float intensity = 0.0f;
  };

  void reset_filter() override;
  void start(const lio::ScanPackage& package) override;
  /// The scan's points in time order, in windows of batch_dt: the IMU samples up to each window's
  /// end as measurements, then the window's point-to-plane update. The scan is decided as a whole
  /// after a first pass (too few matches, degenerate) and may run again from its start (run_scan).
  void estimate(const lio::ScanPackage& package, bool register_scan, ScanOutput& out) override;
  /// How one pass over a scan registers it (estimate() decides the scan as a whole, then may run it
  /// again from its start).
  struct ScanPass {
    bool lidar = true;                       ///< false: the windows only place their points (the IMU alone carries the state)
    bool wide_reach = false;                 ///< thin fits get the wide reach (mapping.plane_wide_reach)
    const Localizability* project = nullptr;  ///< directions the LiDAR rows leave to the IMU (#21)
  };
  /// One pass over the scan's windows from the current state: IMU samples, then each window.
  void run_scan(const std::vector<Timed>& points, const lio::ScanPackage& package, const ScanPass& pass, std::vector<Eigen::Vector3f>& world);
  /// Registers one window of points against the map (unless the pass is without the LiDAR) and
  /// appends their world coordinates to `world`; keeps the window's state for on_high_rate_pose.
  void process_window(const std::vector<Timed>& points, std::size_t begin, std::size_t end, const ScanPass& pass, std::vector<Eigen::Vector3f>& world);
  void imu_measurement(const ImuData& imu);
  /// #16 output.dense_scan: every preprocessed point of the package in the IMU frame at its end. A
  /// point is placed in the world by the state of the first window that ends at or after its time,
  /// moved to that window's end as the window's own points are, then brought into the IMU frame at
  /// the scan end (x_ there).
  void dense_scan(const lio::ScanPackage& package, std::vector<Point>& out) const;

  /// Where a window's points went, for dense_scan(): the pose the window ended with (after its
  /// update) and the velocities its points were moved to its end with (before the update).
  struct WindowPose {
    double t = 0.0;
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    Eigen::Vector3d omega = Eigen::Vector3d::Zero();   ///< [rad/s] body rate
    Eigen::Vector3d v_body = Eigen::Vector3d::Zero();  ///< [m/s] velocity in the body frame
  };

  BatchlioParams params_;
  double scan_end_ = 0.0;
  std::uint64_t windows_ = 0;
  std::uint64_t saturated_samples_ = 0;  ///< IMU samples with at least one axis left out
  std::uint64_t next_saturation_warning_ = 1;
  std::size_t scan_matches_ = 0;  ///< plane matches in the current scan
  std::vector<WindowPose> window_poses_;  ///< the current scan's, with output.dense_scan
  std::vector<Eigen::Vector3f> neighbors_;
  // A window's points moved to its end (process_window). A member, not a thread_local: a
  // thread_local in a dlopen()ed plugin lives in dynamic TLS, whose scan at exit crashed
  // LeakSanitizer's tracer on the CI machine (a known fault of the sanitizer runtime).
  std::vector<Eigen::Vector3d> window_at_end_;
  std::vector<Eigen::Matrix<double, 1, 6>> h_;
  std::vector<double> r_;
  std::vector<HighRatePose> window_outputs_;  ///< the current pass's window states, emitted when the scan is decided
  // #21: the scan's rows accumulate into scan_information_ (rotation columns in world axes); the
  // localizability found at the end of a pass decides whether the scan runs again, widened or with
  // its unconstrained directions projected (a 1 ms window sees a sliver of the scene and is always
  // narrow: the decision needs the whole scan).
  lio::PoseInformation scan_information_;
  lio::DegenerateDirectionLatch latch_;  ///< the projected directions, held while the scans find the same (#21)
};

}  // namespace asuka::batchlio
