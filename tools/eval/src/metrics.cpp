// Alignment and error metrics (docs/evaluation.md gives every definition and its evo equivalent).

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <Eigen/SVD>

#include <asuka_eval/evaluation.hpp>

namespace asuka::eval {

namespace {

constexpr double kRadToDeg = 57.295779513082320876798;  // 180 / pi

/// The proper rotation nearest to `m` (Frobenius): U S V^T from the SVD m = U D V^T, with S flipping
/// the axis of the smallest singular value when U V^T would be a reflection (Umeyama 1991, eq. 39,
/// 43); det(U) det(V) instead of det(m) also covers a rank-deficient m (a planar or straight path).
Eigen::Matrix3d nearest_rotation(const Eigen::Matrix3d& m) {
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(m, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d S = Eigen::Matrix3d::Identity();
  if (svd.matrixU().determinant() * svd.matrixV().determinant() < 0.0) S(2, 2) = -1.0;
  return svd.matrixU() * S * svd.matrixV().transpose();
}

}  // namespace

Eigen::Isometry3d align_umeyama(const std::vector<Eigen::Vector3d>& src, const std::vector<Eigen::Vector3d>& dst) {
  if (src.size() != dst.size() || src.empty()) {
    throw std::invalid_argument(fmt::format("align_umeyama needs two equally long, non-empty point lists (got {} and {})", src.size(), dst.size()));
  }
  const double n = static_cast<double>(src.size());
  Eigen::Vector3d mean_src = Eigen::Vector3d::Zero();
  Eigen::Vector3d mean_dst = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < src.size(); ++i) {
    mean_src += src[i];
    mean_dst += dst[i];
  }
  mean_src /= n;
  mean_dst /= n;

