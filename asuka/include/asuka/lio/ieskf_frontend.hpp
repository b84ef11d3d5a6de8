#pragma once
// FAST-LIO2's estimator (Xu et al., T-RO 2022), in our own code, for any point map: an iterated
// error-state Kalman filter on the manifold SO(3) x R^15 (rotation, position, velocity, gyro and
// accel biases, gravity), optionally with the lidar-IMU extrinsic (SO(3) x R^3) estimated online;
// forward IMU propagation and backward de-skew of every point to the scan end
// (imu_propagation.hpp); point-to-plane residuals of the down-sampled points against planes of the
// k nearest map points (plane_association.hpp); the map updated after each scan in a box that moves
// with the sensor (filter_frontend.hpp).
//
// The frontends that are this estimator over a map of their own:
//   fastlio   IeskfFrontend<VoxelMap>    (FAST-LIO2 with a hashed voxel map instead of the ikd-tree)
//   superlio  IeskfFrontend<OctVoxMap>   (Super-LIO: the same filter, the OctVox map and HKNN)
//   fastlivo  IeskfFrontend<VoxelMap, LivoState, VisualSynchronizer>  (FAST-LIVO2: this LiDAR update
//             at each image time, then its photometric update in after_lidar_update())
// Each plugin only names itself, reads its defaults and builds its map parameters.
//
// State: IeskfState or a state with the same members and layout rules (NavState first, the
// extrinsic at kExtRot/kExtPos, active_dim() the error dimensions the filter works on, plus(d, dim)
// and minus()); extra dimensions between kGrav and kExtRot (fastlivo's exposure) are carried along,
// untouched by the LiDAR rows.
// Threads: the executor's worker thread only.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>

#include <asuka/lio/degeneracy.hpp>
#include <asuka/lio/filter_frontend.hpp>
#include <asuka/lio/filter_frontend_params.hpp>
#include <asuka/lio/imu_propagation.hpp>
#include <asuka/lio/nav_state.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/math/so3.hpp>

namespace asuka {
class Config;
}

namespace asuka::lio {

/// The filter state: the shared navigation state (nav_state.hpp) and the lidar-IMU extrinsic
/// T_imu_lidar (right perturbation of its rotation), 24 error dimensions. When the extrinsic is not
/// estimated (mapping.extrinsic_est_en false) the filter works on the first 18 only and the
/// extrinsic stays as configured.
struct IeskfState : NavState {
  static constexpr int kExtRot = 18, kExtPos = 21, kDim = 24;
  using Tangent = Eigen::Matrix<double, kDim, 1>;

  /// The error dimensions the filter works on: all, or the navigation state alone when the extrinsic
  /// is not estimated.
  static constexpr int active_dim(bool estimate_extrinsic) { return estimate_extrinsic ? kDim : NavState::kDim; }

  Eigen::Matrix3d R_il = Eigen::Matrix3d::Identity();  ///< T_imu_lidar rotation: p_imu = R_il p_lidar + t_il
  Eigen::Vector3d t_il = Eigen::Vector3d::Zero();      ///< [m] T_imu_lidar translation

