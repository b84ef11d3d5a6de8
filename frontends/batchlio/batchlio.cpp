#include "batchlio.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <asuka/core/callbacks.hpp>
#include <asuka/lio/frontend_output.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>

namespace asuka::batchlio {

namespace {
constexpr std::size_t kFewMatches = 30;  ///< fewer plane matches in a scan are warned as degenerate
constexpr int kRot = State::kRot, kPos = State::kPos, kVel = State::kVel, kBg = State::kBg, kBa = State::kBa, kGrav = State::kGrav,
              kOmega = State::kOmega, kAcc = State::kAcc, kDim = State::kDim;

/// P <- (P + P^T) / 2 in place (no temporary: this runs after every update).
void symmetrize(Covariance& P) {
  for (int c = 0; c < kDim; ++c) {
    for (int r = c + 1; r < kDim; ++r) P(r, c) = P(c, r) = 0.5 * (P(r, c) + P(c, r));
  }
}

/// P -= A B^T for a product known to be symmetric: each lower entry computed once (6 products) and
/// mirrored, so P stays exactly symmetric at half the work of the full product.
void subtract_symmetric(Covariance& P, const Eigen::Matrix<double, kDim, 6>& A, const Eigen::Matrix<double, kDim, 6>& B) {
  const Eigen::Matrix<double, 6, kDim> At = A.transpose(), Bt = B.transpose();  // rows as contiguous columns
  for (int c = 0; c < kDim; ++c) {
    for (int r = c; r < kDim; ++r) {
      const double v = P(r, c) - At.col(r).dot(Bt.col(c));
      P(r, c) = v;
      P(c, r) = v;
    }
  }
}

/// Exp(phi) p, by the series to second order (p + phi x p + phi x (phi x p) / 2) when |phi| < 1e-2
/// rad (error below 2e-7 of |p|, far under a point's noise; a 1 ms window turns a few milliradians)
/// and exactly otherwise.
Eigen::Vector3d rotate_small(const Eigen::Vector3d& phi, const Eigen::Vector3d& p) {
  if (phi.squaredNorm() >= 1e-4) return so3::exp(phi) * p;
  const Eigen::Vector3d c = phi.cross(p);
  return p + c + 0.5 * phi.cross(c);
}
}  // namespace

BatchLio::BatchLio(const BatchlioParams& params)
: params_(params),
  logger_(module_logger("batchlio")),
  preprocess_(std::make_shared<lio::CloudPreprocessor>(params.preprocess)),
  initializer_(std::make_shared<lio::ImuInitializer>(initializer_params())),
  sync_(false, logger_, lio::FrameEndRule::MAX_OFFSET),  // R-PRE-2: end = begin + maximum offset
  map_(map_params()) {
  reset();
}

lio::ImuInitializerParams BatchLio::initializer_params() const {
  return lio::ImuInitializerParams{static_cast<std::size_t>(params_.init_imu_count), Eigen::Vector3d(0, 0, -params_.gravity), true};
}

lio::VoxelMapParams BatchLio::map_params() const {
  return lio::VoxelMapParams{params_.map_voxel_size, lio::VoxelMap::kMaxPointsPerVoxel, params_.map_min_point_distance, params_.local_map_half_size};
}

void BatchLio::reset() {
  // R-IMU-4: the initializer restarts with the configuration re-applied.
  initializer_->configure(initializer_params());
  initializer_->reset();
  sync_.clear();
  sync_.collect_imu_history(true);  // R-IMU-2
  map_ = lio::VoxelMap(map_params());
  initialized_ = false;
  first_scan_ = true;
  ok_ = true;
  x_ = State();
  x_.g = Eigen::Vector3d(0, 0, -params_.gravity);
  P_.setZero();
  frame_id_ = 0;
  windows_ = 0;
  saturated_samples_ = 0;
  next_saturation_warning_ = 1;
  stale_frames_ = 0;
  degenerate_scans_ = 0;
}

void BatchLio::insert_imu(const ImuData& imu) { sync_.push_imu(imu); }

void BatchLio::insert_frame(const Frame::ConstPtr& frame) { sync_.push_frame(frame); }

int BatchLio::workload() const { return sync_.ready(); }

bool BatchLio::process_once() {
  lio::MeasureGroup group;
  if (!sync_.pop(group)) return false;
  scan_start_ = std::chrono::steady_clock::now();
  if (!ok_) return true;  // failed: consume input, estimate nothing
  if (!initialized_) {
    initialize(group);
    return true;  // R-IMU-1: frames during initialization are consumed without output
  }
  // Older than the state (frames out of order, or a loop back): skipped, not registered.
  if (lio::is_stale(group, t_, stale_frames_, *logger_)) return true;
  process_scan(group);
  if (x_.diverged() || !P_.allFinite()) {
    logger_->error("the state diverged at {:.6f} (|v| = {:.1f} m/s); reporting failure", group.end, x_.v.norm());
    ok_ = false;
  }
  return true;
}

void BatchLio::initialize(const lio::MeasureGroup& group) {
  // R-IMU-2: the synchronizer's full history is preferred to this package.
  if (!initializer_->process(group.imu, sync_.imu_history())) return;
  sync_.collect_imu_history(false);
  const Eigen::Vector3d mean_acc = initializer_->get_mean_acceleration();
  x_ = State();
  x_.R = initializer_->rotation();
  x_.g = Eigen::Vector3d(0, 0, -params_.gravity);
  x_.bg = initializer_->gyro_bias();
  x_.omega.setZero();
  // At rest the ideal accelerometer reads -g in the IMU frame. What the mean differs by is left to
  // the first IMU updates to split between the specific force and the (zero-mean) accel bias.
  x_.acc = -(x_.R.transpose() * x_.g);
  P_.setZero();
  P_.block<3, 3>(kRot, kRot).diagonal().setConstant(1e-4);
  P_.block<3, 3>(kPos, kPos).diagonal().setConstant(1e-4);
  P_.block<3, 3>(kVel, kVel).diagonal().setConstant(1e-2);
  P_.block<3, 3>(kBg, kBg).diagonal().setConstant(1e-4);
  P_.block<3, 3>(kBa, kBa).diagonal().setConstant(1e-2);
  P_.block<3, 3>(kGrav, kGrav).diagonal().setConstant(1e-5);
  P_.block<3, 3>(kOmega, kOmega).diagonal().setConstant(1e-3);
  P_.block<3, 3>(kAcc, kAcc).diagonal().setConstant(1e-1);
  t_ = group.end;
  initialized_ = true;
  logger_->info("IMU initialized from {} samples: mean |acc| {:.4f} m/s^2, gyro bias ({:.5f}, {:.5f}, {:.5f}) rad/s", initializer_->count(),
                mean_acc.norm(), x_.bg.x(), x_.bg.y(), x_.bg.z());
}

void BatchLio::propagate_to(double t) {
  const double dt = t - t_;
  if (!(dt > 0.0)) return;
  // Error-state transition (lio::propagate_covariance):
  //   dtheta' = Exp(-w dt) dtheta + Jr(w dt) dt dw
  //   dp'     = dp + dt dv
  //   dv'     = dv - R [a]x dt dtheta + R dt da + dt dg
  // without forming F: 24x24 products would cost ten times more, at a thousand steps per second.
  const Eigen::Matrix3d E = so3::exp(x_.omega * dt);  // the body's turn over dt
  lio::propagate_covariance(P_, lio::PoseTransition{E.transpose(), so3::right_jacobian(x_.omega * dt) * dt, -x_.R * so3::hat(x_.acc) * dt,
                                                     x_.R * dt, dt, kOmega, kAcc});
  P_.block<3, 3>(kOmega, kOmega).diagonal().array() += params_.omega_process_cov * dt;
  P_.block<3, 3>(kAcc, kAcc).diagonal().array() += params_.acc_process_cov * dt;
  P_.block<3, 3>(kBg, kBg).diagonal().array() += params_.b_gyro_cov * dt;
  P_.block<3, 3>(kBa, kBa).diagonal().array() += params_.b_acc_cov * dt;

  const Eigen::Vector3d acc_world = x_.R * x_.acc + x_.g;
  x_.p += x_.v * dt + 0.5 * acc_world * dt * dt;
  x_.v += acc_world * dt;
  x_.R = x_.R * E;
  t_ = t;
}

void BatchLio::update_imu(const ImuData& imu) {
  // Rows of the measurement: gyro axis k measures omega_k + bg_k, accel axis k measures acc_k + ba_k.
  // An axis at the end of its range reads the limit, not the motion: it is left out (Point-LIO's
  // saturation handling) and the lidar carries the state through the burst. A left-out row keeps its
  // place with a zero column in P H^T and a unit row in S, so its gain is exactly zero and every
  // matrix keeps a fixed size.
  Eigen::Matrix<double, kDim, 6> PHt;  // P H^T: each row of H is the sum of two unit rows
  Eigen::Matrix<double, 6, 1> e;
  std::array<bool, 6> used{};
  for (int i = 0; i < 6; ++i) {
    const int k = i % 3;
    const bool gyro = i < 3;
    const double z = gyro ? imu.gyro[k] : imu.acc[k];
    used[i] = std::fabs(z) < 0.99 * (gyro ? params_.satu_gyro : params_.satu_acc);
    const int state = (gyro ? kOmega : kAcc) + k, bias = (gyro ? kBg : kBa) + k;
    if (used[i]) {
      PHt.col(i) = P_.col(state) + P_.col(bias);
      e[i] = gyro ? z - x_.omega[k] - x_.bg[k] : z - x_.acc[k] - x_.ba[k];
    } else {
      PHt.col(i).setZero();
      e[i] = 0.0;
    }
  }
  if (!(used[0] && used[1] && used[2] && used[3] && used[4] && used[5])) ++saturated_samples_;
  Eigen::Matrix<double, 6, 6> S;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      const int k = j % 3;
      S(j, i) = (used[i] && used[j]) ? PHt((j < 3 ? kOmega : kAcc) + k, i) + PHt((j < 3 ? kBg : kBa) + k, i) : 0.0;
    }
    S(i, i) = used[i] ? S(i, i) + (i < 3 ? params_.gyro_cov : params_.acc_cov) : 1.0;
  }
  const Eigen::Matrix<double, kDim, 6> K = S.ldlt().solve(PHt.transpose()).transpose();  // P H^T S^-1
  x_ = x_.plus(K * e);
  // P -= K PHt^T = PHt S^-1 PHt^T, symmetric. (P must stay symmetric
  // after every update, not once per scan: the next gain reads P's columns and the update subtracts
  // its rows, so an asymmetry is fed back and grows; it diverged within 30 s.)
  subtract_symmetric(P_, K, PHt);
}

