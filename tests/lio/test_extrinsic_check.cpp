// #16: the LiDAR-IMU extrinsic rotation checked against the motion (asuka/lio/extrinsic_check.hpp):
// the verdict from rotation pairs with known answers, the gyroscope's integration, and the LiDAR-only
// odometry (asuka/lio/lidar_odometry.hpp) together with the check on scans of a synthetic room.

#include <cmath>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/extrinsic_check.hpp>
#include <asuka/lio/lidar_odometry.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {
namespace {

constexpr double kPi = 3.14159265358979323846;

double angle_deg(const Eigen::Matrix3d& R) { return so3::log(R).norm() * 180.0 / kPi; }

Eigen::Matrix3d upside_down() { return Eigen::Vector3d(1.0, -1.0, -1.0).asDiagonal(); }  // 180 deg about x

/// Rotation pairs as a sensor whose LiDAR sits at R_imu_lidar sees them: random turns of 0.02-0.1 rad
/// per interval about axes spread over `spread` around z (0: yaw only), with registration noise of
/// `noise` rad per axis on the LiDAR's side.
std::vector<RotationPair> pairs_for(const Eigen::Matrix3d& R_imu_lidar, double spread, double noise, int count = 60, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> angle(0.02, 0.1), sign(-1.0, 1.0);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<RotationPair> out;
  for (int i = 0; i < count; ++i) {
    const Eigen::Vector3d axis = Eigen::Vector3d(spread * n(rng), spread * n(rng), 1.0).normalized();
    const Eigen::Vector3d theta_imu = (sign(rng) < 0.0 ? -1.0 : 1.0) * angle(rng) * axis;
    RotationPair p;
    p.imu = theta_imu;
    p.lidar = R_imu_lidar.transpose() * theta_imu + noise * Eigen::Vector3d(n(rng), n(rng), n(rng));
    out.push_back(p);
  }
  return out;
}

TEST(ExtrinsicCheckTest, Issue16_TheRightRotationIsConsistent) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.1, -0.2, 1.2));
  const auto pairs = pairs_for(R, 0.6, 0.001);
  const auto v = ExtrinsicCheck::decide(pairs, R, ExtrinsicCheckParams{});
  EXPECT_EQ(v.verdict, ExtrinsicRotationCheck::Verdict::CONSISTENT) << v.message;
  EXPECT_LT(v.disagreement_deg, 3.0);
  EXPECT_EQ(v.pairs, pairs.size());
  ASSERT_TRUE(v.estimated);
  EXPECT_LT(angle_deg(R.transpose() * v.R_imu_lidar_estimated), 1.0);
  EXPECT_NE(v.message.find("agrees with the motion"), std::string::npos) << v.message;
}