  /// this (+) d for the first `dim` components of d (18 or 24).
  IeskfState plus(const Tangent& d, int dim = kDim) const {
    IeskfState s = *this;
    s.add(d.head<NavState::kDim>());
    if (dim > kExtRot) {
      s.R_il = R_il * so3::exp(d.segment<3>(kExtRot));
      s.t_il += d.segment<3>(kExtPos);
    }
    return s;
  }
  /// this (-) other
  Tangent minus(const IeskfState& o) const {
    Tangent d;
    d.head<NavState::kDim>() = NavState::minus(o);
    d.segment<3>(kExtRot) = so3::log(o.R_il.transpose() * R_il);
    d.segment<3>(kExtPos) = t_il - o.t_il;
    return d;
  }
};

/// The filter's keys (section "mapping", as FAST-LIO names them) over the keys every filter frontend
/// reads (`common`). Units and defaults: docs/frontends/fastlio.md.
struct IeskfParams {
  FilterFrontendParams common;
  int max_iterations = 4;                ///< IEKF iterations per scan
  double gyr_cov = 0.1;                  ///< [(rad/s)^2] gyroscope noise variance per sample (FAST-LIO's gyr_cov)
  double acc_cov = 0.1;                  ///< [(m/s^2)^2] accelerometer noise variance per sample
  double b_gyr_cov = 1e-4;               ///< gyroscope bias random walk variance per sample
  double b_acc_cov = 1e-4;               ///< accelerometer bias random walk variance per sample
  bool extrinsic_est_en = false;         ///< estimate T_imu_lidar online (starting from the sensor block)
  double extrinsic_init_std_rot = 0.02;  ///< [rad] prior standard deviation of the configured extrinsic rotation, per axis
  double extrinsic_init_std_pos = 0.05;  ///< [m] prior standard deviation of the configured extrinsic translation, per axis

  /// Reads `config` (sections sensor, preprocess, mapping) over `defaults` (the frontend's defaults of
  /// the common keys) and `filter` (its defaults of the filter's own keys; `common` is not read from
  /// it); throws ConfigError for bad values.
  static IeskfParams from_config(const Config& config, const FilterFrontendParams& defaults, const IeskfParams& filter);
  static IeskfParams from_config(const Config& config, const FilterFrontendParams& defaults) { return from_config(config, defaults, IeskfParams{}); }
  /// The defaults with the IMU's noise per sample at 1e-3 (rad/s)^2 and 1e-2 (m/s^2)^2 instead of
  /// FAST-LIO's 0.1 and 0.1: still 125 and 12 times a consumer MEMS IMU's at 200 Hz (fastlio and
  /// superlio, #17; docs/frontends/fastlio.md, "The IMU's noise").
  static IeskfParams with_mems_imu_noise() {
    IeskfParams p;
    p.gyr_cov = 1e-3;
    p.acc_cov = 1e-2;
    return p;
  }
};

template <class Map, class StateT = IeskfState, class Sync = ScanSynchronizer>
class IeskfFrontend : public FilterFrontend<StateT, Map, Sync> {
protected:
  using Base = FilterFrontend<StateT, Map, Sync>;
  using ScanOutput = typename Base::ScanOutput;
  using Package = typename Base::Package;
  using State = StateT;
  static constexpr int kRot = State::kRot, kPos = State::kPos, kExtRot = State::kExtRot, kExtPos = State::kExtPos;

public:
  /// `name` names the frontend's logger; `map_params` build its map.
  IeskfFrontend(const IeskfParams& params, const std::string& name, const typename Map::Params& map_params)
  : Base(params.common, name, map_params), params_(params), noise_{params.gyr_cov, params.acc_cov, params.b_gyr_cov, params.b_acc_cov} {
    this->reset();
  }
  /// With a synchronizer built by the frontend (a visual one). The derived frontend calls reset()
  /// itself once its own members exist.
  IeskfFrontend(const IeskfParams& params, const std::string& name, const typename Map::Params& map_params, Sync sync)
  : Base(params.common, name, map_params, std::move(sync)), params_(params),
    noise_{params.gyr_cov, params.acc_cov, params.b_gyr_cov, params.b_acc_cov} {}

  const Map& map() const { return this->map_; }

protected:
  using Base::common_;
  using Base::initializer_;
  using Base::logger_;
  using Base::map_;
  using Base::P_;
  using Base::t_;
  using Base::x_;

  void reset_filter() override {
    x_ = initial_state();
    P_.setZero();
    set_prior(P_, NavPrior{});
    start_check_scans_ = 0;
    // The extrinsic's prior; used only when it is estimated (dim() == 24), and never coupled to the
    // rest otherwise.
    P_.template block<3, 3>(kExtRot, kExtRot).diagonal().setConstant(params_.extrinsic_init_std_rot * params_.extrinsic_init_std_rot);
    P_.template block<3, 3>(kExtPos, kExtPos).diagonal().setConstant(params_.extrinsic_init_std_pos * params_.extrinsic_init_std_pos);
    last_imu_.reset();
    trajectory_.clear();
    gap_rate_.setZero();
  }