void BatchLio::update_planes(const std::vector<Eigen::Matrix<double, 1, 6>>& h, const std::vector<double>& r, double var, bool sequential) {
  if (h.empty()) return;
  if (sequential) {
    // Point-LIO's form: one scalar measurement at a time. K = P h^T / (h P h^T + var); the state is
    // re-linearized only between scans of the map, as in Point-LIO (h was computed at the window's
    // prior, and so were the residuals: each update shifts the next residual by h dx).
    Eigen::Matrix<double, kDim, 1> dx_total = Eigen::Matrix<double, kDim, 1>::Zero();
    for (std::size_t i = 0; i < h.size(); ++i) {
      const Eigen::Matrix<double, kDim, 1> PHt = P_.leftCols<6>() * h[i].transpose();
      const double s = h[i] * PHt.head<6>() + var;
      const double innovation = -(r[i] + h[i] * dx_total.head<6>());
      const Eigen::Matrix<double, kDim, 1> K = PHt / s;
      dx_total += K * innovation;
      P_ -= K * PHt.transpose();
    }
    x_ = x_.plus(dx_total);
    symmetrize(P_);
    return;
  }
  // All rows at once, in information form on the six columns they touch:
  //   G = H^T H / var, b = H^T r / var, T = (I + G P66)^-1
  //   dx = -P[:, :6] T b,   P -= P[:, :6] T G P[:6, :]
  // (Woodbury: a 6x6 solve however many points the window holds.)
  Eigen::Matrix<double, 6, 6> G = Eigen::Matrix<double, 6, 6>::Zero();
  Eigen::Matrix<double, 6, 1> b = Eigen::Matrix<double, 6, 1>::Zero();
  for (std::size_t i = 0; i < h.size(); ++i) {
    G.noalias() += h[i].transpose() * h[i];
    b.noalias() += h[i].transpose() * r[i];
  }
  G /= var;
  b /= var;
  const Eigen::Matrix<double, kDim, 6> PH = P_.leftCols<6>();
  const Eigen::Matrix<double, 6, 6> S = Eigen::Matrix<double, 6, 6>::Identity() + G * PH.topRows<6>();
  const Eigen::PartialPivLU<Eigen::Matrix<double, 6, 6>> lu(S);
  const Eigen::Matrix<double, 6, 1> Tb = lu.solve(b);
  const Eigen::Matrix<double, 6, 6> TG = lu.solve(G);
  x_ = x_.plus(-PH * Tb);
  // P -= PH TG PH^T, symmetric.
  const Eigen::Matrix<double, kDim, 6> PHTG = PH * TG;
  subtract_symmetric(P_, PHTG, PH);
}

