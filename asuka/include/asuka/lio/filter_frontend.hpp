#pragma once
// The filter-frontend skeleton: the frame loop every filter frontend shares, written once. It owns
// the synchronizer, the static IMU initializer, the cloud preprocessor, the map, the logger, the
// filter state x_ with its covariance P_ and state time t_, and the per-scan timing; a frontend
// derives from it and fills in the steps of its paper:
//
//   reset_filter()  its own counters and buffers, x_ and P_ before initialization
//   start(package)  the IMU initializer has finished at package.end: the initial x_ (and P_)
//   estimate(...)   one scan: propagate, de-skew, update; the registered points for the map
//
// process_once() (the executor calls it until it returns false, R-EXEC-5):
//   pop a package (R-SYNC) -> failed: consume -> not initialized: R-IMU-1/2, start() -> stale:
//   skip -> estimate() -> still at rest since a static start (#17): a zero-velocity update ->
//   diverged (non-finite or absurd state or covariance): fail -> insert the scan into the map, move
//   the local-map box, publish on_new_frame.
//
// State must be a lio::NavState with kDim and plus(); Map a point map (point_map.hpp); Sync the
// synchronizer that cuts the packages: ScanSynchronizer (one package per LiDAR frame) or, for a
// visual frontend, VisualSynchronizer (one package per image, whose VisualPackage is a ScanPackage
// with the image).
// Threads: everything runs on the executor's worker thread (OdometryEstimation contract).

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <asuka/core/callbacks.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/lio/default_cloud_preprocessor.hpp>
#include <asuka/lio/extrinsic_check.hpp>
#include <asuka/lio/filter_frontend_params.hpp>
#include <asuka/lio/frontend_output.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/lidar_odometry.hpp>
#include <asuka/lio/map_record.hpp>
#include <asuka/lio/nav_state.hpp>
#include <asuka/lio/plane_cache.hpp>
#include <asuka/lio/point_map.hpp>
#include <asuka/lio/rest_detector.hpp>
#include <asuka/lio/scan_synchronizer.hpp>
#include <asuka/lio/visual_synchronizer.hpp>
#include <asuka/lio/voxel_map.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/util/thread_cpu_time.hpp>
#include <asuka/util/warning_counter.hpp>

namespace asuka::lio {

/// Fewer plane matches than this in a scan: the scan does not constrain the pose, the IMU carries it.
constexpr std::size_t kMinPlaneMatches = 30;

template <class State, class Map = VoxelMap, class Sync = ScanSynchronizer>
class FilterFrontend : public OdometryEstimation {
  static_assert(std::is_base_of_v<NavState, State>, "the filter state extends lio::NavState");
  static_assert(is_point_map_v<Map>, "Map must be a point map (asuka/lio/point_map.hpp)");
  static_assert(std::is_base_of_v<ScanPackage, typename Sync::Package>, "a package is a ScanPackage (and more)");

public:
  using Covariance = Eigen::Matrix<double, State::kDim, State::kDim>;
  using Package = typename Sync::Package;

  void insert_imu(const ImuData& imu) final { sync_.push_imu(imu); }
  void insert_frame(const LidarFrame::ConstPtr& frame) final { sync_.push_frame(frame); }
  void insert_image(const Image::ConstPtr& image) final {
    if constexpr (Sync::kUsesImages) sync_.push_image(image);
  }
  bool uses_images() const override { return Sync::kUsesImages; }
  int workload() const final { return sync_.ready(); }
  bool ok() const final { return ok_; }
  CloudPreprocessor::Ptr cloud_preprocessor() const final { return preprocessor_; }
  ImuInitialization::Ptr imu_initialization() const final { return initializer_; }
  /// map.pcd: the run's map record with intensity (map_record.hpp), or with output.map_record_max_points
  /// 0 the local map as it is now, without intensity.
  bool save_map(const std::string& path) override {
    if (!record_.enabled()) return save_map_pcd(map_.points(), {}, path, *logger_);
    std::vector<Eigen::Vector3f> points;
    std::vector<float> intensity;
    record_.copy_to(points, intensity);
    logger_->info("map.pcd: the run's map record, {} points in {:.1f} MB", record_.size(), static_cast<double>(record_.memory_bytes()) / (1024.0 * 1024.0));
    return save_map_pcd(points, intensity, path, *logger_);
  }
  /// The local map the frontend registers against (the periodic map topic).
  bool map_points(std::vector<Eigen::Vector3f>& points) const override {
    points = map_.points();
    return true;
  }