TEST(ExtrinsicCheckTest, Issue16_AnUpsideDownMountIsWrongAndTheAxisAlignedMountIsNamed) {
  const auto pairs = pairs_for(upside_down(), 0.6, 0.001);
  const auto v = ExtrinsicCheck::decide(pairs, Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{});
  EXPECT_EQ(v.verdict, ExtrinsicRotationCheck::Verdict::WRONG) << v.message;
  EXPECT_GT(v.disagreement_deg, 90.0);
  ASSERT_TRUE(v.estimated);
  EXPECT_LT(v.estimated_fit_deg, 2.0);
  EXPECT_NEAR(v.estimated_to_configured_deg, 180.0, 1.0);
  EXPECT_LT(angle_deg(upside_down().transpose() * v.R_imu_lidar_estimated), 1.0);
  // The setting, the exact mount, and how to turn the check off.
  EXPECT_NE(v.message.find("is wrong"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("axis-aligned mount [1, 0, 0, 0, -1, 0, 0, 0, -1] (roll 180.0 pitch"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("Set it: --set config_odometry.sensor.extrinsic_R=[1,0,0,0,-1,0,0,0,-1]"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("config_odometry.sensor.extrinsic_check false"), std::string::npos) << v.message;
}

TEST(ExtrinsicCheckTest, Issue16_TurningAboutOneAxisStillShowsAFlippedAxis) {
  const auto pairs = pairs_for(upside_down(), 0.0, 0.001);  // a car: yaw only
  const auto v = ExtrinsicCheck::decide(pairs, Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{});
  EXPECT_EQ(v.verdict, ExtrinsicRotationCheck::Verdict::WRONG) << v.message;
  EXPECT_FALSE(v.estimated);
  EXPECT_NE(v.message.find("turned about one axis only"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("the LiDAR turned about its axis (0.00, 0.00, 1.00), which the configured rotation puts at (0.00, 0.00, 1.00) in the IMU frame, while the gyroscope turned about (0.00, 0.00, -1.00)"), std::string::npos) << v.message;
  // A mount turned about that same axis leaves yaw-only motion unchanged: nothing can be claimed.
  const Eigen::Matrix3d yawed = so3::exp(Eigen::Vector3d(0.0, 0.0, 0.5 * kPi));
  EXPECT_EQ(ExtrinsicCheck::decide(pairs_for(yawed, 0.0, 0.001), Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{}).verdict,
            ExtrinsicRotationCheck::Verdict::CONSISTENT);
}

TEST(ExtrinsicCheckTest, Issue16_AModerateErrorIsWarnedAndRegistrationNoiseIsNot) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(20.0 * kPi / 180.0, 0.0, 0.0));  // 20 deg of roll
  const auto suspect = ExtrinsicCheck::decide(pairs_for(R, 0.6, 0.001), Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{});
  EXPECT_EQ(suspect.verdict, ExtrinsicRotationCheck::Verdict::SUSPECT) << suspect.message;
  EXPECT_NEAR(suspect.estimated_to_configured_deg, 20.0, 1.0);
  EXPECT_NE(suspect.message.find("looks off"), std::string::npos);
  // 3 mrad of registration noise per axis on 0.02-0.1 rad turns: the median stays well inside.
  const auto noisy = ExtrinsicCheck::decide(pairs_for(Eigen::Matrix3d::Identity(), 0.6, 0.003), Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{});
  EXPECT_EQ(noisy.verdict, ExtrinsicRotationCheck::Verdict::CONSISTENT) << noisy.message;
}

TEST(ExtrinsicCheckTest, Issue16_PairsThatNoRotationExplainsAreNotBlamedOnTheExtrinsic) {
  // A clock offset pairs each LiDAR interval with another interval's gyroscope: no fixed rotation
  // maps one onto the other.
  auto pairs = pairs_for(Eigen::Matrix3d::Identity(), 0.8, 0.001, 80, 4);
  const auto shuffled = pairs_for(Eigen::Matrix3d::Identity(), 0.8, 0.001, 80, 5);
  for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].imu = shuffled[i].imu;
  const auto v = ExtrinsicCheck::decide(pairs, Eigen::Matrix3d::Identity(), ExtrinsicCheckParams{});
  EXPECT_NE(v.verdict, ExtrinsicRotationCheck::Verdict::WRONG) << v.message;
  EXPECT_NE(v.message.find("no fixed rotation explains it"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("time offset"), std::string::npos) << v.message;
}

TEST(ExtrinsicCheckTest, Issue16_FitRotationIsExactOnExactPairs) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(2.0, -0.4, 0.7));
  EXPECT_LT(angle_deg(R.transpose() * ExtrinsicCheck::fit_rotation(pairs_for(R, 0.5, 0.0))), 1e-6);
}

TEST(ExtrinsicCheckTest, Issue16_TheGyroscopeIsIntegratedOverExactlyTheInterval) {
  std::deque<ImuData> samples;
  const Eigen::Vector3d w(0.3, -0.2, 1.0);
  for (int i = 0; i <= 100; ++i) {
    ImuData s;
    s.stamp = 10.0 + 0.005 * i;
    s.gyro = w;
    samples.push_back(s);
  }
  // Interval ends between samples: the parts of the first and last sample intervals count.
  const auto R = ExtrinsicCheck::integrate_gyro(samples, 10.0123, 10.3377);
  ASSERT_TRUE(R.has_value());
  EXPECT_LT((so3::log(*R) - w * (10.3377 - 10.0123)).norm(), 1e-12);
  EXPECT_FALSE(ExtrinsicCheck::integrate_gyro(samples, 9.9, 10.2).has_value());  // before the first sample
  EXPECT_FALSE(ExtrinsicCheck::integrate_gyro(samples, 10.2, 10.6).has_value());  // after the last
}

