#include "batchlio.hpp"

#include <algorithm>
#include <cmath>

#include <asuka/core/callbacks.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>

namespace asuka::batchlio {

namespace {
constexpr int kOmega = State::kOmega, kAcc = State::kAcc;

/// Exp(phi) p, by the series to second order (p + phi x p + phi x (phi x p) / 2) when |phi| < 1e-2
/// rad (error below 2e-7 of |p|, far under a point's noise; a 1 ms window turns a few milliradians)
/// and exactly otherwise.
Eigen::Vector3d rotate_small(const Eigen::Vector3d& phi, const Eigen::Vector3d& p) {
  if (phi.squaredNorm() >= 1e-4) return so3::exp(phi) * p;
  const Eigen::Vector3d c = phi.cross(p);
  return p + c + 0.5 * phi.cross(c);
}
}  // namespace

BatchLio::BatchLio(const BatchlioParams& params) : FilterFrontend(params.common, "batchlio", params.common.map_params()), params_(params) {
  reset();
}

void BatchLio::reset_filter() {
  x_ = State();
  x_.g = Eigen::Vector3d(0, 0, -common_.gravity);
  P_.setZero();
  windows_ = 0;
  latch_.reset();
  saturated_samples_ = 0;
  next_saturation_warning_ = 1;
}

void BatchLio::start(const lio::ScanPackage& package) {
  x_ = State();
  const bool moving = initializer_->moving();  // #12 item 1: a moving start (lio::moving_start_prior)
  x_.R = moving ? initializer_->rotation_from_motion(package.imu, package.end) : initializer_->rotation();
  x_.g = Eigen::Vector3d(0, 0, -common_.gravity);
  x_.bg = moving ? Eigen::Vector3d::Zero() : initializer_->gyro_bias();
  x_.omega.setZero();
  // At rest the ideal accelerometer reads -g in the IMU frame. What the mean differs by is left to
  // the first IMU updates to split between the specific force and the (zero-mean) accel bias.
  x_.acc = -(x_.R.transpose() * x_.g);
  P_.setZero();
  lio::NavPrior prior;
  prior.ba = 1e-2;  // the specific force and the accel bias share what the mean at rest leaves
  lio::set_prior(P_, moving ? lio::moving_start_prior() : prior);
  // #21: as the IEKF frontends (ieskf_frontend.hpp), a static start's horizontal accel bias sits in
  // the world as a tilt of gravity. Only with the projection: without it the axis of a degenerate scene
  // gets spurious information either way, and the coupling measured mixed there (docs/degeneracy.md).
  if (!moving && common_.degeneracy_projection) lio::couple_gravity_to_accel_bias(P_, x_.R, prior);
  // Moving: the rate and specific force are whatever the motion makes them; the first IMU samples say.
  P_.block<3, 3>(kOmega, kOmega).diagonal().setConstant(moving ? 1.0 : 1e-3);
  P_.block<3, 3>(kAcc, kAcc).diagonal().setConstant(moving ? 10.0 : 1e-1);
}

void BatchLio::imu_measurement(const ImuData& imu) {
  propagate(x_, P_, t_, imu.stamp, params_);
  if (!update_imu(x_, P_, imu, params_)) ++saturated_samples_;
}

void BatchLio::process_window(const std::vector<Timed>& points, std::size_t begin, std::size_t end, const ScanPass& pass,
                              std::vector<Eigen::Vector3f>& world) {
  const double t_end = std::max(points[end - 1].t, t_);
  propagate(x_, P_, t_, t_end, params_);
  // The window's points at its end, moved with the filter's own velocities (batch_deskew): over
  // dt = t_i - t_end <= 0 the body turned by Exp(omega dt) and moved by R^T v dt.
  std::vector<Eigen::Vector3d>& at_end = window_at_end_;
  at_end.clear();
  const Eigen::Vector3d v_body = x_.R.transpose() * x_.v;
  const Eigen::Vector3d omega = x_.omega;
  for (std::size_t i = begin; i < end; ++i) {
    const double dt = points[i].t - t_end;
    if (params_.batch_deskew && dt < 0.0) {
      at_end.push_back(rotate_small(omega * dt, points[i].p_imu) + v_body * dt);
    } else {
      at_end.push_back(points[i].p_imu);
    }
  }
  if (pass.lidar) {
    // #17: in the pass again of a scan found degenerate, thin fits get the wide reach
    // (plane_association.hpp), as the filter frontends' iterated update gives it.
    lio::PlaneAssociationParams association = common_.association_params();
    association.wide_reach = pass.wide_reach;
    h_.clear();
    r_.clear();
    for (const auto& q : at_end) {
      const Eigen::Vector3d pw = x_.R * q + x_.p;
      lio::Plane plane;
      if (!lio::find_plane(map_, pw, association, neighbors_, plane)) continue;
      const double r = plane.normal.dot(pw) + plane.d;
      if (!lio::accept_residual(r, q.norm(), common_.max_residual)) continue;
      Eigen::Matrix<double, 1, 6> row;
      row.head<3>() = q.cross(x_.R.transpose() * plane.normal).transpose();  // = -n^T R [q]x
      row.tail<3>() = plane.normal.transpose();
      // #21: the scan's information with the rotation in world axes (h_rot R^T), for the decision at
      // its end.
      Eigen::Matrix<double, 1, 6> row_world = row;
      row_world.head<3>() = row.head<3>() * x_.R.transpose();
      scan_information_.add(row_world, q);
      h_.push_back(row);
      r_.push_back(r);
    }
    // #21: the scan's unconstrained directions (as its earlier pass found them) get no information.
    if (pass.project != nullptr) {
      const lio::Matrix6d Pi = lio::constrained_projector(*pass.project, x_.R);
      for (auto& row : h_) row = row * Pi;
    }
    update_planes(x_, P_, h_, r_, common_.measurement_std * common_.measurement_std, params_.batch_dt <= 0.0);
    scan_matches_ += h_.size();
  }
  for (const auto& q : at_end) world.push_back((x_.R * q + x_.p).cast<float>());
  if (common_.dense_scan) window_poses_.push_back(WindowPose{t_end, x_.R, x_.p, omega, v_body});  // the velocities the points moved with
  ++windows_;
  HighRatePose pose;
  pose.stamp = t_end;
  pose.T_world_imu.linear() = x_.R;
  pose.T_world_imu.translation() = x_.p;
  pose.v_world = x_.v;
  pose.omega_imu = x_.omega;
  window_outputs_.push_back(pose);
}

void BatchLio::run_scan(const std::vector<Timed>& points, const lio::ScanPackage& package, const ScanPass& pass, std::vector<Eigen::Vector3f>& world) {
  scan_matches_ = 0;
  scan_information_.clear();
  window_poses_.clear();
  window_outputs_.clear();
  world.clear();
  world.reserve(points.size());
  std::size_t imu_index = 0;
  std::size_t i = 0;
  while (i < points.size()) {
    // A window: the points within batch_dt of its first; batch_dt = 0: one point.
    std::size_t j = i + 1;
    if (params_.batch_dt > 0.0) {
      while (j < points.size() && points[j].t - points[i].t <= params_.batch_dt) ++j;
    }
    // IMU samples up to the window's end come first: each is a measurement at its own time.
    for (; imu_index < package.imu.size() && package.imu[imu_index].stamp <= points[j - 1].t; ++imu_index) {
      imu_measurement(package.imu[imu_index]);
    }
    process_window(points, i, j, pass, world);
    i = j;
  }
  for (; imu_index < package.imu.size(); ++imu_index) {
    imu_measurement(package.imu[imu_index]);
  }
  propagate(x_, P_, t_, package.end, params_);
  if (common_.dense_scan) window_poses_.push_back(WindowPose{package.end, x_.R, x_.p, x_.omega, x_.R.transpose() * x_.v});  // points after the last window's
}

void BatchLio::estimate(const lio::ScanPackage& package, bool register_scan, ScanOutput& out) {
  scan_end_ = package.end;
  // Down-sample, then take the points in time order (R-PRE-2 offsets; drivers need not sort them).
  const auto& raw = package.frame->points;
  const auto kept = lio::downsample_first_per_voxel(raw, common_.scan_voxel_size);
  std::vector<Timed> points;
  points.reserve(kept.size());
  for (const std::uint32_t index : kept) {
    const Point& pt = raw[index];
    points.push_back(Timed{common_.T_imu_lidar * Eigen::Vector3d(pt.x, pt.y, pt.z), package.begin + static_cast<double>(pt.offset_ms) * 1e-3, pt.intensity});
  }
  const auto by_time = [](const Timed& a, const Timed& b) { return a.t < b.t; };
  if (!std::is_sorted(points.begin(), points.end(), by_time)) std::stable_sort(points.begin(), points.end(), by_time);

  // #17, #21: a scan is decided as a whole, as the iterated filters decide theirs, though batchlio
  // updates window by window. The first pass registers every window; when the scan as a whole
  // matched too few planes, or left directions unconstrained, the scan is run again from its start:
  // with the IMU alone; or with the wide reach, judged again, and then, if directions are still
  // unconstrained and the projection is on, with them left to the IMU. (Before, a scan of few
  // matches had already moved the state by them, 26 cm in a second of a VLP-16 hand-held start, and
  // the projection used the previous scan's directions.)
  const State x_start = x_;
  const Covariance P_start = P_;
  const double t_start = t_;
  const std::uint64_t saturated_start = saturated_samples_, windows_start = windows_;
  const auto again = [&](const ScanPass& pass) {
    x_ = x_start;
    P_ = P_start;
    t_ = t_start;
    saturated_samples_ = saturated_start;
    windows_ = windows_start;
    run_scan(points, package, pass, out.points_world);
  };
  run_scan(points, package, ScanPass{register_scan, false, nullptr}, out.points_world);
  if (register_scan) {
    if (few_plane_matches(scan_matches_, package.end)) {
      // A featureless or empty scan: the process model and the IMU carry the state through it (a
      // pass without a single match already did).
      if (scan_matches_ > 0) {
        const std::size_t matches = scan_matches_;
        again(ScanPass{false, false, nullptr});
        scan_matches_ = matches;
      }
    } else {
      // #21: the directions are in the world already (the rows' rotation was turned into it).
      const auto analyze = [&] { return lio::analyze_localizability(scan_information_, Eigen::Matrix3d::Identity(), common_.degeneracy_threshold); };
      Localizability loc = analyze();
      // #17: as the iterated filters, a degenerate scan is associated again with the wide reach and
      // judged again on what that found.
      const bool widen = common_.plane_wide_reach && loc.degenerate > 0;
      if (widen) {
        again(ScanPass{true, true, nullptr});
        loc = analyze();
      }
      // #21: the projected directions are held fixed while the scans find the same (a projector that
      // followed each scan's estimate, a few mrad apart from scan to scan, let the corridor's axis gain
      // information after all when batchlio projected the previous scan's directions: 8 seeds, ends
      // 4-10 m off where the IMU alone is 1.5-5 m off).
      if (common_.degeneracy_projection) latch_.apply(loc);
      const bool project = common_.degeneracy_projection && loc.degenerate > 0;  // as IeskfFrontend (#12)
      loc.settling = project && moving_start_settling();
      loc.projected = project && !loc.settling;
      if (loc.projected) again(ScanPass{true, widen, &loc});
      out.localizability = loc;
    }
  }
  // The windows' states, in time order and before the scan's frame, from the pass that stands. A
  // pose's latency: the wait for the frame's end, then the compute until it is emitted.
  const double computed = std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start()).count();
  for (HighRatePose& pose : window_outputs_) {
    pose.latency_seconds = (scan_end_ - pose.stamp) + computed;
    OdometryCallbacks::on_high_rate_pose(pose);
  }
  const std::vector<Eigen::Vector3f>& world = out.points_world;
  if (saturated_samples_ >= next_saturation_warning_) {
    logger_->warn("IMU samples at the end of the sensor's range so far: {} (those axes are not used; imu.satu_gyro {} rad/s, imu.satu_acc {} m/s^2)",
                  saturated_samples_, params_.satu_gyro, params_.satu_acc);
    next_saturation_warning_ = std::max<std::uint64_t>(10 * next_saturation_warning_, saturated_samples_ + 1);
  }

