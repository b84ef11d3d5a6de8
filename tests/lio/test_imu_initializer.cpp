// The static IMU initializer (asuka/lio/imu_initializer.hpp): R-IMU-1..4.

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <asuka/lio/imu_initializer.hpp>

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

}  // namespace
}  // namespace asuka::lio