  /// Drops everything and starts again from IMU initialization, with the configuration re-applied
  /// (R-IMU-4).
  void reset() final {
    initializer_->configure(common_.initializer_params());
    initializer_->reset();
    sync_.clear();
    sync_.collect_imu_history(true);  // R-IMU-2
    new_map();
    record_full_warned_ = false;
    initialized_ = false;
    first_scan_ = true;
    moving_start_scans_ = 0;
    settle_scans_ = 0;
    ok_ = true;
    t_ = 0.0;
    frame_id_ = 0;
    stale_.reset();
    few_matches_.reset();
    extrinsic_check_.reset();
    start_odometry_.reset();
    start_hold_scans_ = 0;
    held_imu_.clear();
    start_scans_ = 0;
    start_previous_end_ = 0.0;
    resting_ = false;
    held_scans_ = 0;
    motion_began_ = -1.0;
    reset_filter();
  }

  bool process_once() final {
    Package package;
    if (!sync_.pop(package)) return false;
    scan_start_ = std::chrono::steady_clock::now();
    scan_start_cpu_ = thread_cpu_seconds();
    if (!ok_) return true;  // failed: consume input, estimate nothing (a NaN state must not reach the map)
    if (!initialized_) {
      initialize(package);
      return true;  // R-IMU-1: frames during initialization are consumed without output
    }
    // Older than the state (frames out of order, or a loop back): skipped, not registered.
    if (is_stale(package, t_, stale_, *logger_)) return true;
    // #17: still at rest since a static start (rest_detector.hpp)?
    const bool at_rest = resting_ && rest_.still(package.imu, t_);
    if (resting_ && !at_rest) {
      resting_ = false;
      motion_began_ = package.end;
      logger_->info("motion began in the scan ending at {:.6f}; the state was held at rest over the {} scans before it", package.end, held_scans_);
    }
    ScanOutput out;
    // The first scan builds the map; nothing to register it against. At rest (#17) the pose is known,
    // so the scan is not registered either: it joins the map from the rest pose (hold_at_rest),
    // unless the frontend registers at rest (registers_at_rest).
    const bool hold_pose = at_rest && !registers_at_rest();
    estimate(package, !first_scan_ && !hold_pose, out);
    first_scan_ = false;
    if (at_rest) hold_at_rest(hold_pose);
    // #16: the extrinsic rotation against the motion, over the first scans until it has seen enough
    // rotation (then it costs nothing).
    std::shared_ptr<const ExtrinsicRotationCheck> extrinsic_verdict;
    if (!extrinsic_check_.done()) {
      if (auto verdict = extrinsic_check_.add(*package.frame, package.imu, common_.T_imu_lidar.linear(), at_rest)) {
        log_extrinsic_verdict(*verdict);
        extrinsic_verdict = std::make_shared<const ExtrinsicRotationCheck>(std::move(*verdict));
      }
    }
    if (x_.diverged() || !P_.allFinite()) {
      logger_->error("the state diverged at {:.6f} (|v| = {:.1f} m/s); reporting failure", package.end, x_.v.norm());
      ok_ = false;
      return true;
    }
    // A moving start (#12 item 1): the first scans were de-skewed with a velocity the filter did not
    // know yet, so the map they built is smeared along the motion. Once the LiDAR registrations have
    // measured the velocity, the map starts again from the next scan, at the state reached.
    if (settle_scans_ > 0) --settle_scans_;
    if (moving_start_scans_ > 0 && --moving_start_scans_ == 0) {
      settle_scans_ = kMovingStartSettleScans;
      new_map();
      first_scan_ = true;
      logger_->info("moving start: the map is rebuilt from the scan after {:.6f}, with the velocity the first scans measured ({:.2f} m/s)", package.end,
                    x_.v.norm());
      out.points_world.clear();
    }
    // The scan joins the map after it is registered, so its points are not matched against each other.
    // What the map keeps joins the run's record with its intensity.
    if (record_.enabled()) {
      kept_.clear();
      map_.insert(out.points_world, &kept_);
      if (!record_.add(out.points_world, out.intensity, kept_) && !record_full_warned_) {
        record_full_warned_ = true;
        logger_->warn("map.pcd's record of the run is full at {} points ({:.0f} MB; output.map_record_max_points): from {:.6f} on, map.pcd "
                      "takes no new regions (output.map_record_voxel_size larger, or the limit higher, records more)",
                      record_.size(), static_cast<double>(record_.memory_bytes()) / (1024.0 * 1024.0), package.end);
      }
    } else {
      map_.insert(out.points_world);
    }
    if (frame_id_ % 10 == 0) map_.remove_outside(x_.p);
    plane_cache_.remove_expired();
    const ScanEstimate estimate{x_.R, x_.p, x_.v, x_.bg, x_.ba, x_.g, P_.template topLeftCorner<6, 6>(), T_imu_lidar()};
    // The CPU span inside the wall span (read after the wall clock at the start, before it here).
    const double cpu_seconds = thread_cpu_seconds() - scan_start_cpu_;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start_).count();
    auto frame = make_estimation_frame(frame_id_++, package, estimate, out.points_imu, out.intensity, seconds);
    frame->localizability = out.localizability;
    frame->map_points = map_.size();
    frame->processing_cpu_seconds = cpu_seconds;
    frame->extrinsic_check = std::move(extrinsic_verdict);
    if (!out.dense_imu.empty()) frame->points_dense_imu = std::make_shared<const std::vector<Point>>(std::move(out.dense_imu));
    if (!out.colours.empty()) frame->point_colours = std::make_shared<const std::vector<std::array<std::uint8_t, 4>>>(std::move(out.colours));
    OdometryCallbacks::on_new_frame(frame);
    return true;
  }

