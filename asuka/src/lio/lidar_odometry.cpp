#include <asuka/lio/lidar_odometry.hpp>

#include <algorithm>

#include <Eigen/Eigenvalues>

#include <asuka/lio/scan_downsample.hpp>

namespace asuka::lio {

LidarOdometry::LidarOdometry(const LidarOdometryParams& params) : params_(params), map_(params.map) {}

void LidarOdometry::reset() {
  map_ = VoxelMap(params_.map);
  have_last_ = false;
  last_ = velocity_ = Eigen::Isometry3d::Identity();
  velocity_dt_ = 0.0;
  failures_ = 0;
  last_time_ = 0.0;
  last_information_.setZero();
  last_effective_ = 0;
}

bool LidarOdometry::last_motion(Eigen::Isometry3d& motion, double& dt, Eigen::Vector3d& constrained_share, Eigen::Matrix3d& directions) const {
  if (!has_motion()) return false;
  motion = velocity_;
  dt = velocity_dt_;
  // Into the earlier scan's frame, where `motion` is: R_map_prev^T I R_map_prev.
  const Eigen::Matrix3d R_prev = (last_ * velocity_.inverse()).linear();
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(R_prev.transpose() * last_information_ * R_prev);
  constrained_share = eigen.eigenvalues() / static_cast<double>(last_effective_);
  directions = eigen.eigenvectors();
  return true;
}

RegistrationResult LidarOdometry::register_coarse_to_fine(const std::vector<Eigen::Vector3d>& source, const Eigen::Isometry3d& initial,
                                                          bool motion_known) const {
  // Without an IMU the constant-velocity prediction can be tens of centimetres off at the points (a
  // turn that accelerates): the filters' 0.1 m gate would leave too few planes to pull it back. A
  // first pass with a coarse gate brings it close, the second refines with the filters' gate. (Trying
  // the fine pass alone first, and the coarse one only when it did not converge, lost the verdict on
  // an upside-down Avia: fine passes that converged into the wrong minimum in fast turns.)
  RegistrationParams coarse = params_.registration;
  coarse.max_iterations = params_.coarse_max_iterations;
  Eigen::Isometry3d start = initial;
  if (!motion_known && params_.unknown_motion_max_residual > 0.0) {
    coarse.association.max_residual = params_.unknown_motion_max_residual;
    const RegistrationResult wide = register_point_to_plane(map_, source, start, coarse);
    if (wide.effective >= coarse.min_effective) start = wide.T_map_scan;
  }
  coarse.association.max_residual = params_.coarse_max_residual;
  // The passes differ in their residual gate only, so the fine pass starts from the coarse one's planes.
  RegistrationPlanes planes;
  const RegistrationResult first = register_point_to_plane(map_, source, start, coarse, &planes);
  return register_point_to_plane(map_, source, first.effective >= coarse.min_effective ? first.T_map_scan : start, params_.registration, &planes);
}

template <class Correct>
void LidarOdometry::join_map(const LidarFrame& frame, const Eigen::Isometry3d& pose, const Correct& corrected) {
  // The scan joins the map denser than it was registered: a map of the first few scans only has
  // few planes at the filters' 0.5 m.
  std::vector<Eigen::Vector3f> world;
  const auto dense = downsample_first_per_voxel(frame.points, params_.map_insert_voxel_size);
  world.reserve(dense.size());
  for (const std::uint32_t i : dense) {
    const Eigen::Vector3d q = pose * Eigen::Vector3d(corrected(frame.points[i]));
    world.push_back(q.cast<float>());
  }
  map_.insert(world);
  map_.remove_outside(pose.translation());
}

void LidarOdometry::hold(const LidarFrame& frame) {
  join_map(frame, last_, [](const Point& p) { return Eigen::Vector3d(p.x, p.y, p.z); });
  if (have_last_ && frame.stamp > last_time_) {
    velocity_ = Eigen::Isometry3d::Identity();  // at rest: no motion over the interval
    velocity_dt_ = frame.stamp - last_time_;
  }
  last_time_ = frame.stamp;
  have_last_ = true;
}

LidarOdometry::Scan LidarOdometry::add(const LidarFrame& frame, const Eigen::Matrix3d* rotation_hint, double hint_dt) {
  Scan scan;
  // The registered points: first point per voxel, then every n-th so at most max_source_points stay
  // (spread over the whole scan, not its first part).
  const auto kept = downsample_first_per_voxel(frame.points, params_.source_voxel_size);
  double offset_sum = 0.0;
  for (const std::uint32_t i : kept) offset_sum += static_cast<double>(frame.points[i].offset_ms);
  scan.time = frame.stamp + (kept.empty() ? 0.0 : offset_sum / static_cast<double>(kept.size()) * 1e-3);

  // De-skew with the last scan-to-scan motion (constant velocity, as KISS-ICP does without an IMU):
  // each point moved to where the sensor was at scan.time. Without it, a spinning lidar driving
  // forward sees its sweep sheared, and a shear about the vertical registers as a yaw (measured: a
  // VLP-16 at vehicle speed "turned" 0.2 rad per scan while the gyroscope saw 0.01).
  Eigen::Vector3d rotation_rate = Eigen::Vector3d::Zero(), translation_rate = Eigen::Vector3d::Zero();
  if (velocity_dt_ > 0.0 && frame.has_point_time) {
    rotation_rate = so3::log(velocity_.linear()) / velocity_dt_;
    translation_rate = velocity_.translation() / velocity_dt_;
  }
  if (rotation_hint != nullptr && hint_dt > 0.0 && frame.has_point_time) rotation_rate = so3::log(*rotation_hint) / hint_dt;
  const bool deskew = rotation_rate.squaredNorm() > 0.0 || translation_rate.squaredNorm() > 0.0;
  auto corrected = [&](const Point& p) -> Eigen::Vector3d {
    const Eigen::Vector3d q(p.x, p.y, p.z);
    if (!deskew) return q;
    const double dt = frame.stamp + static_cast<double>(p.offset_ms) * 1e-3 - scan.time;
    return so3::exp(rotation_rate * dt) * q + translation_rate * dt;
  };
  const std::size_t stride = std::max<std::size_t>(1, (kept.size() + params_.max_source_points - 1) / std::max<std::size_t>(1, params_.max_source_points));
  std::vector<Eigen::Vector3d> source;
  source.reserve(kept.size() / stride + 1);
  for (std::size_t i = 0; i < kept.size(); i += stride) source.push_back(corrected(frame.points[kept[i]]));

  Eigen::Isometry3d pose = last_;
  if (have_last_) {
    // Constant velocity per scan interval, scaled to this interval (frames need not be periodic).
    Eigen::Isometry3d predicted_motion = Eigen::Isometry3d::Identity();
    if (velocity_dt_ > 0.0) {
      const double s = (scan.time - last_time_) / velocity_dt_;
      predicted_motion.linear() = so3::exp(s * so3::log(velocity_.linear()));
      predicted_motion.translation() = s * velocity_.translation();
    }
    if (rotation_hint != nullptr) predicted_motion.linear() = *rotation_hint;
    const RegistrationResult r = register_coarse_to_fine(source, last_ * predicted_motion, velocity_dt_ > 0.0);
    scan.effective = r.effective;
    scan.registered = r.converged && r.T_map_scan.matrix().allFinite();
    if (scan.registered) {
      pose = r.T_map_scan;
      velocity_ = last_.inverse() * pose;
      velocity_dt_ = std::max(0.0, scan.time - last_time_);
      last_information_ = r.translation_information;
      last_effective_ = r.effective;
      failures_ = 0;
    } else if (++failures_ >= kMaxFailures) {
      // Lost: the map restarts from this scan, and the motion is unknown again.
      map_ = VoxelMap(params_.map);
      velocity_dt_ = 0.0;
      failures_ = 0;
    } else {
      // Not registered (a sparse map at the start, a scan with few planes): the scan joins the map at
      // the predicted pose, so the map still fills (at rest, the prediction is exact).
      pose = last_ * predicted_motion;
    }
  }
  scan.T_map_lidar = pose;

  join_map(frame, pose, corrected);

  last_ = pose;
  last_time_ = scan.time;
  have_last_ = true;
  return scan;
}

}  // namespace asuka::lio
