// The static IMU initializer (asuka/lio/imu_initializer.hpp): R-IMU-1..4.

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/imu_initializer.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {
namespace {

ImuData sample(double t, const Eigen::Vector3d& acc, const Eigen::Vector3d& gyro = Eigen::Vector3d::Zero()) {
  ImuData s;
  s.stamp = t;
  s.acc = acc;
  s.gyro = gyro;
  return s;
}

TEST(ImuInitializerTest, R_IMU_1_IncrementalMeanUntilMaxCount) {
  ImuInitializer init(10);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 0.05);
  Eigen::Vector3d sum_acc = Eigen::Vector3d::Zero();
  for (int i = 0; i < 11; ++i) {
    ImuData s;
    s.acc = Eigen::Vector3d(0.3 + n(rng), -0.2 + n(rng), 9.7 + n(rng));
    s.gyro = Eigen::Vector3d(0.01, -0.02, 0.005);
    sum_acc += s.acc;
    const bool done = init.add(s);
    EXPECT_EQ(done, i == 10) << i;  // initialized once the count passes MAX_INI_COUNT
  }
  EXPECT_TRUE(init.is_initialized());
  EXPECT_LT((init.get_mean_acceleration() - sum_acc / 11.0).norm(), 1e-12);
  EXPECT_LT((init.get_mean_gyroscope() - Eigen::Vector3d(0.01, -0.02, 0.005)).norm(), 1e-12);
  // R-IMU-3: the mean specific force is rotated onto +z (against gravity).
  const Eigen::Vector3d up = init.rotation() * init.get_mean_acceleration().normalized();
  EXPECT_LT((up - Eigen::Vector3d::UnitZ()).norm(), 1e-9);
  init.reset();  // R-IMU-4
  EXPECT_FALSE(init.is_initialized());
  EXPECT_EQ(init.count(), 0u);
}

TEST(ImuInitializerTest, R_IMU_2_HistoryIsPreferredAndNotCountedTwice) {
  ImuInitializer init(5);
  std::vector<ImuData> history;
  // Package 1: three samples, all in the history as well.
  for (int i = 0; i < 3; ++i) history.push_back(sample(0.01 * i, Eigen::Vector3d(0, 0, 9.0 + i)));
  EXPECT_FALSE(init.process(history, history));
  EXPECT_EQ(init.count(), 3u);
  // Package 2: the history now holds six samples; the package passed alongside is ignored.
  std::vector<ImuData> package;
  for (int i = 3; i < 6; ++i) {
    history.push_back(sample(0.01 * i, Eigen::Vector3d(0, 0, 9.0 + i)));
    package.push_back(sample(0.01 * i, Eigen::Vector3d(100, 100, 100)));
  }
  EXPECT_TRUE(init.process(package, history));
  EXPECT_EQ(init.count(), 6u);  // passed MAX_INI_COUNT = 5
  EXPECT_NEAR(init.get_mean_acceleration().z(), 11.5, 1e-12);  // mean of 9..14, each once
  EXPECT_NEAR(init.get_mean_acceleration().x(), 0.0, 1e-12);

  // Without a history the package is used.
  ImuInitializer direct(2);
  EXPECT_FALSE(direct.process({sample(0, Eigen::Vector3d(1, 0, 0))}, {}));
  EXPECT_TRUE(direct.process({sample(0.01, Eigen::Vector3d(3, 0, 0)), sample(0.02, Eigen::Vector3d(5, 0, 0))}, {}));
  EXPECT_NEAR(direct.get_mean_acceleration().x(), 3.0, 1e-12);
}

TEST(ImuInitializerTest, R_IMU_3_R_IMU_4_ResetReappliesTheConfiguration) {
  ImuInitializer init(ImuInitializerParams{2, Eigen::Vector3d(0, 0, -9.8), true});
  for (int i = 0; i < 3; ++i) init.add(sample(0.01 * i, Eigen::Vector3d(0, 0, -9.8)));  // upside down
  ASSERT_TRUE(init.is_initialized());
  // Antiparallel measured gravity: a proper 180 deg rotation, not -I (which is a reflection).
  EXPECT_NEAR(init.rotation().determinant(), 1.0, 1e-12);
  EXPECT_LT((init.rotation() * Eigen::Vector3d(0, 0, -1) - Eigen::Vector3d(0, 0, 1)).norm(), 1e-12);

  // New parameters wait for reset().
  init.configure(ImuInitializerParams{4, Eigen::Vector3d(0, -9.8, 0), true});
  EXPECT_EQ(init.params().max_init_count, 2u);
  init.reset();
  EXPECT_FALSE(init.is_initialized());
  EXPECT_EQ(init.params().max_init_count, 4u);
  for (int i = 0; i < 5; ++i) init.add(sample(0.01 * i, Eigen::Vector3d(0, 9.8, 0)));
  ASSERT_TRUE(init.is_initialized());
  EXPECT_TRUE(init.rotation().isIdentity(1e-12));  // parallel: measured up is the configured up

  // IMU disabled: initialized at once, the rotation is identity.
  init.configure(ImuInitializerParams{4, Eigen::Vector3d(0, 0, -9.8), false});
  init.reset();
  EXPECT_TRUE(init.is_initialized());
  EXPECT_TRUE(init.rotation().isIdentity(1e-12));
}

/// 200 Hz samples of a sensor turning about a tilted axis while it sways (a_world the motion's
/// acceleration), from R0 at t = 0; gravity (0, 0, -9.80665). `moving` false: at rest in R0.
std::vector<ImuData> rotating_samples(const Eigen::Matrix3d& R0, bool moving, std::size_t n, std::vector<Eigen::Matrix3d>* truth = nullptr) {
  std::mt19937 rng(5);
  std::normal_distribution<double> acc_noise(0.0, 0.03), gyro_noise(0.0, 0.003);
  std::vector<ImuData> out;
  Eigen::Matrix3d R = R0;
  const double dt = 0.005;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) * dt;
    const Eigen::Vector3d w = moving ? Eigen::Vector3d(0.8 * std::sin(3.0 * t), 0.5 * std::cos(2.0 * t), 0.6) : Eigen::Vector3d::Zero();
    const Eigen::Vector3d a_world = moving ? Eigen::Vector3d(0.4 * std::sin(4.0 * t), 0.3 * std::cos(5.0 * t), 0.2 * std::sin(6.0 * t)) : Eigen::Vector3d::Zero();
    ImuData s;
    s.stamp = t;
    s.gyro = w + Eigen::Vector3d(gyro_noise(rng), gyro_noise(rng), gyro_noise(rng));
    s.acc = R.transpose() * (a_world - Eigen::Vector3d(0, 0, -9.80665)) + Eigen::Vector3d(acc_noise(rng), acc_noise(rng), acc_noise(rng));
    out.push_back(s);
    if (truth) truth->push_back(R);
    R = R * so3::exp(w * dt);
  }
  return out;
}