// ---- the LiDAR alone, and the whole check, on scans of a synthetic room -----------------------------

/// Surface points of a 30 x 24 x 8 m room with four pillars and a slanted block, every 0.1 m.
std::vector<Eigen::Vector3d> room() {
  std::vector<Eigen::Vector3d> pts;
  const double s = 0.1;
  for (double a = -15.0; a <= 15.0; a += s) {
    for (double b = 0.0; b <= 8.0; b += s) {
      pts.emplace_back(a, -12.0, b);
      pts.emplace_back(a, 12.0, b);
    }
  }
  for (double a = -12.0; a <= 12.0; a += s) {
    for (double b = 0.0; b <= 8.0; b += s) {
      pts.emplace_back(-15.0, a, b);
      pts.emplace_back(15.0, a, b);
    }
  }
  for (double x = -15.0; x <= 15.0; x += s) {
    for (double y = -12.0; y <= 12.0; y += s) {
      pts.emplace_back(x, y, 0.0);
      if (std::fabs(x) < 6.0 && std::fabs(y) < 4.0) pts.emplace_back(x, y, 0.5 + 0.1 * x + 0.05 * y);  // slanted block
    }
  }
  for (const Eigen::Vector2d& c : {Eigen::Vector2d(-7.0, -5.0), Eigen::Vector2d(8.0, -6.0), Eigen::Vector2d(-9.0, 6.0), Eigen::Vector2d(7.0, 7.0)}) {
    for (double z = 0.0; z <= 8.0; z += s) {
      for (double t = -0.5; t <= 0.5; t += s) {
        pts.emplace_back(c.x() + t, c.y() - 0.5, z);
        pts.emplace_back(c.x() + t, c.y() + 0.5, z);
        pts.emplace_back(c.x() - 0.5, c.y() + t, z);
        pts.emplace_back(c.x() + 0.5, c.y() + t, z);
      }
    }
  }
  return pts;
}

/// The IMU's pose at time t: a hand-held walk that turns about all three axes.
Eigen::Isometry3d imu_pose(double t) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = so3::exp(Eigen::Vector3d(0.25 * std::sin(1.3 * t), 0.2 * std::sin(0.9 * t + 1.0), 0.6 * std::sin(0.5 * t)));
  T.translation() = Eigen::Vector3d(3.0 * std::sin(0.3 * t), 2.0 * std::sin(0.2 * t), 1.5 + 0.1 * std::sin(t));
  return T;
}

Eigen::Vector3d imu_rate(double t) {  // body rate by differencing the poses (numerically exact enough)
  const double h = 1e-5;
  return so3::log(imu_pose(t - h).linear().transpose() * imu_pose(t + h).linear()) / (2.0 * h);
}

/// A scan of the room from the lidar at T_imu_lidar on the IMU at time t: every point within 25 m
/// (no occlusion), taken at one instant.
LidarFrame scan_at(const std::vector<Eigen::Vector3d>& scene, double t, const Eigen::Isometry3d& T_imu_lidar) {
  LidarFrame f;
  f.stamp = t;
  f.has_point_time = false;
  const Eigen::Isometry3d T_lidar_world = (imu_pose(t) * T_imu_lidar).inverse();
  for (const auto& p : scene) {
    const Eigen::Vector3d q = T_lidar_world * p;
    if (q.norm() > 25.0 || q.norm() < 1.0) continue;
    Point pt;
    pt.x = static_cast<float>(q.x());
    pt.y = static_cast<float>(q.y());
    pt.z = static_cast<float>(q.z());
    f.points.push_back(pt);
  }
  return f;
}

