// #17 (R-IMU-5): the test for "still at rest as at the static initialization" that holds a static
// start (filter_frontend.hpp). At the simulator's noise (consumer MEMS) rest reads as rest scan after
// scan; the smallest motions that matter do not.

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/rest_detector.hpp>

namespace asuka::lio {
namespace {

constexpr double kRate = 200.0;  // [Hz]
const Eigen::Vector3d kGravityReading(0.1, -0.2, 9.79);
const Eigen::Vector3d kGyroBias(0.003, -0.002, 0.001);
constexpr double kAccStd = 0.028, kGyroStd = 0.0028;  // per sample at 200 Hz: the simulator's densities

/// One scan (0.1 s) of samples from `t0`: rest plus `acc` [m/s^2] and `gyro` [rad/s], with noise.
std::vector<ImuData> scan(double t0, std::mt19937& rng, const Eigen::Vector3d& acc = Eigen::Vector3d::Zero(),
                          const Eigen::Vector3d& gyro = Eigen::Vector3d::Zero()) {
  std::normal_distribution<double> a(0.0, kAccStd), g(0.0, kGyroStd);
  std::vector<ImuData> out;
  for (int i = 1; i <= 20; ++i) {
    ImuData s;
    s.stamp = t0 + i / kRate;
    s.acc = kGravityReading + acc + Eigen::Vector3d(a(rng), a(rng), a(rng));
    s.gyro = kGyroBias + gyro + Eigen::Vector3d(g(rng), g(rng), g(rng));
    out.push_back(s);
  }
  return out;
}

RestDetector detector() {
  RestDetector d;
  d.start(kGravityReading, kGyroBias, kAccStd, kGyroStd);
  return d;
}

TEST(RestDetectorTest, Issue17_RestReadsAsRestScanAfterScan) {
  const auto d = detector();
  std::mt19937 rng(7);
  for (int k = 0; k < 3000; ++k) ASSERT_TRUE(d.still(scan(0.1 * k, rng), 0.1 * k)) << "scan " << k;  // five minutes at rest
  EXPECT_TRUE(d.still({}, 0.0)) << "no sample: no evidence of motion";
}

TEST(RestDetectorTest, Issue17_TheSmallestMotionsThatMatterAreMotion) {
  const auto d = detector();
  std::mt19937 rng(8);
  // A hand-held start's ramp a tenth of a second in (0.04-0.06 m/s^2), a turn of a third of a degree
  // per second, either axis.
  EXPECT_FALSE(d.still(scan(0.0, rng, Eigen::Vector3d(0.06, 0.0, 0.0)), 0.0));
  EXPECT_FALSE(d.still(scan(0.0, rng, Eigen::Vector3d(0.0, 0.0, -0.06)), 0.0));
  EXPECT_FALSE(d.still(scan(0.0, rng, Eigen::Vector3d::Zero(), Eigen::Vector3d(0.0, 0.0, 0.006)), 0.0));
  // A knock: one sample far off, the mean hardly moved.
  auto knocked = scan(0.0, rng);
  knocked[10].acc.x() += 0.5;
  EXPECT_FALSE(d.still(knocked, 0.0));
  // Samples up to `from` are the previous scan's: not looked at.
  auto earlier = scan(0.0, rng, Eigen::Vector3d(1.0, 0.0, 0.0));
  const auto later = scan(0.1, rng);
  earlier.insert(earlier.end(), later.begin(), later.end());
  EXPECT_TRUE(d.still(earlier, 0.1));
}

}  // namespace
}  // namespace asuka::lio