/// Angle between the true and estimated "up" in the IMU frame [rad]: the tilt error.
double tilt_error(const Eigen::Matrix3d& R_true, const Eigen::Matrix3d& R_est) {
  const Eigen::Vector3d up = Eigen::Vector3d::UnitZ();
  return std::acos(std::clamp((R_true.transpose() * up).dot(R_est.transpose() * up), -1.0, 1.0));
}

TEST(ImuInitializerTest, AMovingStartIsDetectedAndGravityFoundFromTheMotion) {
  // #12 item 1: at rest (noise only) the start is static; turning at up to 1 rad/s it is moving, and
  // the gyro-compensated mean finds the tilt where the plain mean is off by tens of degrees.
  const Eigen::Matrix3d R0 = so3::exp(Eigen::Vector3d(0.3, -0.2, 0.5));
  ImuInitializer at_rest(100);
  for (const auto& s : rotating_samples(R0, false, 101)) at_rest.add(s);
  ASSERT_TRUE(at_rest.is_initialized());
  EXPECT_FALSE(at_rest.moving()) << at_rest.gyro_std() << " " << at_rest.acc_std();
  EXPECT_LT(tilt_error(R0, at_rest.rotation()), 0.01);

  std::vector<Eigen::Matrix3d> truth;
  const auto samples = rotating_samples(R0, true, 131, &truth);
  ImuInitializer moving(100);
  std::size_t used = 0;
  while (!moving.add(samples[used])) ++used;
  ASSERT_TRUE(moving.moving()) << moving.gyro_std() << " " << moving.acc_std();
  EXPECT_GT(tilt_error(truth[used], moving.rotation()), 0.1);  // averaging turning specific forces: 0.15 rad
  // What is left is the motion's mean horizontal acceleration over the 0.5 s window, 0.29 m/s^2 here:
  // 0.029 rad of tilt, which no IMU-only estimate can remove (the filter's gravity state does).
  EXPECT_LT(tilt_error(truth[used], moving.rotation_from_motion()), 0.035);
  // Carried on through later samples to a later time: the rotation there.
  const std::vector<ImuData> later(samples.begin() + static_cast<std::ptrdiff_t>(used) + 1, samples.end());
  const double end = samples[125].stamp;
  EXPECT_LT(tilt_error(truth[125], moving.rotation_from_motion(later, end)), 0.035);
  // The heading is the gauge (the world frame's yaw is free), only the tilt is compared.
}

}  // namespace
}  // namespace asuka::lio