TEST(LidarOdometryTest, Issue16_TheLidarAloneFollowsTheRotation) {
  const auto scene = room();
  LidarOdometry odometry;
  LidarOdometry::Scan last;
  int registered = 0;
  double worst_deg = 0.0;
  for (int k = 0; k < 40; ++k) {
    const double t = 0.1 * k;
    const auto scan = odometry.add(scan_at(scene, t, Eigen::Isometry3d::Identity()));
    if (k > 0 && scan.registered) {
      ++registered;
      const Eigen::Matrix3d truth = imu_pose(t - 0.1).linear().transpose() * imu_pose(t).linear();
      const Eigen::Matrix3d seen = last.T_map_lidar.linear().transpose() * scan.T_map_lidar.linear();
      worst_deg = std::max(worst_deg, angle_deg(truth.transpose() * seen));
    }
    last = scan;
  }
  EXPECT_EQ(registered, 39);
  EXPECT_LT(worst_deg, 0.2);
}

/// Runs the check on the walk, the lidar mounted at `mounted`, configured as `configured`.
/// `rest_scans` scans held at rest at the walk's first pose come first (stamps before 0, the gyroscope
/// reading nothing), passed as at_rest as a frontend holding a static start does.
/// `later`: when given, a verdict that leaves the check running (GYRO_SCALE_SUSPECT) is collected there
/// and the walk goes on; the verdict that ends the check is returned.
std::optional<ExtrinsicRotationCheck> check_walk(const Eigen::Matrix3d& mounted, const Eigen::Matrix3d& configured, double gyro_scale = 1.0,
                                                 int rest_scans = 0, std::vector<ExtrinsicRotationCheck>* later = nullptr) {
  const auto scene = room();
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  T_imu_lidar.linear() = mounted;
  T_imu_lidar.translation() = Eigen::Vector3d(0.05, -0.02, 0.1);
  ExtrinsicCheck check;
  double imu_t = -0.05 - 0.1 * rest_scans;
  for (int k = 0; k < rest_scans; ++k) {
    const double t = -0.1 * (rest_scans - k);
    std::vector<ImuData> imu;
    for (; imu_t <= t + 1e-9; imu_t += 0.005) {
      ImuData s;
      s.stamp = imu_t;
      imu.push_back(s);  // at rest: no rotation
    }
    LidarFrame f = scan_at(scene, 0.0, T_imu_lidar);
    f.stamp = t;
    if (auto v = check.add(f, imu, configured, true)) return v;
  }
  for (int k = 0; k < 300; ++k) {
    const double t = 0.1 * k;
    std::vector<ImuData> imu;
    for (; imu_t <= t + 1e-9; imu_t += 0.005) {
      ImuData s;
      s.stamp = imu_t;
      s.gyro = gyro_scale * imu_rate(imu_t);
      imu.push_back(s);
    }
    if (auto v = check.add(scan_at(scene, t, T_imu_lidar), imu, configured)) {
      if (later == nullptr || check.done()) return v;
      later->push_back(*v);
    }
  }
  return std::nullopt;
}

TEST(ExtrinsicCheckTest, Issue16_TheWholeCheckOnAWalkInARoom) {
  const auto right = check_walk(upside_down(), upside_down());
  ASSERT_TRUE(right.has_value());
  EXPECT_EQ(right->verdict, ExtrinsicRotationCheck::Verdict::CONSISTENT) << right->message;
  EXPECT_LE(10 * right->slipped_pairs, right->pairs);  // a slipped registration is rare in this room
  EXPECT_LT(right->disagreement_deg, 2.0);

  const auto wrong = check_walk(upside_down(), Eigen::Matrix3d::Identity());
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->verdict, ExtrinsicRotationCheck::Verdict::WRONG) << wrong->message;
  ASSERT_TRUE(wrong->estimated) << wrong->message;
  EXPECT_LT(angle_deg(upside_down().transpose() * wrong->R_imu_lidar_estimated), 2.0);
}