  const State& state() const { return x_; }
  const Covariance& covariance() const { return P_; }
  const FilterFrontendParams& common_params() const { return common_; }

protected:
  /// What a scan leaves behind: its registered points in the world (for the map) and in the IMU
  /// frame at the scan end (for on_new_frame).
  struct ScanOutput {
    std::vector<Eigen::Vector3f> points_world;
    std::vector<Eigen::Vector3d> points_imu;
    std::vector<float> intensity;                      ///< per points_imu entry, or empty
    std::vector<Point> dense_imu;                      ///< #16 output.dense_scan: every preprocessed point de-skewed, IMU frame, or empty
    std::vector<std::array<std::uint8_t, 4>> colours;  ///< a visual frontend's, per points_imu entry, or empty
    std::optional<Localizability> localizability;      ///< #21: the LiDAR update's, when the scan was registered
  };

  /// #17: after a scan while the sensor is still at rest as at a static start, rest is measured
  /// instead of the LiDAR: the pseudo-measurements v = 0, p = the rest position and R = the rest
  /// attitude (standard deviations kRestVelocityStd, kRestPositionStd, kRestRotationStd), one Kalman
  /// update of the error state, as an INS makes at rest (zero-velocity and zero-rate updates; the
  /// rate one also estimates the gyroscope's bias). Over a static start a sparse lidar's one-scan map
  /// often holds no plane, and the IMU's bias moved the state; where it holds planes, registering
  /// the scans moved it too: an Avia facing trunks crept forward, 7 cm over a 3 s forest start (a
  /// plane fitted to a curved patch sits inside it), with the map following it, since every scan at
  /// rest adds points to the map. Now the pose stays where the map began, and the scans add to the
  /// map from where they were taken (a Livox fills its field of view at rest). `hold_pose` false (the
  /// scan was registered, registers_at_rest): v = 0 only.
  void hold_at_rest(bool hold_pose) {
    ++held_scans_;
    if (!hold_pose) {  // the velocity only: the scan was registered
      pseudo_update<3>(NavState::kVel, -x_.v, Eigen::Vector3d::Constant(kRestVelocityStd * kRestVelocityStd));
      return;
    }
    static_assert(NavState::kPos == NavState::kRot + 3 && NavState::kVel == NavState::kRot + 6, "rotation, position and velocity are one block");
    Eigen::Matrix<double, 9, 1> r, variance;
    r << so3::log(x_.R.transpose() * rest_R_), rest_p_ - x_.p, -x_.v;
    variance << Eigen::Vector3d::Constant(kRestRotationStd * kRestRotationStd), Eigen::Vector3d::Constant(kRestPositionStd * kRestPositionStd),
        Eigen::Vector3d::Constant(kRestVelocityStd * kRestVelocityStd);
    pseudo_update<9>(NavState::kRot, r, variance);
  }