  void start(const Package& package) override {
    x_ = initial_state();
    if (initializer_->moving()) {
      // #12 item 1: no rest to measure gravity and the gyro bias at; see NavPrior's moving_start_prior().
      x_.R = initializer_->rotation_from_motion(package.imu, package.end);
      set_prior(P_, moving_start_prior());
    } else {
      x_.R = initializer_->rotation();
      x_.bg = initializer_->gyro_bias();
      // #21: levelled on the mean at rest, the attitude holds the horizontal accel bias as a tilt of
      // gravity; the prior ties the two (nav_state.hpp).
      couple_gravity_to_accel_bias(P_, x_.R);
    }
    if (!package.imu.empty()) last_imu_ = package.imu.back();  // propagation starts from it
    start_check_scans_ = initializer_->moving() ? 0 : kStartCheckScans;
    start_velocity_correction_.setZero();
  }

  void estimate(const Package& package, bool register_scan, ScanOutput& out) override {
    const double t_before = t_;
    const Eigen::Matrix3d R_before = x_.R;
    propagate_imu(x_, P_, t_, last_imu_, package.imu, package.end, noise_, trajectory_, gap_rate_);
    const auto points_lidar = deskew(package, common_.scan_voxel_size, &out.intensity);
    const Eigen::Vector3d v_predicted = x_.v;
    if (register_scan && update(points_lidar, package.end)) out.localizability = localizability_;
    if (register_scan) check_start_velocity(x_.v - v_predicted, package.end);
    after_lidar_update(package, register_scan, points_lidar, out);
    // The body rate the registered poses show, for an IMU gap (imu_propagation.hpp).
    if (const double dt = t_ - t_before; dt > 1e-3 && dt < 0.5) gap_rate_ = so3::log(R_before.transpose() * x_.R) / dt;
    out.points_imu.reserve(points_lidar.size());
    for (const auto& p_l : points_lidar) out.points_imu.push_back(x_.R_il * p_l + x_.t_il);
    out.points_world.reserve(out.points_imu.size());
    for (const auto& q : out.points_imu) out.points_world.push_back((x_.R * q + x_.p).template cast<float>());
    if (common_.dense_scan) dense_scan(package, out.dense_imu);
  }

  bool registers_at_rest() const override { return params_.extrinsic_est_en || Base::registers_at_rest(); }

  Eigen::Isometry3d T_imu_lidar() const override {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = x_.R_il;
    T.translation() = x_.t_il;
    return T;
  }

  /// After the LiDAR update of `package` (x_, P_ and t_ at package.end; `points_lidar` de-skewed to
  /// it, lidar frame): a frontend's further update of the same state (fastlivo's photometric one).
  /// The registered points are computed after it, from the state it leaves, in the order of
  /// `points_lidar`; the frontend may fill out.colours in that order.
  virtual void after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar, ScanOutput& out) {
    (void)package;
    (void)register_scan;
    (void)points_lidar;
    (void)out;
  }

  const IeskfParams& ieskf_params() const { return params_; }

  /// Down-samples the frame (the first point per voxel of `voxel_size` [m]) and moves every kept
  /// point to where the lidar was at the package end (lidar frame; the extrinsic is the current
  /// estimate). Valid during estimate() (the propagation of the current package).
  /// With `intensity`, the kept points' intensities in the same order.
  std::vector<Eigen::Vector3d> deskew(const ScanPackage& package, double voxel_size, std::vector<float>* intensity = nullptr) const {
    const auto& points = package.frame->points;
    const auto kept = downsample_first_per_voxel(points, voxel_size);
    if (intensity != nullptr) {
      intensity->clear();
      intensity->reserve(kept.size());
      for (const std::uint32_t index : kept) intensity->push_back(points[index].intensity);
    }
    return deskew_points(package, kept);
  }