// #12 item 3: a gyroscope in deg/s, or one in rad/s given gyro_scale 0.0175, turns by 57 times (or a
// 57th of) the LiDAR's angle, whatever the extrinsic: an input error that names the setting.
TEST(ExtrinsicCheckTest, Issue12_AGyroscopeScaleMistakeIsToldFromTheLidarsAngles) {
  const auto degrees = check_walk(upside_down(), upside_down(), 180.0 / M_PI);
  ASSERT_TRUE(degrees.has_value());
  EXPECT_EQ(degrees->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE) << degrees->message;
  EXPECT_NEAR(degrees->gyro_scale_ratio, 180.0 / M_PI, 0.05 * 180.0 / M_PI);
  EXPECT_NE(degrees->message.find("most likely reports deg/s"), std::string::npos) << degrees->message;
  EXPECT_NE(degrees->message.find("config_ros.gyro_scale to 0.017453293"), std::string::npos) << degrees->message;

  const auto scaled_twice = check_walk(upside_down(), Eigen::Matrix3d::Identity(), M_PI / 180.0);  // and a wrong extrinsic
  ASSERT_TRUE(scaled_twice.has_value());
  EXPECT_EQ(scaled_twice->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE) << scaled_twice->message;
  EXPECT_NEAR(scaled_twice->gyro_scale_ratio, M_PI / 180.0, 0.05 * M_PI / 180.0);
  EXPECT_NE(scaled_twice->message.find("set config_ros.gyro_scale to 1"), std::string::npos) << scaled_twice->message;

  // On their own: a median within 3x either way is no finding (a time offset or slipped
  // registrations scatter single intervals, not the median); another factor gets the generic words.
  ExtrinsicCheckParams params;
  std::vector<double> ratios(30, 1.0);
  for (std::size_t i = 0; i < ratios.size(); i += 3) ratios[i] = 8.0;  // a third of the intervals far off
  EXPECT_FALSE(ExtrinsicCheck::check_gyro_scale(ratios, params).has_value());
  // Registrations that slip on an aggressive start (measured, the gyroscope right): scattered, no finding.
  EXPECT_FALSE(ExtrinsicCheck::check_gyro_scale({3.770, 2.636, 3.730, 2.821, 4.986, 5.182, 5.192, 5.376, 7.419, 9.681}, params).has_value());
  EXPECT_FALSE(ExtrinsicCheck::check_gyro_scale(std::vector<double>(9, 57.3), params).has_value());  // too few
  const auto five = ExtrinsicCheck::check_gyro_scale(std::vector<double>(10, 5.0), params);
  ASSERT_TRUE(five.has_value());
  EXPECT_EQ(five->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT) << five->message;  // no unit mix-up: warned
  EXPECT_NE(five->message.find("multiply it by 0.2"), std::string::npos) << five->message;
  // 2x either side of 57.3 is the unit mix-up: refused.
  EXPECT_EQ(ExtrinsicCheck::check_gyro_scale(std::vector<double>(10, 30.0), params)->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE);
  EXPECT_EQ(ExtrinsicCheck::check_gyro_scale(std::vector<double>(10, 25.0), params)->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT);
}

// The LiDAR registered alone spun on a generated RS-16 hand-held run in an open field (asuka_sim
// --lidar rs16 --scene field --profile handheld --random-motion --duration 15 --seed 5): its first ten
// intervals, the gyroscope's angle and the LiDAR's [rad], the gyroscope right. The old rule refused
// the run (exit 2, "turned 0.166 times"); a factor of 6 is no unit mix-up, so it is a warning that
// names both causes, and the run goes on.
TEST(ExtrinsicCheckTest, Issue17_ALidarOnlySpinOnASixteenLineLidarIsWarnedAboutNotRefused) {
  const std::vector<std::pair<double, double>> measured{{0.0150, 0.0904}, {0.0186, 0.0129}, {0.0269, 0.1567}, {0.0222, 0.0801}, {0.0146, 0.0846},
                                                        {0.0135, 0.0811}, {0.0127, 0.0852}, {0.0122, 0.0842}, {0.0124, 0.0900}, {0.0130, 0.0831}};
  std::vector<double> ratios;
  for (const auto& [gyro, lidar] : measured) ratios.push_back(gyro / lidar);
  const auto verdict = ExtrinsicCheck::check_gyro_scale(ratios, ExtrinsicCheckParams{});
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT) << verdict->message;
  EXPECT_NEAR(verdict->gyro_scale_ratio, 0.166, 0.001);
  EXPECT_NE(verdict->message.find("turned steadily by a wrong angle"), std::string::npos) << verdict->message;
  EXPECT_NE(verdict->message.find("config_ros.gyro_scale"), std::string::npos) << verdict->message;

  // The whole check: a gyroscope 5x off is warned about once, and the check goes on to a verdict of
  // its own (here none: every interval's angles differ 5x, so each counts as slipped).
  std::vector<ExtrinsicRotationCheck> warned;
  const auto end = check_walk(upside_down(), upside_down(), 5.0, 0, &warned);
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_EQ(warned[0].verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT) << warned[0].message;
  EXPECT_NEAR(warned[0].gyro_scale_ratio, 5.0, 0.25);
  ASSERT_TRUE(end.has_value());
  EXPECT_NE(end->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE_SUSPECT) << end->message;
  EXPECT_NE(end->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE) << end->message;
}