  /// One Kalman update of the error state by a direct measurement of its `m` components from `first`
  /// (H = [0 I 0]): residual `r`, measurement variances `variance`.
  template <int m>
  void pseudo_update(int first, const Eigen::Matrix<double, m, 1>& r, const Eigen::Matrix<double, m, 1>& variance) {
    const Eigen::Matrix<double, State::kDim, m> PHt = P_.template middleCols<m>(first);
    Eigen::Matrix<double, m, m> S = PHt.template middleRows<m>(first);
    S.diagonal() += variance;
    const Eigen::Matrix<double, State::kDim, m> K = PHt * S.ldlt().solve(Eigen::Matrix<double, m, m>::Identity());
    const typename State::Tangent dx = K * r;
    x_ = x_.plus(dx);
    P_ -= K * PHt.transpose();
    P_ = 0.5 * (P_ + P_.transpose()).eval();
  }

  /// Whether a scan at rest is still registered (then only the velocity is held, as before #17's
  /// pose hold): a frontend that uses images (its photometric update estimates the exposure from the
  /// first images), and one that estimates the extrinsic online (the map pins the lidar's pose, not
  /// the IMU's, and registration at rest correlates the two; holding the IMU's pose took fastlio's
  /// online estimate from 7 to 46 mm off in FastlioTest.OnlineExtrinsicEstimationRecoversAWrongExtrinsic).
  virtual bool registers_at_rest() const { return this->uses_images(); }

  /// `name` names the logger ("fastlio"); `map_params` build the map at every reset.
  /// The ScanSynchronizer with the common end rule.
  FilterFrontend(const FilterFrontendParams& common, const std::string& name, const typename Map::Params& map_params)
  : FilterFrontend(common, name, map_params, Sync(common.end_rule, module_logger(name))) {}
  /// Any synchronizer, built by the frontend (a visual one with its own parameters).
  FilterFrontend(const FilterFrontendParams& common, const std::string& name, const typename Map::Params& map_params, Sync sync)
  : common_(common),
    map_params_(map_params),
    logger_(module_logger(name)),
    preprocessor_(std::make_shared<DefaultCloudPreprocessor>(common.preprocess)),
    initializer_(std::make_shared<ImuInitializer>(common.initializer_params())),
    sync_(std::move(sync)),
    map_(map_params),
    plane_cache_(common.plane_cache_params()),
    record_(common.map_record_voxel_size, static_cast<std::size_t>(common.map_record_max_points)),
    extrinsic_check_(extrinsic_check_params(common)),
    start_odometry_(start_odometry_params()) {}

  /// The frontend's own state back to before initialization (called by reset(), also from the
  /// frontend's constructor).
  virtual void reset_filter() = 0;
  /// The IMU initializer has finished with `package`: set x_ (and P_) from it. t_ is package.end.
  virtual void start(const Package& package) = 0;
  /// One scan from t_ to package.end: propagate, de-skew, update (only when `register_scan`; the
  /// first scan after initialization has no map to register against). Leaves x_, P_ and t_ at the
  /// scan end and fills `out`.
  virtual void estimate(const Package& package, bool register_scan, ScanOutput& out) = 0;
  /// True from a moving start (#12) until kMovingStartSettleScans scans after its map was rebuilt:
  /// the map is a few scans old and the velocity still being measured.
  bool moving_start_settling() const { return moving_start_scans_ > 0 || settle_scans_ > 0; }
  /// True for mapping.rest_map_seconds after the motion that ended a static start's rest hold, at
  /// time `t`: the map is still mostly the rest scans, which a spinning lidar leaves as its rings.
  /// Planes fitted across them in the wide reach tilt the scan (#17), and a degenerate scan's planes
  /// are weighted down (#21, ieskf_frontend.hpp).
  bool map_of_rest(double t) const { return motion_began_ >= 0.0 && t - motion_began_ < common_.rest_map_seconds; }
  /// The lidar-IMU extrinsic in use (the configured one unless the frontend estimates it).
  virtual Eigen::Isometry3d T_imu_lidar() const { return common_.T_imu_lidar; }

