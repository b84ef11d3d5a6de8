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
// OdometryCallbacks::on_high_rate_pose; on_new_frame fires once per scan.
//
// Threads: everything below runs on the executor's worker thread (OdometryEstimation contract).

#include <chrono>
#include <memory>
#include <vector>

#include <asuka/core/odometry_estimation.hpp>
#include <asuka/lio/cloud_preprocessor.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/measure_sync.hpp>
#include <asuka/lio/nav_state.hpp>
#include <asuka/lio/voxel_map.hpp>

#include "batchlio_params.hpp"

namespace spdlog {
class logger;
}

namespace asuka::batchlio {

/// The shared navigation state (asuka/lio/nav_state.hpp: rotation with right perturbation, position,
/// velocity, gyro bias, accel bias, gravity) plus the angular velocity and the specific force: 24
/// error dimensions.
struct State : lio::NavState {
  static constexpr int kOmega = 18, kAcc = 21, kDim = 24;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  Eigen::Vector3d omega = Eigen::Vector3d::Zero();  ///< [rad/s] angular velocity, IMU frame
  Eigen::Vector3d acc = Eigen::Vector3d::Zero();    ///< [m/s^2] specific force, IMU frame (what an ideal accelerometer reads)

  State plus(const Tangent& d) const {
    State s = *this;
    s.add(d.head<lio::NavState::kDim>());
    s.omega += d.segment<3>(kOmega);
    s.acc += d.segment<3>(kAcc);
    return s;
  }
};

using Covariance = Eigen::Matrix<double, State::kDim, State::kDim>;

class BatchLio : public OdometryEstimation {
public:
  explicit BatchLio(const BatchlioParams& params);

  void insert_imu(const ImuData& imu) override;
  void insert_frame(const Frame::ConstPtr& frame) override;
  bool process_once() override;
  int workload() const override;
  bool save_map(const std::string& path) override;
  void reset() override;
  bool ok() const override { return ok_; }
  CloudPreprocess::Ptr cloud_preprocess() const override { return preprocess_; }
  ImuPreprocess::Ptr imu_preprocess() const override { return initializer_; }

  const State& state() const { return x_; }
  const Covariance& covariance() const { return P_; }

  /// Sets the state, covariance and state time directly (tests of the filter steps).
  void set_state_for_test(const State& x, const Covariance& P, double t) {
    x_ = x;
    P_ = P;
    t_ = t;
    initialized_ = true;
  }

  /// The filter steps, public for tests.
  /// Moves the state and covariance from t_ to `t` with the constant-rate process model.
  void propagate_to(double t);
  /// The IMU as a measurement of omega + bg and acc + ba; axes at >= 99 % of the range are left out.
  void update_imu(const ImuData& imu);
  /// Point-to-plane residuals r_i with rows h_i (over rotation and position) and variance `var`:
  /// one update with all of them (batch form), or one update per row (scalar form, batch_dt = 0).
  void update_planes(const std::vector<Eigen::Matrix<double, 1, 6>>& h, const std::vector<double>& r, double var, bool sequential);

private:
  struct Timed {
    Eigen::Vector3d p_imu;  ///< the point in the IMU frame at its own time
    double t = 0.0;
  };

  lio::ImuInitializerParams initializer_params() const;
  lio::VoxelMapParams map_params() const;
  void initialize(const lio::MeasureGroup& group);
  void process_scan(const lio::MeasureGroup& group);
  /// Registers one window of points against the map (or only places them on the first scan) and
  /// appends their world coordinates to `world`.
  void process_window(const std::vector<Timed>& points, std::size_t begin, std::size_t end, bool register_points, std::vector<Eigen::Vector3f>& world);

  BatchlioParams params_;
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<lio::CloudPreprocessor> preprocess_;
  std::shared_ptr<lio::ImuInitializer> initializer_;
  lio::MeasureSync sync_;
  lio::VoxelMap map_;

  bool initialized_ = false;
  bool first_scan_ = true;
  bool ok_ = true;
  State x_;
  Covariance P_ = Covariance::Identity();
  double t_ = 0.0;  ///< time of x_
  double scan_end_ = 0.0;
  std::uint64_t frame_id_ = 0;
  std::uint64_t windows_ = 0;
  std::uint64_t saturated_samples_ = 0;  ///< IMU samples with at least one axis left out
  std::uint64_t next_saturation_warning_ = 1;
  std::uint64_t stale_frames_ = 0;
  int degenerate_scans_ = 0;
  std::size_t scan_matches_ = 0;  ///< plane matches in the current scan
  std::vector<Eigen::Vector3f> neighbors_;
  std::vector<Eigen::Matrix<double, 1, 6>> h_;
  std::vector<double> r_;
  std::chrono::steady_clock::time_point scan_start_;
};

}  // namespace asuka::batchlio
