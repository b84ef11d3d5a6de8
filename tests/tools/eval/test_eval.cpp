// asuka_eval: association, alignment, ATE, drift, RPE, coverage, errors and the program itself.
// Every expected value comes from a closed-form construction (see the comment of each test), not
// from the program's output. Definitions: docs/evaluation.md.

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka/io/trajectory_io.hpp>
#include <asuka_eval/evaluation.hpp>

#include "support/process.hpp"

namespace asuka::eval {
namespace {

namespace fs = std::filesystem;
using asuka::StampedPose;
using Eigen::AngleAxisd;
using Eigen::Isometry3d;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

Isometry3d make_pose(const Vector3d& t, const Eigen::Matrix3d& R = Eigen::Matrix3d::Identity()) {
  Isometry3d T = Isometry3d::Identity();
  T.linear() = R;
  T.translation() = t;
  return T;
}

Eigen::Matrix3d rot(double angle, const Vector3d& axis) { return AngleAxisd(angle, axis.normalized()).toRotationMatrix(); }

/// A curved, non-planar, rotating trajectory: a climbing circle of radius 10 m, heading along it, rolling.
Isometry3d curvy(double t) {
  const Vector3d p(10.0 * std::cos(0.3 * t), 10.0 * std::sin(0.3 * t), 0.5 * t + 0.3 * std::sin(t));
  return make_pose(p, rot(0.3 * t + kPi / 2.0, Vector3d::UnitZ()) * rot(0.1 * std::sin(0.7 * t), Vector3d::UnitX()));
}

std::vector<StampedPose> sample(const std::function<Isometry3d(double)>& f, double t0, double dt, int count) {
  std::vector<StampedPose> out;
  for (int i = 0; i < count; ++i) {
    const double t = t0 + dt * i;
    out.push_back({t, f(t)});
  }
  return out;
}

/// Straight line along x through the given positions (identity orientation), stamps 0.1 s apart.
std::vector<StampedPose> line_x(const std::vector<double>& xs) {
  std::vector<StampedPose> out;
  for (std::size_t i = 0; i < xs.size(); ++i) out.push_back({0.1 * static_cast<double>(i), make_pose(Vector3d(xs[i], 0.0, 0.0))});
  return out;
}

std::vector<StampedPose> transformed(const Isometry3d& left, const std::vector<StampedPose>& poses, const Isometry3d& right = Isometry3d::Identity()) {
  std::vector<StampedPose> out = poses;
  for (auto& p : out) p.T_world_imu = left * p.T_world_imu * right;
  return out;
}

/// A fixed, generic rigid transform (40 deg about a skew axis, metres of translation).
Isometry3d rigid_offset() { return make_pose(Vector3d(5.0, -3.0, 2.0), rot(40.0 * kDeg, Vector3d(1.0, 2.0, 3.0))); }

void expect_isometry_near(const Isometry3d& a, const Isometry3d& b, double tol) {
  EXPECT_TRUE(a.matrix().isApprox(b.matrix(), tol) || (a.matrix() - b.matrix()).norm() < tol) << "\n" << a.matrix() << "\nvs\n" << b.matrix();
}

// ---- Building blocks ---------------------------------------------------------------------------

TEST(EvalStats, MatchNumpyDefinitions) {
  // {1, 2, 3, 4}: mean 2.5, median (2 + 3) / 2, sse 30, rmse sqrt(30 / 4), population std sqrt(5 / 4).
  const ErrorStats s = compute_stats({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.sse, 30.0);
  EXPECT_DOUBLE_EQ(s.rmse, std::sqrt(7.5));
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(compute_stats({3.0, 1.0, 2.0}).median, 2.0);
  EXPECT_EQ(compute_stats({}).count, 0u);
}

TEST(EvalInterpolate, LinearTranslationAndSlerpRotation) {
  // A quarter of the way from identity to (90 deg about z, 2 m along x): 22.5 deg and 0.5 m.
  const Isometry3d b = make_pose(Vector3d(2.0, 0.0, 0.0), rot(90.0 * kDeg, Vector3d::UnitZ()));
  expect_isometry_near(interpolate(Isometry3d::Identity(), b, 0.25), make_pose(Vector3d(0.5, 0.0, 0.0), rot(22.5 * kDeg, Vector3d::UnitZ())), 1e-12);
  expect_isometry_near(interpolate(Isometry3d::Identity(), b, 0.0), Isometry3d::Identity(), 1e-12);
  expect_isometry_near(interpolate(Isometry3d::Identity(), b, 1.0), b, 1e-12);
}

TEST(EvalUmeyama, RecoversAKnownRigidTransform) {
  std::vector<Vector3d> src, dst;
  const Isometry3d A = rigid_offset();
  for (int i = 0; i < 50; ++i) {
    src.push_back(curvy(0.4 * i).translation());
    dst.push_back(A * src.back());
  }
  expect_isometry_near(align_umeyama(src, dst), A, 1e-9);
}

TEST(EvalUmeyama, NeverReturnsAReflection) {
  // dst is src mirrored in z. Points on the axes have covariance diag(3, 4/3, 1/3); the best proper
  // rotation keeps the axis of least variance as it is, so the answer is the identity (Umeyama's S).
  const std::vector<Vector3d> src = {{3, 0, 0}, {-3, 0, 0}, {0, 2, 0}, {0, -2, 0}, {0, 0, 1}, {0, 0, -1}};
  std::vector<Vector3d> dst;
  for (const auto& p : src) dst.emplace_back(p.x(), p.y(), -p.z());
  const Isometry3d T = align_umeyama(src, dst);
  EXPECT_NEAR(T.linear().determinant(), 1.0, 1e-12);
  expect_isometry_near(T, Isometry3d::Identity(), 1e-12);
}

TEST(EvalDrift, SegmentLengthsAreKittiLengthsScaledByARoundFactor) {
  const std::vector<double> kitti = {100, 200, 300, 400, 500, 600, 700, 800};
  EXPECT_EQ(drift_segment_lengths(5000.0), kitti);
  EXPECT_EQ(drift_segment_lengths(1600.0), kitti);
  // 160 m: 800 s <= 80 -> s = 0.1.  50 m: 800 s <= 25 -> s = 0.02 (0.05 would give 40 m).
  const auto l160 = drift_segment_lengths(160.0);
  const auto l50 = drift_segment_lengths(50.0);
  ASSERT_EQ(l160.size(), 8u);
  ASSERT_EQ(l50.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_NEAR(l160[k], 10.0 * static_cast<double>(k + 1), 1e-12);
    EXPECT_NEAR(l50[k], 2.0 * static_cast<double>(k + 1), 1e-12);
  }
  EXPECT_TRUE(drift_segment_lengths(0.1).empty());
}

// ---- The task's closed-form cases --------------------------------------------------------------

TEST(Eval, IdenticalTrajectoriesGiveZero) {
  const auto gt = sample(curvy, 100.0, 0.1, 300);  // 30 s, about 95 m of path
  const EvalResult r = evaluate(gt, gt);
  EXPECT_EQ(r.association.size(), 300u);
  EXPECT_EQ(r.association.interpolated, 299u);  // the last stamp has no later GT pose: nearest, 0 s away
  EXPECT_EQ(r.association.nearest, 1u);
  EXPECT_NEAR(r.coverage, 1.0, 1e-12);
  EXPECT_LT(r.ate.max, 1e-9);
  EXPECT_LT(r.ate.rmse, 1e-9);
  ASSERT_TRUE(r.drift.valid());
  EXPECT_LT(r.drift.translation_percent, 1e-7);
  EXPECT_LT(r.drift.rotation_deg_per_m, 1e-7);
  ASSERT_TRUE(r.rpe.valid());
  EXPECT_LT(r.rpe.translation.max, 1e-9);
  EXPECT_LT(r.rpe.rotation.max, 1e-6);
}

TEST(Eval, KnownRigidTransformIsRemoved) {
  const auto gt = sample(curvy, 0.0, 0.1, 300);
  const Isometry3d A = rigid_offset();
  const auto est = transformed(A, gt);  // the estimate lives in another world frame
  const EvalResult r = evaluate(est, gt);
  EXPECT_LT(r.ate.max, 1e-9);
  expect_isometry_near(r.T_alignment, A.inverse(), 1e-9);
  EXPECT_LT(r.rpe.translation.max, 1e-9);

  EvalParams raw;
  raw.align = false;
  EXPECT_GT(evaluate(est, gt, raw).ate.rmse, 1.0);  // the 40 deg / 6 m offset stays without alignment
}

// The SE(3) alignment is checked against the orientations. A level 20 m path whose estimate climbs
// 0.2 m per metre (its positions are the path tilted by 11.3 deg) while its orientations stay right:
// Umeyama tilts the estimate back, the ATE comes out zero and hides 4 m of drift; the evaluation says
// so. On a curvy path in another world frame the two agree and nothing is said.
TEST(Eval, TheAlignmentIsCheckedAgainstTheOrientations) {
  const Eigen::Matrix3d tilt = rot(std::atan(0.2), Vector3d::UnitY());
  std::vector<StampedPose> gt, est;
  for (int i = 0; i <= 200; ++i) {
    const Vector3d p(0.1 * i, 2.0 * std::sin(0.025 * i), 0.0);
    gt.push_back(StampedPose{0.1 * i, make_pose(p)});
    est.push_back(StampedPose{0.1 * i, make_pose(tilt * p)});
  }
  const EvalResult drifting = evaluate(est, gt);
  EXPECT_LT(drifting.ate.rmse, 1e-9);
  EXPECT_NEAR(drifting.alignment_disagreement_deg, std::atan(0.2) / kDeg, 1e-6);
  ASSERT_EQ(drifting.warnings.size(), 1u);
  EXPECT_NE(drifting.warnings[0].find("--align-origin"), std::string::npos) << drifting.warnings[0];
  EvalParams origin;
  origin.align_origin = true;
  EXPECT_GT(evaluate(est, gt, origin).ate.rmse, 1.0);  // the drift, seen from the start
  EXPECT_TRUE(evaluate(est, gt, origin).warnings.empty());

  const auto curvy_gt = sample(curvy, 0.0, 0.1, 300);
  const EvalResult agreeing = evaluate(transformed(rigid_offset(), curvy_gt), curvy_gt);
  EXPECT_LT(agreeing.alignment_disagreement_deg, 1e-6);
  EXPECT_TRUE(agreeing.warnings.empty());
}

TEST(Eval, Issue21_AlignOriginStartsFromTheFirstPoseAndTheErrorIsSplitByAxis) {
  // An estimate in another world frame that drifts along x only (0.1 m/s after t = 0): aligned by its
  // first pose, the error is the drift, all of it along the GT's x, none across; the rotation is exact.
  const auto gt = sample(curvy, 0.0, 0.1, 300);
  auto drifting = gt;
  for (auto& p : drifting) p.T_world_imu.translation() += Vector3d(0.1 * p.stamp, 0.0, 0.0);
  const auto est = transformed(rigid_offset(), drifting);
  EvalParams origin;
  origin.align_origin = true;
  const EvalResult r = evaluate(est, gt, origin);
  expect_isometry_near(r.T_alignment, rigid_offset().inverse(), 1e-9);
  EXPECT_NEAR(r.final_error.x(), 0.1 * gt.back().stamp, 1e-9);
  EXPECT_NEAR(r.final_error.y(), 0.0, 1e-9);
  EXPECT_NEAR(r.final_error.z(), 0.0, 1e-9);
  EXPECT_NEAR(r.ate_axes_rmse.x(), r.ate.rmse, 1e-9);  // all of the error is along x
  EXPECT_LT(r.ate_axes_rmse.y() + r.ate_axes_rmse.z(), 1e-9);
  EXPECT_LT(r.rotation_rmse_deg, 1e-6);
  // The SE(3) alignment spreads the same drift over the run: a smaller ATE, no longer all at the end.
  const EvalResult se3 = evaluate(est, gt);
  EXPECT_LT(se3.ate.rmse, r.ate.rmse);
}

TEST(Eval, Issue21_ThePlotShadesTheDegenerateIntervals) {
  const auto gt = sample(curvy, 100.0, 0.1, 300);
  const EvalResult r = evaluate(gt, gt);
  ReportInfo info{"est.tum", "gt.tum", {{105.0, 110.0}, {120.0, 120.0}}, "degenerate scans"};
  const std::string svg = render_svg(r, info);
  std::size_t shaded = 0;
  for (std::size_t at = svg.find("<rect class=\"shaded\""); at != std::string::npos; at = svg.find("<rect class=\"shaded\"", at + 1)) ++shaded;
  EXPECT_EQ(shaded, 2u);  // the single-scan interval too (widened to 0.1 s)
  EXPECT_NE(svg.find("shaded: degenerate scans (2)"), std::string::npos);
  EXPECT_EQ(render_svg(r, ReportInfo{"est.tum", "gt.tum", {}, {}}).find("class=\"shaded\""), std::string::npos);
}

TEST(Eval, KnownNoiseGivesExpectedRmse) {
  // GT: x_i = i, y_i = 0.5 k^2 with k = floor(i / 4), z = 0. Estimate: GT + a_k s_i along z, with
  // s = (+1, -1, -1, +1) in each block of four and a_k = 0.1 (even k) or 0.3 (odd k). Per block,
  // sum s = 0 and sum x s = 0 - 1 - 2 + 3 = 0 and y is constant, so the noise has zero mean and zero
  // correlation with the GT: Umeyama returns the identity and the errors are exactly |a_k|:
  // rmse = sqrt((0.01 + 0.09) / 2), mean = median = 0.2, std = 0.1, min 0.1, max 0.3.
  std::vector<StampedPose> gt, est;
  const double s[4] = {1.0, -1.0, -1.0, 1.0};
  for (int i = 0; i < 400; ++i) {
    const int k = i / 4;
    const double a = k % 2 == 0 ? 0.1 : 0.3;
    const Vector3d p(i, 0.5 * k * k, 0.0);
    gt.push_back({0.1 * i, make_pose(p)});
    est.push_back({0.1 * i, make_pose(p + Vector3d(0.0, 0.0, a * s[i % 4]))});
  }
  const EvalResult r = evaluate(est, gt);
  expect_isometry_near(r.T_alignment, Isometry3d::Identity(), 1e-9);
  EXPECT_NEAR(r.ate.rmse, std::sqrt(0.05), 1e-9);
  EXPECT_NEAR(r.ate.mean, 0.2, 1e-9);
  EXPECT_NEAR(r.ate.median, 0.2, 1e-9);
  EXPECT_NEAR(r.ate.std, 0.1, 1e-9);
  EXPECT_NEAR(r.ate.min, 0.1, 1e-9);
  EXPECT_NEAR(r.ate.max, 0.3, 1e-9);
}

TEST(Eval, KnownDriftGivesExpectedPercentage) {
  // GT along x at every metre, 0..1600 m: the KITTI lengths 100..800 m apply unscaled. The estimate
  // is 1 % too long: every segment of length L (ending exactly at +L, poses are 1 m apart) has
  // |t(E)| = 0.01 L -> 1 %, and no rotation. Starts per length: 1601 - L; 8 * 1601 - 3600 segments.
  std::vector<double> x_gt, x_est;
  for (int i = 0; i <= 1600; ++i) {
    x_gt.push_back(i);
    x_est.push_back(1.01 * i);
  }
  const EvalResult r = evaluate(line_x(x_est), line_x(x_gt));
  ASSERT_TRUE(r.drift.valid());
  EXPECT_DOUBLE_EQ(r.drift.path_length, 1600.0);
  EXPECT_EQ(r.drift.segments, 9208u);
  EXPECT_NEAR(r.drift.translation_percent, 1.0, 1e-9);
  EXPECT_NEAR(r.drift.rotation_deg_per_m, 0.0, 1e-9);
  ASSERT_EQ(r.drift.lengths.size(), 8u);
  EXPECT_EQ(r.drift.lengths[0].segments, 1501u);
  EXPECT_NEAR(r.drift.lengths[7].translation_percent, 1.0, 1e-9);
}

TEST(Eval, KnownHeadingDriftGivesExpectedDegreesPerMetre) {
  // GT along x at every metre over 160 m (lengths 10..80 m). The estimate's heading turns by
  // 0.05 deg per metre travelled, so angle(E) = 0.05 L over a segment of length L: 0.05 deg/m.
  std::vector<StampedPose> gt, est;
  for (int i = 0; i <= 160; ++i) {
    gt.push_back({0.1 * i, make_pose(Vector3d(i, 0.0, 0.0))});
    est.push_back({0.1 * i, make_pose(Vector3d(i, 0.0, 0.0), rot(0.05 * kDeg * i, Vector3d::UnitZ()))});
  }
  const EvalResult r = evaluate(est, gt);
  ASSERT_TRUE(r.drift.valid());
  EXPECT_NEAR(r.drift.lengths.front().length, 10.0, 1e-12);
  EXPECT_NEAR(r.drift.lengths.back().length, 80.0, 1e-12);
  EXPECT_NEAR(r.drift.rotation_deg_per_m, 0.05, 1e-9);
  // RPE pairs 1 m apart (the estimate's path also has 1 m steps): 0.05 deg each.
  EXPECT_EQ(r.rpe.rotation.count, 160u);
  EXPECT_NEAR(r.rpe.rotation.mean, 0.05, 1e-9);
}

TEST(Eval, RpeAtOneMetreUsesPairsAlongTheEstimatesPathAsEvo) {
  // GT steps 0.25 m along x, 100 m. Estimate 1 % long: steps 0.2525 m; the pose 4 steps later is
  // 1.01 m away (closest to 1 m, within 10 %), so every i < 397 pairs with i + 4, GT distance 1 m:
  // |t(E)| = 0.01 m. The last 4 starts only reach 3 steps = 0.7575 m (24 % off): no pair.
  std::vector<double> x_gt, x_est;
  for (int i = 0; i <= 400; ++i) {
    x_gt.push_back(0.25 * i);
    x_est.push_back(0.2525 * i);
  }
  EvalResult r = evaluate(line_x(x_est), line_x(x_gt));
  EXPECT_EQ(r.rpe.translation.count, 397u);
  EXPECT_NEAR(r.rpe.translation.rmse, 0.01, 1e-9);
  EXPECT_NEAR(r.rpe.translation.mean, 0.01, 1e-9);
  EXPECT_NEAR(r.rpe.rotation.max, 0.0, 1e-9);

  // 30 % long: 3 estimate steps = 0.975 m is closest to 1 m; those 3 steps are 0.75 m of GT, so
  // |t(E)| = 0.975 - 0.75 = 0.225 m (pairs are chosen on the estimate, as evo does).
  for (int i = 0; i <= 400; ++i) x_est[static_cast<std::size_t>(i)] = 0.325 * i;
  r = evaluate(line_x(x_est), line_x(x_gt));
  EXPECT_EQ(r.rpe.translation.count, 398u);
  EXPECT_NEAR(r.rpe.translation.mean, 0.225, 1e-9);
}

// ---- Association -------------------------------------------------------------------------------

/// Piecewise constant linear and angular velocity, changing at whole seconds: linear interpolation
/// of translation and slerp of rotation are exact between two samples of the same piece.
Isometry3d piecewise(double t) {
  const Vector3d v[6] = {{1.0, 0.0, 0.1}, {0.5, 1.0, 0.0}, {-1.0, 0.5, -0.1}, {0.0, -1.0, 0.2}, {1.5, 0.2, 0.0}, {0.3, 0.9, -0.3}};
  const Vector3d w[6] = {{0.0, 0.0, 0.5}, {0.1, 0.0, 0.3}, {0.0, -0.2, 0.0}, {0.3, 0.3, 0.3}, {0.0, 0.0, -0.8}, {-0.2, 0.1, 0.0}};
  Vector3d p = Vector3d::Zero();
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  for (int k = 0; k < 6; ++k) {
    const double dt = std::clamp(t - k, 0.0, 1.0);
    p += v[k] * dt;
    R = rot(w[k].norm() * dt, w[k]) * R;  // world-frame angular velocity
    if (t <= k + 1) break;
  }
  return make_pose(p, R);
}

TEST(EvalAssociation, InterpolatesHighRateGroundTruthAndRemovesARigidTransform) {
  // GT at 100 Hz over 6 s; estimate at 10 Hz at stamps between GT samples (0.0037 + 0.1 k), computed
  // from the exact motion and moved by a rigid transform. Interpolated GT is exact here.
  const auto gt = sample(piecewise, 0.0, 0.01, 601);
  const Isometry3d A = rigid_offset();
  std::vector<StampedPose> est;
  for (int k = 0; k < 60; ++k) {
    const double t = 0.0037 + 0.1 * k;
    est.push_back({t, A * piecewise(t)});
  }
  const EvalResult r = evaluate(est, gt);
  EXPECT_EQ(r.association.interpolated, 60u);
  EXPECT_EQ(r.association.nearest, 0u);
  EXPECT_LT(r.ate.max, 1e-9);
  EXPECT_LT(r.rpe.translation.max, 1e-9);
  EXPECT_LT(r.rpe.rotation.max, 1e-6);
  expect_isometry_near(r.T_alignment, A.inverse(), 1e-9);
  EXPECT_NEAR(r.coverage, (0.0037 + 5.9 - 0.0037) / 6.0, 1e-9);
}

TEST(EvalAssociation, ExtrinsicOffsetIsRemovedByEstToGt) {
  // The estimate tracks another body frame: T_world_est = A T_world_gt T_est_gt^-1. With the
  // extrinsic given, T_world_est T_est_gt = A T_world_gt: zero error after alignment.
  const Isometry3d T_est_gt = make_pose(Vector3d(0.1, -0.2, 0.3), rot(10.0 * kDeg, Vector3d(0.0, 1.0, 1.0)));
  const auto gt = sample(curvy, 0.0, 0.1, 300);
  const auto est = transformed(rigid_offset(), gt, T_est_gt.inverse());

  EvalParams params;
  params.T_est_gt = T_est_gt;
  const EvalResult with = evaluate(est, gt, params);
  EXPECT_LT(with.ate.max, 1e-9);
  EXPECT_LT(with.rpe.translation.max, 1e-9);
  EXPECT_LT(with.drift.translation_percent, 1e-7);

  const EvalResult without = evaluate(est, gt);  // a 0.37 m lever arm on a turning path stays visible
  EXPECT_GT(without.ate.rmse, 0.05);
}

TEST(EvalAssociation, ParsesTheExtrinsicText) {
  expect_isometry_near(parse_pose("1 2 3 0 0 0.7071067811865476 0.7071067811865476"), make_pose(Vector3d(1, 2, 3), rot(90.0 * kDeg, Vector3d::UnitZ())), 1e-12);
  expect_isometry_near(parse_pose("0, 0, 0, 0, 0, 0, 1"), Isometry3d::Identity(), 1e-12);
  EXPECT_THROW(parse_pose("1 2 3"), std::invalid_argument);
  EXPECT_THROW(parse_pose("1 2 3 0 0 0 2"), std::invalid_argument);  // not a unit quaternion
  EXPECT_THROW(parse_pose("1 2 3 0 0 0 1 5"), std::invalid_argument);
}

TEST(EvalAssociation, CoverageAndPosesOutsideTheGroundTruth) {
  // GT over [0, 10] s; the estimate over [2, 20] s at 10 Hz: 81 poses in [2, 10], 100 after it.
  // Coverage = (10 - 2) / 10.
  const auto gt = sample(curvy, 0.0, 0.1, 101);
  const auto est = sample(curvy, 2.0, 0.1, 181);
  const EvalResult r = evaluate(est, gt);
  EXPECT_EQ(r.association.size(), 81u);
  EXPECT_EQ(r.association.skipped_outside, 100u);
  EXPECT_NEAR(r.coverage, 0.8, 1e-9);
  EXPECT_LT(r.ate.max, 1e-9);
}

TEST(EvalAssociation, GapsInTheGroundTruthAreNotBridged) {
  // GT at 10 Hz over [0, 10] s without the poses strictly between 4 s and 6 s (a 2 s gap > max_gap
  // 0.5 s). Estimate at 10 Hz halfway between GT stamps: the 20 stamps 4.05 .. 5.95 s are 0.05 s
  // from any GT pose (> max_dt 0.01 s), so they are skipped; the 80 others are interpolated.
  std::vector<StampedPose> gt;
  for (const auto& p : sample(curvy, 0.0, 0.1, 101)) {
    if (p.stamp < 4.0 + 1e-9 || p.stamp > 6.0 - 1e-9) gt.push_back(p);
  }
  const auto est = sample(curvy, 0.05, 0.1, 100);
  const EvalResult r = evaluate(est, gt);
  EXPECT_EQ(r.association.skipped_gap, 20u);
  EXPECT_EQ(r.association.interpolated, 80u);
  EXPECT_EQ(r.association.nearest, 0u);
}

TEST(EvalAssociation, NearestGroundTruthWithinMaxDtAtTheEnds) {
  // GT over [0, 1] s; estimate stamps 0.005 s before the first and after the last GT pose take them
  // (within max_dt 0.01 s); 0.02 s outside is skipped.
  const auto gt = sample(curvy, 0.0, 0.1, 11);
  const std::vector<StampedPose> est = {{-0.02, curvy(0.0)}, {-0.005, curvy(0.0)}, {0.5, curvy(0.5)}, {1.005, curvy(1.0)}, {1.02, curvy(1.0)}};
  const Association a = associate(est, gt);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.nearest, 2u);
  EXPECT_EQ(a.skipped_outside, 2u);
  expect_isometry_near(a.T_gt.front(), curvy(0.0), 1e-12);
  expect_isometry_near(a.T_gt.back(), curvy(1.0), 1e-12);
}

// ---- Inputs that cannot be compared -----------------------------------------------------------

TEST(EvalErrors, NoTemporalOverlapNamesBothTimeRanges) {
  const auto gt = sample(curvy, 0.0, 0.1, 101);
  const auto est = sample(curvy, 20.0, 0.1, 101);
  try {
    evaluate(est, gt);
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no temporal overlap"), std::string::npos) << what;
    EXPECT_NE(what.find("[20.000000, 30.000000]"), std::string::npos) << what;
    EXPECT_NE(what.find("[0.000000, 10.000000]"), std::string::npos) << what;
  }
}

TEST(EvalErrors, TooFewAssociatedPoses) {
  // Overlap of two estimate poses only (9.9 and 10.0 s).
  const auto gt = sample(curvy, 0.0, 0.1, 101);
  const auto est = sample(curvy, 9.9, 0.1, 20);
  try {
    evaluate(est, gt);
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_NE(std::string(e.what()).find("too few poses"), std::string::npos) << e.what();
  }
}

class EvalFiles : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_eval_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    const auto path = (dir / name).string();
    std::ofstream(path) << content;
    return path;
  }
  std::string write(const std::string& name, const std::vector<StampedPose>& poses) {
    const auto path = (dir / name).string();
    std::string error;
    EXPECT_TRUE(asuka::write_tum(path, poses, &error)) << error;
    return path;
  }
  fs::path dir;
};