  /// Warns about a scan with fewer than kMinPlaneMatches plane matches (the first three, then every
  /// 100th) and returns whether it was one.
  bool few_plane_matches(std::size_t matches, double end) {
    if (matches >= kMinPlaneMatches) return false;
    if (few_matches_.add()) {
      logger_->warn("only {} points matched map planes in the scan ending at {:.6f} ({} such scans so far); the IMU prediction carries the state",
                    matches, end, few_matches_.count());
    }
    return true;
  }

  std::chrono::steady_clock::time_point scan_start() const { return scan_start_; }

  const FilterFrontendParams common_;
  const typename Map::Params map_params_;
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<DefaultCloudPreprocessor> preprocessor_;
  std::shared_ptr<ImuInitializer> initializer_;
  Sync sync_;
  Map map_;
  PlaneCache plane_cache_;  ///< #14: planes of map_ kept per cell for a few scans (off unless mapping.plane_cache_cell > 0)
  State x_;
  Covariance P_ = Covariance::Identity();
  double t_ = 0.0;  ///< [s] time of x_

private:
  /// The map starts again empty (a reset, a moving start's rebuild), and with it what is kept of it.
  void new_map() {
    map_ = Map(map_params_);
    plane_cache_.clear();
    record_.clear();
  }

  static LidarOdometryParams start_odometry_params() {
    LidarOdometryParams p;
    p.unknown_motion_max_residual = 1.5;  // up to about 1 m per scan: 10 m/s at 10 Hz
    p.map.voxel_size = 1.0;
    p.map.min_point_distance = 0.1;
    p.map_insert_voxel_size = 0.1;
    p.registration.association.search_distance = 3.0;
    p.registration.association.knn_wide = 20;
    return p;
  }
  static ExtrinsicCheckParams extrinsic_check_params(const FilterFrontendParams& common) {
    ExtrinsicCheckParams p;
    p.enabled = common.extrinsic_check;
    return p;
  }

  void log_extrinsic_verdict(const ExtrinsicRotationCheck& verdict) {
    using Verdict = ExtrinsicRotationCheck::Verdict;
    if (verdict.verdict == Verdict::WRONG || verdict.verdict == Verdict::GYRO_SCALE) {
      logger_->error("{}", verdict.message);
    } else if (verdict.verdict == Verdict::SUSPECT || verdict.verdict == Verdict::GYRO_SCALE_SUSPECT) {
      logger_->warn("{}", verdict.message);
    } else {
      logger_->info("{}", verdict.message);
    }
  }

