#pragma once
// fastlio: the FAST-LIO2 algorithm (Xu et al., T-RO 2022) in our own code. An iterated error-state
// Kalman filter on the manifold SO(3) x R^15 (rotation, position, velocity, gyro and accel biases,
// gravity), optionally with the lidar-IMU extrinsic (SO(3) x R^3) estimated online, forward IMU
// propagation, backward de-skew of every point to the scan end, point-to-plane
// residuals of the raw (down-sampled) points against planes of the 5 nearest map points, and an
// incrementally updated map in a box that moves with the sensor.
//
// The frame loop is the shared skeleton's (asuka/lio/filter_frontend.hpp); this file holds the
// paper's steps: propagate, de-skew, update. Threads: the executor's worker thread only.

#include <optional>
#include <vector>

#include <asuka/lio/filter_frontend.hpp>
#include <asuka/lio/imu_propagation.hpp>
#include <asuka/lio/nav_state.hpp>

#include "fastlio_params.hpp"

namespace asuka::fastlio {

/// The filter state: the shared navigation state (asuka/lio/nav_state.hpp) and the lidar-IMU
/// extrinsic T_imu_lidar (right perturbation of its rotation), 24 error dimensions. When the
/// extrinsic is not estimated (mapping.extrinsic_est_en false) the filter works on the first 18
/// only and the extrinsic stays as configured.
struct State : lio::NavState {
  static constexpr int kExtRot = 18, kExtPos = 21, kDim = 24;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  Eigen::Matrix3d R_il = Eigen::Matrix3d::Identity();  ///< T_imu_lidar rotation: p_imu = R_il p_lidar + t_il
  Eigen::Vector3d t_il = Eigen::Vector3d::Zero();      ///< [m] T_imu_lidar translation

  /// this (+) d for the first `dim` components of d (18 or 24).
  State plus(const Tangent& d, int dim = kDim) const {
    State s = *this;
    s.add(d.head<lio::NavState::kDim>());
    if (dim > kExtRot) {
      s.R_il = R_il * so3::exp(d.segment<3>(kExtRot));
      s.t_il += d.segment<3>(kExtPos);
    }
    return s;
  }
  /// this (-) other
  Tangent minus(const State& o) const {
    Tangent d;
    d.head<lio::NavState::kDim>() = lio::NavState::minus(o);
    d.segment<3>(kExtRot) = so3::log(o.R_il.transpose() * R_il);
    d.segment<3>(kExtPos) = t_il - o.t_il;
    return d;
  }
};

class FastLio : public lio::FilterFrontend<State> {
public:
  explicit FastLio(const FastlioParams& params);

private:
  void reset_filter() override;
  void start(const lio::ScanPackage& package) override;
  void estimate(const lio::ScanPackage& package, bool register_scan, ScanOutput& out) override;
  Eigen::Isometry3d T_imu_lidar() const override;

  /// At rest at the origin, gravity from the config, the configured extrinsic.
  State initial_state() const;
  /// Down-samples the frame and moves every kept point to where the lidar was at the scan end
  /// (lidar frame; the extrinsic is the current estimate).
  std::vector<Eigen::Vector3d> deskew(const lio::ScanPackage& package) const;
  /// The iterated update; returns false when too few planes were found (the prediction is kept).
  bool update(const std::vector<Eigen::Vector3d>& points_lidar, double end);
  /// Error dimensions the filter works on: 24 with the extrinsic estimated, else 18.
  int dim() const { return params_.extrinsic_est_en ? State::kDim : lio::NavState::kDim; }

  FastlioParams params_;
  lio::ImuProcessNoise noise_;
  std::optional<ImuData> last_imu_;  ///< the last sample of the previous package
  lio::ImuTrajectory trajectory_;    ///< the poses of the current package's propagation, for de-skew
  std::uint64_t extrinsic_updates_ = 0;
};

}  // namespace asuka::fastlio
