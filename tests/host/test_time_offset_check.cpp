// The LiDAR-IMU time-offset estimator (asuka/host/time_offset_check.hpp, #12 item 4) on synthetic
// signals: poses at 10 Hz from a known rotation, a gyroscope at 200 Hz with noise and a bias, one of
// the two clocks shifted by a known amount.

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <asuka/host/time_offset_check.hpp>
#include <asuka/math/so3.hpp>

namespace asuka {
namespace {

/// A body rate that varies on all axes (a handheld sensor's sway), [rad/s].
Eigen::Vector3d rate(double t) {
  return Eigen::Vector3d(0.6 * std::sin(1.3 * t) + 0.2 * std::sin(4.1 * t), 0.5 * std::sin(0.9 * t + 1.0), 0.8 * std::sin(0.7 * t + 2.0) + 0.1 * std::cos(3.3 * t));
}

struct Signals {
  std::vector<std::pair<double, Eigen::Matrix3d>> poses;
  std::vector<std::pair<double, Eigen::Vector3d>> gyro;
};

/// `lidar_late` [s] is added to the pose stamps (a lidar clock running behind), `amplitude` scales the
/// rotation, `seconds` of data, `pose_std` [rad] is the registration's noise per pose and axis.
Signals make(double lidar_late, double amplitude = 1.0, double seconds = 30.0, std::uint32_t seed = 1, double pose_std = 0.002) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> gyro_noise(0.0, 0.01), pose_noise(0.0, pose_std);
  Signals s;
  const Eigen::Vector3d bias(0.01, -0.02, 0.005);
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  const double dt = 0.0005;  // the true rotation integrated finely
  double next_gyro = 0.0, next_pose = 0.0;
  for (double t = 0.0; t < seconds; t += dt) {
    if (t >= next_gyro) {
      s.gyro.emplace_back(t, amplitude * rate(t) + bias + Eigen::Vector3d(gyro_noise(rng), gyro_noise(rng), gyro_noise(rng)));
      next_gyro += 0.005;
    }
    if (t >= next_pose) {
      const Eigen::Vector3d noise(pose_noise(rng), pose_noise(rng), pose_noise(rng));
      s.poses.emplace_back(t + lidar_late, R * so3::exp(noise));
      next_pose += 0.1;
    }
    R = R * so3::exp(amplitude * rate(t + 0.5 * dt) * dt);
  }
  return s;
}

TEST(TimeOffsetCheckTest, FindsTheOffsetWithItsSign) {
  TimeOffsetParams params;
  for (const double late : {0.0, 0.5, -0.5, 0.12, -0.03}) {
    const Signals s = make(late);
    const TimeOffsetEstimate e = TimeOffsetCheck::estimate(s.poses, s.gyro, params);
    ASSERT_TRUE(e.valid) << late << ": " << e.reason;
    // A pose stamped late by d matches the gyroscope d earlier: tau = -d, the correction to add.
    EXPECT_NEAR(e.offset, -late, 0.003) << late;
    EXPECT_GT(e.correlation, 0.95) << late;
    if (std::fabs(late) >= 0.5) {  // a slow sway still correlates at a small shift
      EXPECT_LT(e.at_zero, e.correlation - 0.05) << late;
    }
  }
}

TEST(TimeOffsetCheckTest, AnImuGapDoesNotMoveTheEstimate) {
  // 2 s without gyroscope samples: the intervals across it are left out (interpolating the integral
  // over the gap biased the estimate by 18 ms on simulated bags).
  for (const double late : {0.0, 0.2}) {
    Signals s = make(late);
    s.gyro.erase(std::remove_if(s.gyro.begin(), s.gyro.end(), [](const auto& g) { return g.first > 12.0 && g.first < 14.0; }), s.gyro.end());
    const TimeOffsetEstimate e = TimeOffsetCheck::estimate(s.poses, s.gyro, TimeOffsetParams{});
    ASSERT_TRUE(e.valid) << e.reason;
    EXPECT_NEAR(e.offset, -late, 0.003) << late;
  }
}

TEST(TimeOffsetCheckTest, AnUnknownRotationBetweenTheFramesIsFoundWithTheOffset) {
  // The doctor's case (#12 item 4): the LiDAR's own poses, whose frame is turned against the
  // gyroscope's by an extrinsic it does not know. Here upside down and turned 90 deg: with the frames
  // taken as one, no offset explains the rates; with unknown_rotation the offset is found as before.
  const Eigen::Matrix3d R_il = so3::exp(Eigen::Vector3d(M_PI, 0.0, 0.0)) * so3::exp(Eigen::Vector3d(0.0, 0.0, 0.5 * M_PI));
  TimeOffsetParams fixed;
  TimeOffsetParams unknown;
  unknown.unknown_rotation = true;
  for (const double late : {0.0, 0.5, -0.2}) {
    Signals s = make(late);
    const TimeOffsetEstimate same = TimeOffsetCheck::estimate(s.poses, s.gyro, unknown);  // the frames agree: the same answer
    ASSERT_TRUE(same.valid) << same.reason;
    EXPECT_NEAR(same.offset, -late, 0.003);
    for (auto& [t, R] : s.poses) R = R * R_il;  // R_world_lidar: the body rate seen as R_il^T w
    const TimeOffsetEstimate wrong = TimeOffsetCheck::estimate(s.poses, s.gyro, fixed);
    EXPECT_FALSE(wrong.valid && std::fabs(wrong.offset + late) < 0.003) << late;
    const TimeOffsetEstimate e = TimeOffsetCheck::estimate(s.poses, s.gyro, unknown);
    ASSERT_TRUE(e.valid) << late << ": " << e.reason;
    EXPECT_NEAR(e.offset, -late, 0.003) << late;
    EXPECT_GT(e.correlation, 0.95) << late;
  }
  // A rotation fitted at every shift still does not make unrelated motion correlate.
  const Signals a = make(0.0);
  Signals b = make(0.0);
  for (auto& [t, w] : b.gyro) w = Eigen::Vector3d(0.5 * std::sin(2.3 * t + 0.4), 0.4 * std::cos(1.7 * t), 0.6 * std::sin(0.5 * t));
  EXPECT_FALSE(TimeOffsetCheck::estimate(a.poses, b.gyro, unknown).valid);
}

TEST(TimeOffsetCheckTest, TooLittleRotationIsNoEstimate) {
  const Signals s = make(0.3, 0.01, 30.0, 1, 0.0005);  // 0.01 rad/s of sway, below min_rate_std
  const TimeOffsetEstimate e = TimeOffsetCheck::estimate(s.poses, s.gyro, TimeOffsetParams{});
  EXPECT_FALSE(e.valid);
  EXPECT_NE(e.reason.find("too little rotation"), std::string::npos) << e.reason;
}

TEST(TimeOffsetCheckTest, UnrelatedSignalsAreNotTrusted) {
  // The poses of one motion against the gyroscope of another: no offset explains them.
  Signals a = make(0.0, 1.0, 30.0, 1);
  Signals b = make(0.0, 1.0, 30.0, 2);
  for (auto& [t, w] : b.gyro) w = Eigen::Vector3d(w.z(), -w.x(), 0.3 * std::sin(2.9 * t));
  const TimeOffsetEstimate e = TimeOffsetCheck::estimate(a.poses, b.gyro, TimeOffsetParams{});
  EXPECT_FALSE(e.valid);
}

TEST(TimeOffsetCheckTest, TooFewPosesIsNoEstimate) {
  const Signals s = make(0.2, 1.0, 3.0);
  const TimeOffsetEstimate e = TimeOffsetCheck::estimate(s.poses, s.gyro, TimeOffsetParams{});
  EXPECT_FALSE(e.valid);
  EXPECT_EQ(e.reason, "too few poses");
}

TEST(TimeOffsetCheckTest, TheStreamingCheckUsesTheFirstWindowOnly) {
  TimeOffsetParams params;
  params.window_poses = 100;
  TimeOffsetCheck check(params);
  const Signals s = make(0.25, 1.0, 30.0);
  std::size_t g = 0;
  bool completed = false;
  for (const auto& [t, R] : s.poses) {
    while (g < s.gyro.size() && s.gyro[g].first <= t + 1.5) {
      check.add_imu(s.gyro[g].first, s.gyro[g].second);
      ++g;
    }
    completed = check.add_pose(t, R) || completed;
  }
  EXPECT_TRUE(completed);
  const TimeOffsetEstimate e = check.estimate();
  ASSERT_TRUE(e.valid) << e.reason;
  EXPECT_EQ(e.poses, 100u);
  EXPECT_NEAR(e.offset, -0.25, 0.003);
}

}  // namespace
}  // namespace asuka