  void initialize(const Package& package) {
    // #12: the LiDAR alone follows the motion over the initialization's scans (below).
    // When the sensor turns (a mean rate above ImuInitializer::kMovingGyroMean), the gyroscope's
    // rotation over the package, in the LiDAR frame, predicts the scan's rotation and de-skews it:
    // constant velocity alone measured 11-14 m/s on hand-held starts swung at 4.4 m/s, with the
    // gyroscope 4.3-4.5 m/s. Below it the unknown bias is a larger part of the rate (a vehicle's
    // start measured 5.43 against 5.53 m/s, and ended 10 cm off instead of 0.6 cm), so not.
    // The rotation is the one since the previous scan's end; on the first scan, over its own sweep
    // (the first package holds every IMU sample before it: a second or more when the IMU ran first).
    // Also with lidar_start_velocity false: the filter then starts at rest, and the measurement only
    // names a start the IMU could not see (start_at_lidar_velocity).
    {
      const double from = start_scans_ > 0 ? start_previous_end_ : package.begin;
      ++start_scans_;
      start_previous_end_ = package.end;
      auto first = std::find_if(package.imu.begin(), package.imu.end(), [from](const ImuData& s) { return s.stamp >= from; });
      const auto n = std::distance(first, package.imu.end());
      Eigen::Vector3d rate_sum = Eigen::Vector3d::Zero();
      for (auto it = first; it != package.imu.end(); ++it) rate_sum += it->gyro;
      if (n >= 2 && rate_sum.norm() > ImuInitializer::kMovingGyroMean * static_cast<double>(n)) {
        Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
        for (auto it = std::next(first); it != package.imu.end(); ++it) R = R * so3::exp(std::prev(it)->gyro * (it->stamp - std::prev(it)->stamp));
        const Eigen::Matrix3d R_lidar = common_.T_imu_lidar.linear().transpose() * R * common_.T_imu_lidar.linear();
        start_odometry_.add(*package.frame, &R_lidar, package.imu.back().stamp - first->stamp);
      } else {
        start_odometry_.add(*package.frame);
      }
    }
    // R-IMU-2: the synchronizer's full history is preferred to this package.
    if (!initializer_->process(package.imu, sync_.imu_history())) return;
    sync_.collect_imu_history(false);
    // When the IMU history alone was enough (the IMU ran before the LiDAR), initialization ends on
    // its first scan: the start waits for a scan interval the LiDAR can measure the velocity over
    // (start_at_lidar_velocity), up to kMaxStartHoldScans scans. Their IMU samples go to start().
    if (common_.lidar_start_velocity && start_hold_scans_ < kMaxStartHoldScans && !start_odometry_.has_motion()) {
      if (start_hold_scans_++ == 0) {
        logger_->info("IMU initialized on the first scan (its history already held enough samples); the filter starts after up to {} more scans, "
                      "once the LiDAR has measured the velocity over a scan interval",
                      kMaxStartHoldScans);
      }
      held_imu_.insert(held_imu_.end(), package.imu.begin(), package.imu.end());
      return;
    }
    t_ = package.end;
    if (held_imu_.empty()) {
      start(package);
    } else {
      Package joined = package;  // the rotation from a moving start's samples on to package.end
      joined.imu.insert(joined.imu.begin(), held_imu_.begin(), held_imu_.end());
      start(joined);
      held_imu_.clear();
    }
    initialized_ = true;
    start_at_lidar_velocity(package.end, initializer_->moving());
    start_odometry_.reset();
    // #17: a static start (neither the IMU nor the LiDAR saw motion) is held until the IMU shows motion.
    // Without an IMU there is no rest to see, and nothing to hold against.
    resting_ = common_.hold_at_rest && initializer_->params().imu_enabled && initializer_->count() >= 2 && !initializer_->moving() &&
               x_.v.squaredNorm() == 0.0;
    if (resting_) {
      rest_.start(initializer_->get_mean_acceleration(), initializer_->get_mean_gyroscope(), initializer_->acc_std(), initializer_->gyro_std());
      rest_R_ = x_.R;
      rest_p_ = x_.p;
    }
    moving_start_scans_ = initializer_->moving() ? kMovingStartRebuildScans : 0;
    if (initializer_->moving()) {
      // #12 item 1: the frontend's start() initialized from motion (gravity from the gyro-compensated
      // mean, bias and velocity left to the filter); say so, since a start at rest is better.
      logger_->warn("the sensor was moving during IMU initialization (over {} samples up to {:.6f}: gyro spread {:.3f} rad/s, acc spread {:.3f} m/s^2, "
                    "mean rate {:.3f} rad/s; at rest these stay below {}, {} and {}): initialized from motion, with gravity from the "
                    "gyro-compensated mean acceleration and the gyro bias and velocity left to the filter. Accuracy is best when a "
                    "recording starts with 1-2 s at rest",
                    initializer_->count(), package.end, initializer_->gyro_std(), initializer_->acc_std(), initializer_->get_mean_gyroscope().norm(),
                    ImuInitializer::kMovingGyroStd, ImuInitializer::kMovingAccStd, ImuInitializer::kMovingGyroMean);
    }
    logger_->info("IMU initialized from {} samples: mean |acc| {:.4f} m/s^2, gyro bias ({:.5f}, {:.5f}, {:.5f}) rad/s{}", initializer_->count(),
                  initializer_->get_mean_acceleration().norm(), x_.bg.x(), x_.bg.y(), x_.bg.z(), initializer_->moving() ? " (moving start)" : "");
  }