  /// #16 output.dense_scan: every preprocessed point of the package, de-skewed to its end, in the IMU
  /// frame there, with its intensity (after the update: the state the scan ended with).
  void dense_scan(const ScanPackage& package, std::vector<Point>& out) const {
    const auto& points = package.frame->points;
    std::vector<std::uint32_t> all(points.size());
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto lidar = deskew_points(package, all);
    out.resize(lidar.size());
    for (std::size_t i = 0; i < lidar.size(); ++i) {
      const Eigen::Vector3d q = x_.R_il * lidar[i] + x_.t_il;
      out[i] = points[i];
      out[i].x = static_cast<float>(q.x());
      out[i].y = static_cast<float>(q.y());
      out[i].z = static_cast<float>(q.z());
    }
  }

  /// The points of `indices`, each moved to where the lidar was at the package end (lidar frame).
  std::vector<Eigen::Vector3d> deskew_points(const ScanPackage& package, const std::vector<std::uint32_t>& indices) const {
    const auto& points = package.frame->points;
    std::vector<Eigen::Vector3d> out;
    out.reserve(indices.size());
    for (const std::uint32_t index : indices) {
      const Point& pt = points[index];
      const Eigen::Vector3d p_l(pt.x, pt.y, pt.z);
      if (trajectory_.empty()) {
        out.push_back(p_l);
        continue;
      }
      // Into the IMU frame at the point's time, back to the IMU frame at the scan end, then into the
      // lidar frame there.
      const Eigen::Vector3d q = trajectory_.to_end(x_.R_il * p_l + x_.t_il, package.begin + static_cast<double>(pt.offset_ms) * 1e-3);
      out.push_back(x_.R_il.transpose() * (q - x_.t_il));
    }
    return out;
  }


private:
  /// At rest at the origin, gravity from the config, the configured extrinsic.
  State initial_state() const {
    State s;
    s.g = Eigen::Vector3d(0, 0, -common_.gravity);
    s.R_il = common_.T_imu_lidar.linear();
    s.t_il = common_.T_imu_lidar.translation();
    return s;
  }

  /// #12 item 1, the start the IMU cannot see: a sensor already moving at constant velocity (a vehicle
  /// driving when the recording starts) reads what it reads at rest, so the filter starts at v = 0
  /// and the LiDAR then corrects the velocity up to the real one, scan by scan, with no acceleration
  /// in the IMU to account for it. The corrections of the first kStartCheckScans registrations are
  /// summed; beyond kStartVelocityCorrection the start is named in a warning. (Rebuilding the map
  /// then was tried: the velocity has not converged by then, 1.5 of 5.5 m/s on a VLP-16 vehicle
  /// start, and the rebuild made the run worse.) A start at rest, or one that accelerates as the IMU
  /// measures, corrects the velocity by centimetres per second.
  void check_start_velocity(const Eigen::Vector3d& correction, double end) {
    if (start_check_scans_ == 0) return;
    start_velocity_correction_ += correction;
    if (--start_check_scans_ > 0) return;
    const double c = start_velocity_correction_.norm();
    logger_->info("start check: the first {} registrations corrected the velocity by {:.3f} m/s in all", kStartCheckScans, c);
    if (c <= kStartVelocityCorrection) return;
    logger_->warn("in the first {} registrations (up to {:.6f}) the LiDAR corrected the velocity by {:.2f} m/s (now {:.2f} m/s) that the IMU never "
                  "measured as acceleration: the sensor was most likely already moving at constant velocity when the IMU initialized (at "
                  "constant velocity the IMU reads as at rest), and the filter started at rest: the trajectory and the map can be metres "
                  "off. Start the recording at rest (1-2 s), or with a turn or a change of speed in its first 0.5 s so that the IMU sees the "
                  "motion",
                  kStartCheckScans, end, c, x_.v.norm());
  }
  static constexpr int kStartCheckScans = 20;               ///< registrations whose velocity corrections are summed
  /// [m/s] With the MEMS IMU noise of fastlio and superlio (#17) the velocity follows the LiDAR more
  /// slowly: a VLP-16 vehicle started at rest while driving at 5.4 m/s is corrected by 0.78 m/s in 20
  /// registrations (more than 1 with FAST-LIO's noise), a start at the LiDAR's velocity by 0.25, and
  /// the 246 generated runs of both frontends by at most 0.07.
  static constexpr double kStartVelocityCorrection = 0.5;
  int start_check_scans_ = 0;
  Eigen::Vector3d start_velocity_correction_ = Eigen::Vector3d::Zero();