TEST(ExtrinsicCheckTest, Issue16_ScansHeldAtRestAreNotCountedAndTheWalkAfterThemIsJudged) {
  // A frontend holding a static start passes its scans as at rest: they are not registered (10-12 ms
  // each on a corridor) and do not count towards max_scans, and the walk that follows is judged as
  // without them.
  const auto scene = room();
  ExtrinsicCheckParams params;
  params.max_scans = 20;
  ExtrinsicCheck resting(params);
  for (int k = 0; k < 40; ++k) {
    LidarFrame f = scan_at(scene, 0.0, Eigen::Isometry3d::Identity());
    f.stamp = 0.1 * k;
    ImuData s;
    s.stamp = 0.1 * k;
    EXPECT_FALSE(resting.add(f, {s}, Eigen::Matrix3d::Identity(), true).has_value()) << k;  // not at rest, a NONE came at scan 20
  }
  EXPECT_FALSE(resting.done());

  const auto right = check_walk(upside_down(), upside_down(), 1.0, 30);
  ASSERT_TRUE(right.has_value());
  EXPECT_EQ(right->verdict, ExtrinsicRotationCheck::Verdict::CONSISTENT) << right->message;
  const auto wrong = check_walk(upside_down(), Eigen::Matrix3d::Identity(), 1.0, 30);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->verdict, ExtrinsicRotationCheck::Verdict::WRONG) << wrong->message;
}

TEST(LidarOdometryTest, Issue16_AScanHeldAtRestFillsTheMapTheNextOneRegistersAgainst) {
  const auto scene = room();
  LidarOdometry fresh;
  EXPECT_FALSE(fresh.add(scan_at(scene, 0.0, Eigen::Isometry3d::Identity())).registered);  // the first scan starts the map
  LidarOdometry held;
  held.hold(scan_at(scene, 0.0, Eigen::Isometry3d::Identity()));
  const auto next = held.add(scan_at(scene, 0.0, Eigen::Isometry3d::Identity()));
  EXPECT_TRUE(next.registered);
  EXPECT_LT(next.T_map_lidar.translation().norm(), 0.01);
  EXPECT_LT(angle_deg(next.T_map_lidar.linear()), 0.1);
}

TEST(ExtrinsicCheckTest, Issue16_NoRotationNoVerdictAndDisabledDoesNothing) {
  const auto scene = room();
  ExtrinsicCheckParams params;
  params.max_scans = 20;
  ExtrinsicCheck still(params);
  std::optional<ExtrinsicRotationCheck> v;
  for (int k = 0; k < 20 && !v; ++k) {
    LidarFrame f = scan_at(scene, 0.0, Eigen::Isometry3d::Identity());
    f.stamp = 0.1 * k;
    ImuData s;
    s.stamp = 0.1 * k;
    v = still.add(f, {s}, Eigen::Matrix3d::Identity());
  }
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->verdict, ExtrinsicRotationCheck::Verdict::NONE);
  EXPECT_NE(v->message.find("was not checked"), std::string::npos) << v->message;
  EXPECT_TRUE(still.done());

  params.enabled = false;
  ExtrinsicCheck off(params);
  EXPECT_TRUE(off.done());
  EXPECT_FALSE(off.add(scan_at(scene, 0.0, Eigen::Isometry3d::Identity()), {}, Eigen::Matrix3d::Identity()).has_value());
}

}  // namespace
}  // namespace asuka::lio