  /// #12: a recording that starts while the sensor moves at constant velocity (a vehicle already
  /// driving) reads as at rest to the IMU, so the filter would start at v = 0 and its first
  /// registration be off by the whole motion of a scan (0.55 m at 5.5 m/s), past the association
  /// gates: metres of error. The scans consumed during initialization, registered against each other
  /// by the LiDAR alone (lidar_odometry.hpp), show that motion; when they show a speed above
  /// kLidarStartSpeed the filter starts at that velocity, with the prior kLidarStartVelocityStd.
  /// (When the IMU history alone was enough, initialize() waits for that interval.) On a moving start the IMU
  /// sees (`moving`), the velocity is otherwise unknown (moving_start_prior): the LiDAR's is used at
  /// any speed, with kMovingLidarStartVelocityStd, along the directions it measured.
  void start_at_lidar_velocity(double end, bool moving) {
    Eigen::Isometry3d motion;
    double dt = 0.0;
    Eigen::Vector3d share;
    Eigen::Matrix3d directions;
    if (!start_odometry_.last_motion(motion, dt, share, directions)) return;
    // Only along directions the registration constrained: in a corridor the LiDAR alone slides along
    // the axis, and that velocity would be made up.
    Eigen::Vector3d v_lidar = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) {
      if (share[i] >= kLidarStartMinShare) v_lidar += directions.col(i) * directions.col(i).dot(motion.translation() / dt);
    }
    // `motion` is in the earlier scan's frame; x_.R is the IMU's at the later one's end.
    const Eigen::Matrix3d to_world = x_.R * common_.T_imu_lidar.linear() * motion.linear().transpose();
    const Eigen::Vector3d v_world = to_world * v_lidar;
    if (!common_.lidar_start_velocity) {
      // The user asked for a start at rest; one the LiDAR saw moving is named, with the setting, before
      // the run drifts by the motion it missed (the start check, ieskf_frontend.hpp, sees it only if
      // the first registrations happen to correct the velocity: 0.13 m/s of 5.4 on a VLP-16 drive).
      if (!moving && v_world.norm() >= kLidarStartSpeed) {
        logger_->warn("the LiDAR alone measured {:.2f} m/s over the last {:.3f} s while the IMU initialized (up to {:.6f}), though the IMU read as "
                      "at rest: the sensor was most likely already moving at constant velocity. {}.lidar_start_velocity is false, so the filter "
                      "starts at rest and the run will be off by the motion it missed: set it true (the default) to start at the LiDAR's velocity",
                      v_world.norm(), dt, end, common_.imu_section);
      }
      return;
    }
    warn_unmeasured_start_directions(share, to_world * directions, moving);
    if (!moving && v_world.norm() < kLidarStartSpeed) return;
    x_.v = v_world;
    // The measured directions get the LiDAR's prior; the others keep the start's (at rest, or a moving
    // start's unknown velocity).
    const double kept = P_(NavState::kVel, NavState::kVel);
    Eigen::Matrix3d P_vel = kept * Eigen::Matrix3d::Identity();
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d e = to_world * directions.col(i);
      const double sigma = moving ? kMovingLidarStartVelocityStd : kLidarStartVelocityStd;
      if (share[i] >= kLidarStartMinShare) P_vel += (sigma * sigma - kept) * e * e.transpose();
    }
    P_.template block<3, 3>(NavState::kVel, NavState::kVel) = P_vel;
    if (moving) {
      logger_->info("moving start: the filter starts at the velocity the LiDAR alone measured over the last {:.3f} s: {:.2f} m/s", dt, v_world.norm());
      return;
    }
    logger_->warn("the sensor was moving at {:.2f} m/s while the IMU initialized (up to {:.6f}), as the LiDAR alone measured over the last {:.3f} s, "
                  "though the IMU read as at rest (at constant velocity it does): the filter starts at that velocity. Accuracy is best when a "
                  "recording starts with 1-2 s at rest ({}.lidar_start_velocity false starts at rest)",
                  v_world.norm(), end, dt, common_.imu_section);
  }
  /// A direction the initialization's scans do not constrain (a corridor's or tunnel's axis, an open
  /// field's plane): neither the IMU nor the LiDAR can tell whether the sensor was moving along it at
  /// the start, so the user is told which, once.
  void warn_unmeasured_start_directions(const Eigen::Vector3d& share, const Eigen::Matrix3d& directions_world, bool moving) {
    std::string unmeasured;
    for (int i = 0; i < 3; ++i) {
      if (share[i] >= kLidarStartMinShare) continue;
      Eigen::Vector3d d = directions_world.col(i);
      Eigen::Index largest = 0;
      d.cwiseAbs().maxCoeff(&largest);
      if (d[largest] < 0.0) d = -d;  // the sign is arbitrary: its largest component positive
      for (int k = 0; k < 3; ++k) d[k] = std::round(d[k] * 100.0) / 100.0 + 0.0;  // printed without "-0.00"
      unmeasured += fmt::format("{}({:.2f}, {:.2f}, {:.2f})", unmeasured.empty() ? "" : " and ", d.x(), d.y(), d.z());
    }
    if (unmeasured.empty()) return;
    logger_->warn("the LiDAR could not measure the start velocity along world {}: the initialization's scans do not constrain it (a corridor or "
                  "tunnel axis, an open field), and an IMU cannot tell rest from constant velocity. {} If the recording started moving along it, "
                  "the trajectory along it is off by the distance covered; start recordings at rest",
                  unmeasured, moving ? "The velocity along it is left to the filter (the IMU saw motion)." : "The filter starts at rest along it.");
  }

  static constexpr double kLidarStartSpeed = 0.5;        ///< [m/s] slower: at rest as the IMU says (the LiDAR's own noise is below 0.1)
  static constexpr double kLidarStartVelocityStd = 0.3;  ///< [m/s] the prior on the LiDAR's velocity
  static constexpr double kMovingLidarStartVelocityStd = 0.5;  ///< [m/s] the same on a moving start (the interval's mean, under acceleration)
  static constexpr double kLidarStartMinShare = 0.02;    ///< a direction is measured when this share of the residuals constrains it (corridor axis 0.002; streets and rooms 0.05 and more)

  bool initialized_ = false;
  bool first_scan_ = true;
  /// Scans until the map is rebuilt after a moving start (0: not moving, or done).
  static constexpr int kMovingStartRebuildScans = 5;
  int moving_start_scans_ = 0;
  static constexpr int kMovingStartSettleScans = 10;  ///< after the rebuild (moving_start_settling)
  int settle_scans_ = 0;
  bool ok_ = true;
  std::uint64_t frame_id_ = 0;
  WarningCounter stale_;
  WarningCounter few_matches_;
  MapRecord record_;                  ///< #16 map.pcd: what the map kept over the run, with intensity
  std::vector<std::uint32_t> kept_;   ///< the current scan's points the map kept (reused)
  bool record_full_warned_ = false;
  ExtrinsicCheck extrinsic_check_;
  LidarOdometry start_odometry_;  ///< #12: over the initialization's scans only (start_at_lidar_velocity)
  static constexpr int kMaxStartHoldScans = 2;  ///< scans a start may wait for the LiDAR's velocity (initialize)
  int start_hold_scans_ = 0;
  std::vector<ImuData> held_imu_;  ///< the IMU samples of the scans the start waited for
  int start_scans_ = 0;             ///< scans start_odometry_ was given
  double start_previous_end_ = 0.0; ///< [s] the end of the last of them
  bool resting_ = false;          ///< #17: at rest since a static start (hold_at_rest)
  Eigen::Matrix3d rest_R_ = Eigen::Matrix3d::Identity();  ///< the attitude and position held at rest
  Eigen::Vector3d rest_p_ = Eigen::Vector3d::Zero();
  RestDetector rest_;
  static constexpr double kRestVelocityStd = 0.005;  ///< [m/s] the zero-velocity pseudo-measurement's standard deviation
  static constexpr double kRestPositionStd = 0.001;  ///< [m] the rest position's, per scan
  static constexpr double kRestRotationStd = 0.0005; ///< [rad] the rest attitude's, per scan
  std::uint64_t held_scans_ = 0;
  double motion_began_ = -1.0;  ///< [s] the end of the scan in which a static start's rest hold ended (< 0: none)
  std::chrono::steady_clock::time_point scan_start_;
  double scan_start_cpu_ = 0.0;  ///< [s] thread_cpu_seconds() at scan_start_
};

}  // namespace asuka::lio
