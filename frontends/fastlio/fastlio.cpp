#include "fastlio.hpp"

#include <algorithm>
#include <cmath>

#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>

namespace asuka::fastlio {

namespace {
constexpr int kRot = State::kRot, kPos = State::kPos;
constexpr int kExtRot = State::kExtRot, kExtPos = State::kExtPos;
}  // namespace

FastLio::FastLio(const FastlioParams& params)
: FilterFrontend(params.common, "fastlio", params.common.map_params()),
  params_(params),
  noise_{params.gyr_cov, params.acc_cov, params.b_gyr_cov, params.b_acc_cov} {
  reset();
}

void FastLio::reset_filter() {
  x_ = initial_state();
  P_.setZero();
  lio::set_prior(P_, lio::NavPrior{});
  // The extrinsic's prior; used only when it is estimated (dim() == 24), and never coupled to the
  // rest otherwise.
  P_.block<3, 3>(kExtRot, kExtRot).diagonal().setConstant(params_.extrinsic_init_std_rot * params_.extrinsic_init_std_rot);
  P_.block<3, 3>(kExtPos, kExtPos).diagonal().setConstant(params_.extrinsic_init_std_pos * params_.extrinsic_init_std_pos);
  last_imu_.reset();
  trajectory_.clear();
}

State FastLio::initial_state() const {
  State s;
  s.g = Eigen::Vector3d(0, 0, -common_.gravity);
  s.R_il = common_.T_imu_lidar.linear();
  s.t_il = common_.T_imu_lidar.translation();
  return s;
}

void FastLio::start(const lio::ScanPackage& package) {
  x_ = initial_state();
  x_.R = initializer_->rotation();
  x_.bg = initializer_->gyro_bias();
  if (!package.imu.empty()) last_imu_ = package.imu.back();  // propagation starts from it
}

Eigen::Isometry3d FastLio::T_imu_lidar() const {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = x_.R_il;
  T.translation() = x_.t_il;
  return T;
}

void FastLio::estimate(const lio::ScanPackage& package, bool register_scan, ScanOutput& out) {
  lio::propagate_imu(x_, P_, t_, last_imu_, package.imu, package.end, noise_, trajectory_);
  const auto points_lidar = deskew(package);
  if (register_scan) update(points_lidar, package.end);
  out.points_imu.reserve(points_lidar.size());
  for (const auto& p_l : points_lidar) out.points_imu.push_back(x_.R_il * p_l + x_.t_il);
  out.points_world.reserve(out.points_imu.size());
  for (const auto& q : out.points_imu) out.points_world.push_back((x_.R * q + x_.p).cast<float>());
}

std::vector<Eigen::Vector3d> FastLio::deskew(const lio::ScanPackage& package) const {
  const auto& points = package.frame->points;
  const auto kept = lio::downsample_first_per_voxel(points, common_.scan_voxel_size);
  std::vector<Eigen::Vector3d> out;
  out.reserve(kept.size());
  for (const std::uint32_t index : kept) {
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

bool FastLio::update(const std::vector<Eigen::Vector3d>& points_lidar, double end) {
  const int n = dim();
  const bool estimate_extrinsic = n == State::kDim;
  const State prior = x_;
  const Eigen::MatrixXd P_inv = P_.topLeftCorner(n, n).inverse();
  const double inv_r = 1.0 / (common_.measurement_std * common_.measurement_std);
  const lio::PlaneAssociationParams association = common_.association_params();
  State x = prior;
  Eigen::MatrixXd A = P_inv;
  std::vector<Eigen::Vector3f> neighbors;
  // Planes are associated at the first iteration and again only after a large step (> 0.01 rad or
  // 5 cm): smaller steps do not change which map points are nearest. (FAST-LIO re-searches on its
  // own convergence flag; this rule saves most searches when the IMU prediction is good.)
  std::vector<std::optional<lio::Plane>> planes(points_lidar.size());
  bool associate = true;
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
    for (std::size_t i = 0; i < points_lidar.size(); ++i) {
      const Eigen::Vector3d& p_l = points_lidar[i];
      const Eigen::Vector3d& q = points_imu[i];
      const Eigen::Vector3d pw = x.R * q + x.p;
      if (associate) {
        planes[i].reset();
        lio::Plane plane;
        if (lio::find_plane(map_, pw, association, neighbors, plane)) planes[i] = plane;
      }
      if (!planes[i]) continue;
      const lio::Plane& plane = *planes[i];
      const double r = plane.normal.dot(pw) + plane.d;
      if (!lio::accept_residual(r, p_l.norm(), common_.max_residual)) continue;
      const auto row = static_cast<Eigen::Index>(effective++);
      const Eigen::Vector3d m = x.R.transpose() * plane.normal;
      H.block<1, 3>(row, 0) = q.cross(m).transpose();
      H.block<1, 3>(row, 3) = plane.normal.transpose();
      if (estimate_extrinsic) {
        H.block<1, 3>(row, 6) = p_l.cross(x.R_il.transpose() * m).transpose();
        H.block<1, 3>(row, 9) = m.transpose();
      }
      residuals[row] = r;
    }
    if (few_plane_matches(effective, end)) {
      x_ = prior;
      return false;
    }
    // (P^-1 + H^T R^-1 H) dx = -P^-1 (x - x_prior) - H^T R^-1 r   (iterated EKF as MAP estimate).
    // H's columns are the rotation and position (0..5) and, when estimated, the extrinsic (kExtRot..).
    const auto Hm = H.topRows(static_cast<Eigen::Index>(effective));
    const Eigen::MatrixXd HTH = inv_r * (Hm.transpose() * Hm);
    const Eigen::VectorXd HTr = inv_r * (Hm.transpose() * residuals.head(static_cast<Eigen::Index>(effective)));
    A = P_inv;
    A.topLeftCorner<6, 6>() += HTH.topLeftCorner<6, 6>();
    Eigen::VectorXd b = -P_inv * x.minus(prior).head(n);
    b.head<6>() -= HTr.head<6>();
    if (estimate_extrinsic) {
      A.block<6, 6>(0, kExtRot) += HTH.topRightCorner<6, 6>();
      A.block<6, 6>(kExtRot, 0) += HTH.bottomLeftCorner<6, 6>();
      A.block<6, 6>(kExtRot, kExtRot) += HTH.bottomRightCorner<6, 6>();
      b.segment<6>(kExtRot) -= HTr.tail<6>();
    }
    State::Tangent dx = State::Tangent::Zero();
    dx.head(n) = A.ldlt().solve(b);
    x = x.plus(dx, n);
    if (dx.segment<3>(kRot).norm() < 1e-4 && dx.segment<3>(kPos).norm() < 1e-3) break;
    associate = dx.segment<3>(kRot).norm() > 0.01 || dx.segment<3>(kPos).norm() > 0.05;
  }
  x_ = x;
  const Eigen::MatrixXd P = A.inverse();
  P_.topLeftCorner(n, n) = 0.5 * (P + P.transpose());
  if (estimate_extrinsic && ++extrinsic_updates_ % 100 == 0) {
    const Eigen::Vector3d w = so3::log(x_.R_il) * (180.0 / M_PI);
    logger_->info("extrinsic estimate after {} scans: t_il ({:.4f}, {:.4f}, {:.4f}) m +- {:.4f}, R_il as a rotation vector ({:.3f}, {:.3f}, {:.3f}) deg +- {:.3f}",
                  extrinsic_updates_, x_.t_il.x(), x_.t_il.y(), x_.t_il.z(), std::sqrt(P_.block<3, 3>(kExtPos, kExtPos).diagonal().maxCoeff()), w.x(), w.y(),
                  w.z(), std::sqrt(P_.block<3, 3>(kExtRot, kExtRot).diagonal().maxCoeff()) * 180.0 / M_PI);
  }
  return true;
}

}  // namespace asuka::fastlio