  // Cross-covariance Sigma = 1/n sum (dst_i - mean_dst)(src_i - mean_src)^T (Umeyama 1991, eq. 38).
  Eigen::Matrix3d sigma = Eigen::Matrix3d::Zero();
  for (std::size_t i = 0; i < src.size(); ++i) sigma += (dst[i] - mean_dst) * (src[i] - mean_src).transpose();
  sigma /= n;

  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = nearest_rotation(sigma);
  T.translation() = mean_dst - T.linear() * mean_src;
  return T;
}

double rotation_angle(const Eigen::Matrix3d& R) {
  // 2 atan2(|v|, |w|) of the quaternion keeps full precision near 0, unlike acos((trace - 1) / 2).
  const Eigen::Quaterniond q = Eigen::Quaterniond(R).normalized();
  return 2.0 * std::atan2(q.vec().norm(), std::fabs(q.w()));
}

ErrorStats compute_stats(const std::vector<double>& values) {
  ErrorStats s;
  s.count = values.size();
  if (values.empty()) return s;
  const double n = static_cast<double>(values.size());
  double sum = 0.0;
  for (double v : values) {
    sum += v;
    s.sse += v * v;
  }
  s.mean = sum / n;
  s.rmse = std::sqrt(s.sse / n);
  double var = 0.0;
  for (double v : values) var += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(var / n);  // population std, as numpy's default (evo)
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const std::size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  return s;
}

std::vector<double> accumulated_distances(const std::vector<Eigen::Isometry3d>& poses) {
  std::vector<double> d(poses.size(), 0.0);
  for (std::size_t i = 1; i < poses.size(); ++i) d[i] = d[i - 1] + (poses[i].translation() - poses[i - 1].translation()).norm();
  return d;
}

std::vector<double> drift_segment_lengths(double path_length) {
  // The KITTI odometry benchmark's lengths, for kilometre-long drives; shorter paths get the same
  // eight lengths scaled by a round factor so that the longest is at most half the path.
  constexpr std::array<double, 8> kKittiLengths = {100, 200, 300, 400, 500, 600, 700, 800};
  const double ratio = path_length / (2.0 * kKittiLengths.back());
  double scale = 0.0;
  if (ratio >= 1.0) {
    scale = 1.0;
  } else {
    double power = 1.0;  // 10^k, exact in double
    for (int k = 1; k <= 4 && scale == 0.0; ++k) {
      power *= 10.0;
      for (double mantissa : {5.0, 2.0, 1.0}) {
        const double candidate = mantissa / power;
        if (candidate <= ratio * (1.0 + 1e-12)) {
          scale = candidate;
          break;
        }
      }
    }
  }
  std::vector<double> lengths;
  if (scale == 0.0) return lengths;  // path shorter than 0.16 m
  for (double length : kKittiLengths) lengths.push_back(length * scale);
  return lengths;
}

Eigen::Isometry3d relative_error(const Eigen::Isometry3d& gt_i, const Eigen::Isometry3d& gt_j, const Eigen::Isometry3d& est_i, const Eigen::Isometry3d& est_j) {
  const Eigen::Isometry3d gt_rel = gt_i.inverse() * gt_j;
  const Eigen::Isometry3d est_rel = est_i.inverse() * est_j;
  return gt_rel.inverse() * est_rel;
}

DriftResult compute_drift(const std::vector<Eigen::Isometry3d>& T_est, const std::vector<Eigen::Isometry3d>& T_gt) {
  DriftResult result;
  const std::vector<double> dist = accumulated_distances(T_gt);
  if (dist.empty()) return result;
  result.path_length = dist.back();
  // Rounding in the accumulated sums must not move a segment end by one pose.
  const double eps = 1e-9 * std::max(1.0, result.path_length);
  double sum_t = 0.0, sum_r = 0.0;
  for (double length : drift_segment_lengths(result.path_length)) {
    DriftLength entry;
    entry.length = length;
    double len_t = 0.0, len_r = 0.0;
    for (std::size_t i = 0; i + 1 < dist.size(); ++i) {
      const auto end = std::lower_bound(dist.begin() + static_cast<std::ptrdiff_t>(i) + 1, dist.end(), dist[i] + length - eps);
      if (end == dist.end()) break;  // later starts cannot reach the length either
      const auto j = static_cast<std::size_t>(end - dist.begin());
      const Eigen::Isometry3d E = relative_error(T_gt[i], T_gt[j], T_est[i], T_est[j]);
      const double t_pct = E.translation().norm() / length * 100.0;
      const double r_deg_per_m = rotation_angle(E.linear()) * kRadToDeg / length;
      len_t += t_pct;
      len_r += r_deg_per_m;
      ++entry.segments;
    }
    if (entry.segments > 0) {
      entry.translation_percent = len_t / static_cast<double>(entry.segments);
      entry.rotation_deg_per_m = len_r / static_cast<double>(entry.segments);
    }
    result.segments += entry.segments;
    sum_t += len_t;
    sum_r += len_r;
    result.lengths.push_back(entry);
  }
  if (result.segments > 0) {
    result.translation_percent = sum_t / static_cast<double>(result.segments);
    result.rotation_deg_per_m = sum_r / static_cast<double>(result.segments);
  }
  return result;
}

RpeResult compute_rpe(const std::vector<Eigen::Isometry3d>& T_est, const std::vector<Eigen::Isometry3d>& T_gt, double delta, double rel_tol) {
  if (!(delta > 0.0)) throw std::invalid_argument(fmt::format("the RPE distance must be > 0 m, got {}", delta));
  if (!(rel_tol >= 0.0)) throw std::invalid_argument(fmt::format("the RPE tolerance must be >= 0, got {}", rel_tol));
  RpeResult result;
  result.delta = delta;
  result.rel_tol = rel_tol;
  // As evo: pairs are chosen on the estimate's own path (evo's RPE passes the estimate's poses to its
  // pair filter); j is the first index whose path distance from i is closest to delta.
  const std::vector<double> dist = accumulated_distances(T_est);
  const double tol = rel_tol * delta;
  std::vector<double> trans, rot;
  const auto n = static_cast<std::ptrdiff_t>(dist.size());
  for (std::ptrdiff_t i = 0; i + 1 < n; ++i) {
    const auto first = dist.begin() + i + 1;
    const auto above = std::lower_bound(first, dist.end(), dist[i] + delta);  // first with distance >= delta
    std::ptrdiff_t best = -1;
    double best_residual = 0.0;
    if (above != first) {
      // The last pose below delta; with a stationary stretch, its first index (argmin keeps the first).
      const auto below = std::lower_bound(first, above, *std::prev(above));
      best = below - dist.begin();
      best_residual = std::fabs((dist[static_cast<std::size_t>(best)] - dist[static_cast<std::size_t>(i)]) - delta);
    }
    if (above != dist.end()) {
      const double residual = std::fabs((*above - dist[static_cast<std::size_t>(i)]) - delta);
      if (best < 0 || residual < best_residual) {
        best = above - dist.begin();
        best_residual = residual;
      }
    }
    if (best < 0 || best_residual > tol) continue;
    const auto a = static_cast<std::size_t>(i);
    const auto b = static_cast<std::size_t>(best);
    const Eigen::Isometry3d E = relative_error(T_gt[a], T_gt[b], T_est[a], T_est[b]);
    trans.push_back(E.translation().norm());
    rot.push_back(rotation_angle(E.linear()) * kRadToDeg);
  }
  result.translation = compute_stats(trans);
  result.rotation = compute_stats(rot);
  return result;
}

EvalResult evaluate(const std::vector<asuka::StampedPose>& est_in, const std::vector<asuka::StampedPose>& gt, const EvalParams& params) {
  if (est_in.empty() || gt.empty()) throw EvalError(fmt::format("nothing to compare: {} estimate and {} ground-truth poses", est_in.size(), gt.size()));
  EvalResult result;
  result.est_count = est_in.size();
  result.gt_count = gt.size();
  result.est_start = est_in.front().stamp;
  result.est_end = est_in.back().stamp;
  result.gt_start = gt.front().stamp;
  result.gt_end = gt.back().stamp;

  // The extrinsic turns the estimated body pose into the GT body pose: T_world_gtbody = T_world_est * T_est_gt.
  std::vector<asuka::StampedPose> est = est_in;
  if (params.T_est_gt) {
    for (auto& pose : est) pose.T_world_imu = pose.T_world_imu * *params.T_est_gt;
  }

  const double max_dt = params.association.max_dt;
  if (result.est_end < result.gt_start - max_dt || result.est_start > result.gt_end + max_dt) {
    throw EvalError(
        fmt::format("no temporal overlap: the estimate covers [{:.6f}, {:.6f}] s ({} poses), the ground truth [{:.6f}, {:.6f}] s ({} poses); are both stamped "
                    "on the same clock?",
                    result.est_start, result.est_end, result.est_count, result.gt_start, result.gt_end, result.gt_count));
  }
  result.association = associate(est, gt, params.association);
  Association& assoc = result.association;
  if (assoc.size() < std::max<std::size_t>(params.min_associated, 1)) {
    throw EvalError(
        fmt::format("too few poses to compare: {} of {} estimate poses could be associated with the ground truth (at least {} needed); {} lie outside the "
                    "ground truth's time span [{:.6f}, {:.6f}] s by more than max_dt = {} s, {} lie in ground-truth gaps longer than max_gap = {} s",
                    assoc.size(), result.est_count, params.min_associated, assoc.skipped_outside, result.gt_start, result.gt_end, max_dt, assoc.skipped_gap,
                    params.association.max_gap));
  }

  if (params.align_origin) {
    result.T_alignment = assoc.T_gt.front() * assoc.T_est.front().inverse();
    for (auto& T : assoc.T_est) T = result.T_alignment * T;
  } else if (params.align) {
    std::vector<Eigen::Vector3d> src, dst;
    src.reserve(assoc.size());
    dst.reserve(assoc.size());
    for (std::size_t i = 0; i < assoc.size(); ++i) {
      src.push_back(assoc.T_est[i].translation());
      dst.push_back(assoc.T_gt[i].translation());
    }
    result.T_alignment = align_umeyama(src, dst);
    // The rotation the orientations ask for: the nearest rotation to sum R_gt R_est^T.
    Eigen::Matrix3d sum = Eigen::Matrix3d::Zero();
    for (std::size_t i = 0; i < assoc.size(); ++i) sum += assoc.T_gt[i].linear() * assoc.T_est[i].linear().transpose();
    result.alignment_disagreement_deg = rotation_angle(nearest_rotation(sum).transpose() * result.T_alignment.linear()) * kRadToDeg;
    for (auto& T : assoc.T_est) T = result.T_alignment * T;
  }
  for (const auto& pose : est) result.est_positions.push_back(result.T_alignment * pose.T_world_imu.translation());
  for (const auto& pose : gt) result.gt_positions.push_back(pose.T_world_imu.translation());

  // The associated span, clipped to the GT span (nearest-neighbour pairs may sit up to max_dt outside).
  const double gt_duration = result.gt_end - result.gt_start;
  if (gt_duration > 0.0) {
    const double first = std::max(assoc.stamps.front(), result.gt_start);
    const double last = std::min(assoc.stamps.back(), result.gt_end);
    result.coverage = std::clamp((last - first) / gt_duration, 0.0, 1.0);
  }

  result.ate_errors.reserve(assoc.size());
  for (std::size_t i = 0; i < assoc.size(); ++i) result.ate_errors.push_back((assoc.T_est[i].translation() - assoc.T_gt[i].translation()).norm());
  result.ate = compute_stats(result.ate_errors);
  double rotation_sq = 0.0;
  for (std::size_t i = 0; i < assoc.size(); ++i) {
    const Eigen::Vector3d e = assoc.T_est[i].translation() - assoc.T_gt[i].translation();
    result.ate_axes_rmse += e.cwiseProduct(e);
    const double angle = rotation_angle(assoc.T_gt[i].linear().transpose() * assoc.T_est[i].linear()) * 180.0 / M_PI;
    rotation_sq += angle * angle;
  }
  if (assoc.size() > 0) {
    const double n = static_cast<double>(assoc.size());
    result.ate_axes_rmse = (result.ate_axes_rmse / n).cwiseSqrt();
    result.rotation_rmse_deg = std::sqrt(rotation_sq / n);
    result.final_error = assoc.T_est[assoc.size() - 1].translation() - assoc.T_gt[assoc.size() - 1].translation();
  }
  result.drift = compute_drift(assoc.T_est, assoc.T_gt);
  result.rpe = compute_rpe(assoc.T_est, assoc.T_gt, params.rpe_delta, params.rpe_rel_tol);
  if (result.alignment_disagreement_deg > kAlignmentDisagreementDeg) {
    result.warnings.push_back(fmt::format(
        "the SE(3) alignment turns the estimate by {:.1f} deg, {:.1f} deg away from the turn its orientations ask for: the positions of this "
        "{:.1f} m path do not pin the alignment down (short, straight or planar), so it tilts the estimate to fit drift away, or the estimated "
        "orientation is off (e.g. a wrong extrinsic rotation). The ATE may hide drift: compare with --align-origin",
        rotation_angle(result.T_alignment.linear()) * kRadToDeg, result.alignment_disagreement_deg, result.drift.path_length));
  }
  return result;
}

}  // namespace asuka::eval