  out.points_imu.reserve(world.size());
  for (const auto& w : world) out.points_imu.push_back(x_.R.transpose() * (w.cast<double>() - x_.p));
  out.intensity.reserve(points.size());
  for (const auto& p : points) out.intensity.push_back(p.intensity);  // world holds the points in this order
  if (common_.dense_scan) dense_scan(package, out.dense_imu);
}

void BatchLio::dense_scan(const lio::ScanPackage& package, std::vector<Point>& out) const {
  const auto& raw = package.frame->points;
  out.resize(raw.size());
  const Eigen::Matrix3d R_end_t = x_.R.transpose();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const Point& pt = raw[i];
    const double t = package.begin + static_cast<double>(pt.offset_ms) * 1e-3;
    auto w = std::lower_bound(window_poses_.begin(), window_poses_.end(), t, [](const WindowPose& a, double time) { return a.t < time; });
    // Past the last window (a point after the package end): the scan end's state, which estimate()
    // added last, so the list is never empty.
    if (w == window_poses_.end()) --w;
    const Eigen::Vector3d p_imu = common_.T_imu_lidar * Eigen::Vector3d(pt.x, pt.y, pt.z);
    const double dt = std::min(0.0, t - w->t);
    const Eigen::Vector3d at_window = params_.batch_deskew ? Eigen::Vector3d(rotate_small(w->omega * dt, p_imu) + w->v_body * dt) : p_imu;
    const Eigen::Vector3d q = R_end_t * (w->R * at_window + w->p - x_.p);
    out[i] = pt;
    out[i].x = static_cast<float>(q.x());
    out[i].y = static_cast<float>(q.y());
    out[i].z = static_cast<float>(q.z());
  }
}

bool BatchLio::save_map(const std::string& path) {
  logger_->info("{} batch windows processed", windows_);
  return FilterFrontend::save_map(path);
}

}  // namespace asuka::batchlio
