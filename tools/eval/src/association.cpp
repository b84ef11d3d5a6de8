// Reading trajectories and pairing estimate poses with ground truth by time (docs/evaluation.md,
// "Association").

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include <asuka_eval/evaluation.hpp>

namespace asuka::eval {

std::vector<asuka::StampedPose> load_trajectory(const std::string& path, const std::string& what) {
  std::vector<asuka::StampedPose> poses;
  std::string error;
  if (!asuka::read_tum(path, poses, &error)) throw EvalError(fmt::format("{}: {}", what, error));
  if (poses.empty()) throw EvalError(fmt::format("{}: {} holds no pose (only comments or blank lines)", what, path));
  for (std::size_t i = 1; i < poses.size(); ++i) {
    if (!(poses[i].stamp > poses[i - 1].stamp)) {
      // read_tum skips comments and blank lines, so the pose number (1-based, not the line) is named.
      throw EvalError(fmt::format("{}: {}: stamps must increase strictly, but pose {} has stamp {:.9f} after pose {} with stamp {:.9f}", what, path, i + 1,
                                  poses[i].stamp, i, poses[i - 1].stamp));
    }
  }
  return poses;
}

Eigen::Isometry3d parse_pose(const std::string& text) {
  std::string cleaned = text;
  std::replace(cleaned.begin(), cleaned.end(), ',', ' ');
  std::istringstream in(cleaned);
  double v[7];
  for (double& x : v) {
    if (!(in >> x) || !std::isfinite(x)) throw std::invalid_argument(fmt::format("expected 7 finite numbers 'x y z qx qy qz qw', got '{}'", text));
  }
  std::string rest;
  if (in >> rest) throw std::invalid_argument(fmt::format("expected 7 numbers 'x y z qx qy qz qw', got more in '{}'", text));
  Eigen::Quaterniond q(v[6], v[3], v[4], v[5]);
  if (std::fabs(q.norm() - 1.0) > 1e-3) throw std::invalid_argument(fmt::format("quaternion norm {:.6f} is not 1 in '{}'", q.norm(), text));
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = q.normalized().toRotationMatrix();
  T.translation() = Eigen::Vector3d(v[0], v[1], v[2]);
  return T;
}

Eigen::Isometry3d interpolate(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b, double alpha) {
  const Eigen::Quaterniond qa(a.linear());
  const Eigen::Quaterniond qb(b.linear());
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = qa.slerp(alpha, qb).normalized().toRotationMatrix();  // Eigen's slerp takes the shorter arc
  T.translation() = (1.0 - alpha) * a.translation() + alpha * b.translation();
  return T;
}

Association associate(const std::vector<asuka::StampedPose>& est, const std::vector<asuka::StampedPose>& gt, const AssociationParams& params) {
  if (!(params.max_dt >= 0.0)) throw std::invalid_argument(fmt::format("max_dt must be >= 0 s, got {}", params.max_dt));
  if (!(params.max_gap > 0.0)) throw std::invalid_argument(fmt::format("max_gap must be > 0 s, got {}", params.max_gap));

  Association result;
  const auto by_stamp = [](double t, const asuka::StampedPose& p) { return t < p.stamp; };
  for (const auto& pose : est) {
    const double t = pose.stamp;
    // b: the first GT pose after t; a: the one before it (stamp <= t).
    const auto b = std::upper_bound(gt.begin(), gt.end(), t, by_stamp);
    const bool has_b = b != gt.end();
    const bool has_a = b != gt.begin();
    if (has_a && has_b) {
      const auto a = std::prev(b);
      const double span = b->stamp - a->stamp;
      if (span <= params.max_gap) {
        result.stamps.push_back(t);
        result.T_est.push_back(pose.T_world_imu);
        result.T_gt.push_back(interpolate(a->T_world_imu, b->T_world_imu, (t - a->stamp) / span));
        ++result.interpolated;
        continue;
      }
    }
    // No interpolation possible (GT ends or has a gap): fall back to the nearest GT pose, as evo does.
    const asuka::StampedPose* nearest = nullptr;
    if (has_a) nearest = &*std::prev(b);
    if (has_b && (!nearest || b->stamp - t < t - nearest->stamp)) nearest = &*b;
    if (nearest && std::fabs(nearest->stamp - t) <= params.max_dt) {
      result.stamps.push_back(t);
      result.T_est.push_back(pose.T_world_imu);
      result.T_gt.push_back(nearest->T_world_imu);
      ++result.nearest;
    } else if (has_a && has_b) {
      ++result.skipped_gap;
    } else {
      ++result.skipped_outside;
    }
  }
  return result;
}

}  // namespace asuka::eval