  /// The iterated update; returns false when too few planes were found (the prediction is kept).
  /// Leaves the localizability of its last iteration in localizability_ (#21).
  bool update(const std::vector<Eigen::Vector3d>& points_lidar, double end);

  /// Error dimensions the filter works on: 24 with the extrinsic estimated, else 18.
  int dim() const { return State::active_dim(params_.extrinsic_est_en); }

  IeskfParams params_;
  ImuProcessNoise noise_;
  std::optional<ImuData> last_imu_;  ///< the last sample of the previous package
  ImuTrajectory trajectory_;         ///< the poses of the current package's propagation, for de-skew
  Eigen::Vector3d gap_rate_ = Eigen::Vector3d::Zero();  ///< [rad/s] body rate between the last two estimates: the rotation across an IMU gap
  std::uint64_t extrinsic_updates_ = 0;
  Localizability localizability_;
  PoseInformation information_;  ///< the current iteration's rows (kept: no allocation per scan)
};

template <class Map, class StateT, class Sync>
bool IeskfFrontend<Map, StateT, Sync>::update(const std::vector<Eigen::Vector3d>& points_lidar, double end) {
  const int n = dim();
  const bool estimate_extrinsic = n == State::kDim;
  const State prior = x_;
  const Eigen::MatrixXd P_inv = P_.topLeftCorner(n, n).inverse();
  const double inv_r = 1.0 / (common_.measurement_std * common_.measurement_std);
  // #17: the planes are searched in the map's nearest block; a scan that this leaves degenerate is
  // associated again, once, at the first iteration, with the wide reach for its thin fits
  // (plane_association.hpp). Not a scan with too few planes (a start's): the wide planes took a
  // courtyard walk from 0.4 to 1.7 cm.
  PlaneAssociationParams association = common_.association_params();
  bool may_widen = common_.plane_wide_reach;
  State x = prior;
  Eigen::MatrixXd A = P_inv;
  std::vector<Eigen::Vector3f> neighbors;
  SurfacePatch patch;
  // Planes are associated at the first iteration and again only after a large step (> 0.01 rad or
  // 5 cm): smaller steps do not change which map points are nearest. (FAST-LIO re-searches on its
  // own convergence flag; this rule saves most searches when the IMU prediction is good.)
  std::vector<std::optional<Plane>> planes(points_lidar.size());
  bool associate = true;
  // #14: planes of the last scans reused per cell (plane_cache.hpp); not in the wide reach's second
  // association, whose planes are for this scan's thin fits only.
  this->plane_cache_.next_scan();
  bool cache = this->plane_cache_.enabled();
  const auto widen = [&](int& iteration) {
    if (!may_widen || iteration != 0 || localizability_.degenerate == 0 || this->map_of_rest(end)) return false;
    may_widen = false;
    association.wide_reach = true;
    associate = true;
    cache = false;
    --iteration;  // the first iteration again
    return true;
  };
  std::size_t effective = 0;
  // The measurement rows, one per matched point, for the point p_l in the lidar frame, q = R_il p_l
  // + t_il in the IMU frame, the world point R q + p and m = R^T n:
  //   d r / d(rotation, position)          = [(q x m)^T, n^T]
  //   d r / d(extrinsic rotation, translation) = [(p_l x R_il^T m)^T, m^T]   (estimated extrinsic only)
  const int columns = estimate_extrinsic ? 12 : 6;
  Eigen::MatrixXd H(static_cast<Eigen::Index>(points_lidar.size()), columns);
  Eigen::VectorXd residuals(static_cast<Eigen::Index>(points_lidar.size()));
  // The points in the IMU frame: once, or at every iteration when the extrinsic moves.
  std::vector<Eigen::Vector3d> points_imu(points_lidar.size());
  for (int iteration = 0; iteration < params_.max_iterations; ++iteration) {
    if (iteration == 0 || estimate_extrinsic) {
      for (std::size_t i = 0; i < points_lidar.size(); ++i) points_imu[i] = x.R_il * points_lidar[i] + x.t_il;
    }
    effective = 0;
    double lever_sq = 0.0;  // #21: sum of |q|^2 over the matched points (the localizability's)
    for (std::size_t i = 0; i < points_lidar.size(); ++i) {
      const Eigen::Vector3d& p_l = points_lidar[i];
      const Eigen::Vector3d& q = points_imu[i];
      const Eigen::Vector3d pw = x.R * q + x.p;
      if (associate) {
        planes[i].reset();
        Plane plane;
        if (!cache) {
          if (find_plane(map_, pw, association, neighbors, plane)) planes[i] = plane;
        } else if (this->plane_cache_.find(pw, association.plane_max_residual, plane)) {
          planes[i] = plane;
        } else if (find_plane(map_, pw, association, neighbors, plane, &patch)) {
          planes[i] = plane;
          this->plane_cache_.store(pw, patch);
        }
      }
      if (!planes[i]) continue;
      const Plane& plane = *planes[i];
      const double r = plane.normal.dot(pw) + plane.d;
      if (!accept_residual(r, p_l.norm(), common_.max_residual)) continue;
      const auto row = static_cast<Eigen::Index>(effective++);
      const Eigen::Vector3d m = x.R.transpose() * plane.normal;
      H.template block<1, 3>(row, 0) = q.cross(m).transpose();
      H.template block<1, 3>(row, 3) = plane.normal.transpose();
      if (estimate_extrinsic) {
        H.template block<1, 3>(row, 6) = p_l.cross(x.R_il.transpose() * m).transpose();
        H.template block<1, 3>(row, 9) = m.transpose();
      }
      residuals[row] = r;
      lever_sq += q.squaredNorm();
    }
    if (this->few_plane_matches(effective, end)) {
      x_ = prior;
      return false;
    }
    // (P^-1 + H^T R^-1 H) dx = -P^-1 (x - x_prior) - H^T R^-1 r   (iterated EKF as MAP estimate).
    // H's columns are the rotation and position (0..5) and, when estimated, the extrinsic (kExtRot..).
    const auto Hm = H.topRows(static_cast<Eigen::Index>(effective));
    Eigen::MatrixXd HTH = inv_r * (Hm.transpose() * Hm);
    Eigen::VectorXd HTr = inv_r * (Hm.transpose() * residuals.head(static_cast<Eigen::Index>(effective)));
    // #21: the directions this scan constrains (degeneracy.hpp); the rows h become h Pi, so the
    // update leaves the others to the IMU prediction.
    information_.set(Hm.leftCols(6), HTH.template topLeftCorner<6, 6>() / inv_r, lever_sq);
    localizability_ = analyze_localizability(information_, x.R, common_.degeneracy_threshold);
    if (widen(iteration)) continue;
    // #21: in the first seconds after a static start the map is the rest's scans, which a spinning
    // lidar leaves as its rings. A degenerate scan's few constraining planes then rest on two rings (a
    // floor's, or a floor's and a kerb's: two parallel lines always span a plane, so no fit test can
    // reject them), and their 4-9 cm residuals set a pitch the IMU, just levelled at rest, knows better.
    // Such a scan's rows get rest_map_degenerate_std_scale times the measurement noise
    // (docs/degeneracy.md, "The rest map").
    if (this->map_of_rest(end) && localizability_.degenerate > 0) {
      const double s2 = common_.rest_map_degenerate_std_scale * common_.rest_map_degenerate_std_scale;
      HTH /= s2;
      HTr /= s2;
    }
    // Not while a moving start settles (filter_frontend.hpp): the first scans' sparse map reads as
    // degenerate, and the velocity the IMU would carry along it is the one the LiDAR is still
    // measuring (an aggressive hand-held start ended 44 m off with the projection, 15 cm without).
    const bool project = common_.degeneracy_projection && localizability_.degenerate > 0;
    localizability_.settling = project && this->moving_start_settling();
    localizability_.projected = project && !localizability_.settling;
    if (localizability_.projected) {
      const Matrix6d Pi = constrained_projector(localizability_, x.R);
      const Matrix6d pose = HTH.template topLeftCorner<6, 6>();
      HTH.template topLeftCorner<6, 6>() = Pi.transpose() * pose * Pi;
      if (estimate_extrinsic) {
        // The extrinsic is as unconstrained along those directions as the pose (its translation rows
        // are the pose's seen through R): a degenerate scan leaves it where it is.
        HTH.template topRightCorner<6, 6>().setZero();
        HTH.template bottomLeftCorner<6, 6>().setZero();
        HTH.template bottomRightCorner<6, 6>().setZero();
        for (int i = 0; i < 6; ++i) HTr[6 + i] = 0.0;
      }
      const Eigen::Matrix<double, 6, 1> r6 = HTr.template head<6>();
      HTr.template head<6>() = Pi.transpose() * r6;
    }
    A = P_inv;
    A.template topLeftCorner<6, 6>() += HTH.template topLeftCorner<6, 6>();
    Eigen::VectorXd b = -P_inv * x.minus(prior).head(n);
    // Element by element: GCC 12 sees a possible null in the vectorized form of these dynamic blocks.
    for (int i = 0; i < 6; ++i) b[i] -= HTr[i];
    if (estimate_extrinsic) {
      A.template block<6, 6>(0, kExtRot) += HTH.template topRightCorner<6, 6>();
      A.template block<6, 6>(kExtRot, 0) += HTH.template bottomLeftCorner<6, 6>();
      A.template block<6, 6>(kExtRot, kExtRot) += HTH.template bottomRightCorner<6, 6>();
      for (int i = 0; i < 6; ++i) b[kExtRot + i] -= HTr[6 + i];
    }
    typename State::Tangent dx = State::Tangent::Zero();
    dx.head(n) = A.ldlt().solve(b);
    x = x.plus(dx, n);
    if (dx.template segment<3>(kRot).norm() < 1e-4 && dx.template segment<3>(kPos).norm() < 1e-3) break;
    associate = dx.template segment<3>(kRot).norm() > 0.01 || dx.template segment<3>(kPos).norm() > 0.05;
  }
  x_ = x;
  const Eigen::MatrixXd P = A.inverse();
  P_.topLeftCorner(n, n) = 0.5 * (P + P.transpose());
  if (estimate_extrinsic && ++extrinsic_updates_ % 100 == 0) {
    const Eigen::Vector3d w = so3::log(x_.R_il) * (180.0 / M_PI);
    logger_->info("extrinsic estimate after {} scans: t_il ({:.4f}, {:.4f}, {:.4f}) m +- {:.4f}, R_il as a rotation vector ({:.3f}, {:.3f}, {:.3f}) deg +- {:.3f}",
                  extrinsic_updates_, x_.t_il.x(), x_.t_il.y(), x_.t_il.z(), std::sqrt(P_.template block<3, 3>(kExtPos, kExtPos).diagonal().maxCoeff()),
                  w.x(), w.y(), w.z(), std::sqrt(P_.template block<3, 3>(kExtRot, kExtRot).diagonal().maxCoeff()) * 180.0 / M_PI);
  }
  return true;
}

}  // namespace asuka::lio