void BatchLio::process_window(const std::vector<Timed>& points, std::size_t begin, std::size_t end, bool register_points,
                              std::vector<Eigen::Vector3f>& world) {
  const double t_end = std::max(points[end - 1].t, t_);
  propagate_to(t_end);
  // The window's points at its end, moved with the filter's own velocities (batch_deskew): over
  // dt = t_i - t_end <= 0 the body turned by Exp(omega dt) and moved by R^T v dt.
  thread_local std::vector<Eigen::Vector3d> at_end;
  at_end.clear();
  const Eigen::Vector3d v_body = x_.R.transpose() * x_.v;
  for (std::size_t i = begin; i < end; ++i) {
    const double dt = points[i].t - t_end;
    if (params_.batch_deskew && dt < 0.0) {
      at_end.push_back(rotate_small(x_.omega * dt, points[i].p_imu) + v_body * dt);
    } else {
      at_end.push_back(points[i].p_imu);
    }
  }
  if (register_points) {
    const lio::PlaneAssociationParams association{static_cast<std::size_t>(params_.knn), 3.0 * params_.map_voxel_size, params_.plane_max_residual,
                                                  params_.max_residual};
    h_.clear();
    r_.clear();
    for (const auto& q : at_end) {
      const Eigen::Vector3d pw = x_.R * q + x_.p;
      lio::Plane plane;
      if (!lio::find_plane(map_, pw, association, neighbors_, plane)) continue;
      const double r = plane.normal.dot(pw) + plane.d;
      if (!lio::accept_residual(r, q.norm(), params_.max_residual)) continue;
      Eigen::Matrix<double, 1, 6> row;
      row.head<3>() = q.cross(x_.R.transpose() * plane.normal).transpose();  // = -n^T R [q]x
      row.tail<3>() = plane.normal.transpose();
      h_.push_back(row);
      r_.push_back(r);
    }
    update_planes(h_, r_, params_.measurement_std * params_.measurement_std, params_.batch_dt <= 0.0);
    scan_matches_ += h_.size();
  }
  for (const auto& q : at_end) world.push_back((x_.R * q + x_.p).cast<float>());
  ++windows_;
  HighRatePose pose;
  pose.stamp = t_end;
  pose.T_world_imu.linear() = x_.R;
  pose.T_world_imu.translation() = x_.p;
  pose.v_world = x_.v;
  pose.omega_imu = x_.omega;
  pose.latency_seconds = (scan_end_ - t_end) + std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start_).count();
  OdometryCallbacks::on_high_rate_pose(pose);
}