TEST_F(EvalFiles, BadLinesAndUnsortedStampsAreNamed) {
  const auto bad = write("bad.tum", "# t x y z qx qy qz qw\n0 0 0 0 0 0 0 1\n0.1 0 0 zero 0 0 0 1\n");
  try {
    load_trajectory(bad, "estimate");
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("estimate"), std::string::npos) << what;
    EXPECT_NE(what.find("bad.tum:3"), std::string::npos) << what;
  }
  const auto unsorted = write("unsorted.tum", "0 0 0 0 0 0 0 1\n0.2 0 0 0 0 0 0 1\n0.1 0 0 0 0 0 0 1\n");
  try {
    load_trajectory(unsorted, "ground truth");
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_NE(std::string(e.what()).find("stamps must increase"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_trajectory(write("empty.tum", "# nothing\n\n"), "estimate"), EvalError);
  EXPECT_THROW(load_trajectory((dir / "missing.tum").string(), "estimate"), EvalError);
}

// ---- The program -------------------------------------------------------------------------------

using asuka::test::run_command;

std::string read_text(const fs::path& path) { return asuka::test::read_text_file(path.string()); }

const std::string kProgram = std::string(ASUKA_BINARY_DIR) + "/bin/asuka_eval";

TEST_F(EvalFiles, ProgramWritesSummaryJsonAndSvg) {
  // The known-noise construction of KnownNoiseGivesExpectedRmse, through files (9 decimals):
  // ATE rmse sqrt(0.05) m, every pose associated, full coverage.
  std::vector<StampedPose> gt, est;
  const double s[4] = {1.0, -1.0, -1.0, 1.0};
  for (int i = 0; i < 400; ++i) {
    const int k = i / 4;
    const Vector3d p(i, 0.5 * k * k, 0.0);
    gt.push_back({0.1 * i, make_pose(p)});
    est.push_back({0.1 * i, make_pose(p + Vector3d(0.0, 0.0, (k % 2 == 0 ? 0.1 : 0.3) * s[i % 4]))});
  }
  const auto gt_path = write("gt.tum", gt);
  const auto est_path = write("est & co.tum", est);  // a name that needs escaping in SVG
  const auto json_path = dir / "report.json";
  const auto svg_path = dir / "plot.svg";

  const auto r = run_command(kProgram + " '" + est_path + "' " + gt_path + " --json " + json_path.string() + " --plot " + svg_path.string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ATE [m]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("coverage      100.0 %"), std::string::npos) << r.output;

  const auto j = nlohmann::json::parse(read_text(json_path));
  EXPECT_NEAR(j["ate_m"]["rmse"].get<double>(), std::sqrt(0.05), 1e-6);
  EXPECT_NEAR(j["ate_m"]["max"].get<double>(), 0.3, 1e-6);
  EXPECT_EQ(j["association"]["associated"].get<int>(), 400);
  EXPECT_NEAR(j["coverage_percent"].get<double>(), 100.0, 1e-9);
  EXPECT_TRUE(j["drift"]["translation_percent"].is_number());
  EXPECT_TRUE(j["rpe"]["translation_m"]["rmse"].is_number());
  EXPECT_EQ(j["settings"]["align"].get<bool>(), true);

  const std::string svg = read_text(svg_path);
  EXPECT_TRUE(svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0) << svg.substr(0, 100);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("est &amp; co.tum"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);

  // --json - prints JSON instead of the summary on stdout.
  const auto r_json = run_command(kProgram + " '" + est_path + "' " + gt_path + " --json - 2>/dev/null");
  ASSERT_EQ(r_json.exit_code, 0);
  EXPECT_NEAR(nlohmann::json::parse(r_json.output)["ate_m"]["rmse"].get<double>(), std::sqrt(0.05), 1e-6);
}

TEST_F(EvalFiles, ProgramExitCodesSayWhyFilesCannotBeCompared) {
  const auto gt_path = write("gt.tum", sample(curvy, 0.0, 0.1, 101));
  const auto late_path = write("late.tum", sample(curvy, 50.0, 0.1, 101));
  const auto bad_path = write("bad.tum", "0 0 0 0 0 0 0 1\n0.1 0 0 0 0 0 0\n");

  auto r = run_command(kProgram + " " + late_path + " " + gt_path + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no temporal overlap"), std::string::npos) << r.output;

  r = run_command(kProgram + " " + bad_path + " " + gt_path + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.tum:2"), std::string::npos) << r.output;

  r = run_command(kProgram + " " + gt_path + " " + gt_path + " --est-to-gt '1 2 3' 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;

  r = run_command(kProgram + " " + gt_path + " 2>&1");  // GT missing
  EXPECT_EQ(r.exit_code, 1) << r.output;

  r = run_command(kProgram + " " + gt_path + " " + gt_path + " --json " + (dir / "no_such_dir" / "r.json").string() + " 2>&1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
}

}  // namespace
}  // namespace asuka::eval