void BatchLio::process_scan(const lio::MeasureGroup& group) {
  scan_end_ = group.end;
  // Down-sample, then take the points in time order (R-PRE-2 offsets; drivers need not sort them).
  const auto& raw = group.frame->points;
  const auto kept = lio::downsample_first_per_voxel(raw, params_.scan_voxel_size);
  std::vector<Timed> points;
  points.reserve(kept.size());
  for (const std::uint32_t index : kept) {
    const Point& pt = raw[index];
    points.push_back(Timed{params_.T_imu_lidar * Eigen::Vector3d(pt.x, pt.y, pt.z), group.begin + static_cast<double>(pt.offset_ms) * 1e-3});
  }
  const auto by_time = [](const Timed& a, const Timed& b) { return a.t < b.t; };
  if (!std::is_sorted(points.begin(), points.end(), by_time)) std::stable_sort(points.begin(), points.end(), by_time);

  const bool register_points = !first_scan_;  // the first scan builds the map; nothing to register it against
  scan_matches_ = 0;
  std::vector<Eigen::Vector3f> world;
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
    for (; imu_index < group.imu.size() && group.imu[imu_index].stamp <= points[j - 1].t; ++imu_index) {
      propagate_to(group.imu[imu_index].stamp);
      update_imu(group.imu[imu_index]);
    }
    process_window(points, i, j, register_points, world);
    i = j;
  }
  for (; imu_index < group.imu.size(); ++imu_index) {
    propagate_to(group.imu[imu_index].stamp);
    update_imu(group.imu[imu_index]);
  }
  propagate_to(group.end);
  if (register_points && scan_matches_ < kFewMatches) {
    // A featureless or empty scan: the process model and the IMU carried the state through it.
    if (++degenerate_scans_ <= 3 || degenerate_scans_ % 100 == 0) {
      logger_->warn("only {} points matched map planes in the scan ending at {:.6f} ({} such scans so far); the IMU carries the state", scan_matches_,
                    group.end, degenerate_scans_);
    }
  }
  first_scan_ = false;
  if (saturated_samples_ >= next_saturation_warning_) {
    logger_->warn("IMU samples at the end of the sensor's range so far: {} (those axes are not used; imu.satu_gyro {} rad/s, imu.satu_acc {} m/s^2)",
                  saturated_samples_, params_.satu_gyro, params_.satu_acc);
    next_saturation_warning_ = std::max<std::uint64_t>(10 * next_saturation_warning_, saturated_samples_ + 1);
  }

  // The scan joins the map after it is registered: its points, each placed with the state of its
  // own window, are not matched against each other.
  map_.insert(world);
  if (frame_id_ % 10 == 0) map_.remove_outside(x_.p);

  std::vector<Eigen::Vector3d> points_imu;
  points_imu.reserve(world.size());
  for (const auto& w : world) points_imu.push_back(x_.R.transpose() * (w.cast<double>() - x_.p));
  const lio::ScanEstimate estimate{x_.R, x_.p, x_.v, x_.bg, x_.ba, x_.g, P_.topLeftCorner<6, 6>(), params_.T_imu_lidar};
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start_).count();
  OdometryCallbacks::on_new_frame(lio::make_estimation_frame(frame_id_++, group, estimate, points_imu, seconds));
}

bool BatchLio::save_map(const std::string& path) {
  logger_->info("{} batch windows processed", windows_);
  return lio::save_map_pcd(map_, path, *logger_);
}

}  // namespace asuka::batchlio
