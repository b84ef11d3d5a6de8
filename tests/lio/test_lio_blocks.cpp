// The shared LIO building blocks of the core: synchronization (R-SYNC-1..8), IMU initialization
// (R-IMU-1, 3, 4), SO(3) maths, voxel map and plane fit, PCD I/O.

#include <cmath>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include <asuka/io/pcd_io.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/scan_synchronizer.hpp>
#include <asuka/lio/plane_fit.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/lio/voxel_map.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {
namespace {

LidarFrame::ConstPtr frame(double stamp, const std::vector<float>& offsets_ms, bool has_time = true) {
  auto f = std::make_shared<LidarFrame>();
  f->stamp = stamp;
  f->has_point_time = has_time;
  for (float o : offsets_ms) {
    Point p;
    p.x = 5.0f;
    p.offset_ms = o;
    f->points.push_back(p);
  }
  return f;
}

ImuData imu(double stamp) {
  ImuData s;
  s.stamp = stamp;
  return s;
}

void imu_until(ScanSynchronizer& sync, double from, double to) {
  const int n = static_cast<int>(std::lround((to - from) / 0.005));
  for (int k = 0; k <= n; ++k) sync.push_imu(imu(std::round((from + 0.005 * k) * 1e6) / 1e6));  // exact stamps
}

TEST(MeasureSyncTest, R_SYNC_2_EmptyBuffersGiveNothing) {
  ScanSynchronizer sync;
  ScanPackage g;
  EXPECT_FALSE(sync.pop(g));
  sync.push_frame(frame(0.0, {0, 50, 100}));
  EXPECT_FALSE(sync.pop(g));  // no IMU
  ScanSynchronizer only_imu;
  only_imu.push_imu(imu(1.0));
  EXPECT_FALSE(only_imu.pop(g));  // no frame
}

TEST(MeasureSyncTest, R_SYNC_3_R_SYNC_6_LockedFrameWaitsForImuToItsEnd) {
  ScanSynchronizer sync;
  ScanPackage g;
  sync.push_frame(frame(10.0, {0, 50, 97.5}));
  imu_until(sync, 9.995, 10.095);
  EXPECT_FALSE(sync.pop(g));            // newest IMU 10.095 < end 10.0975
  sync.push_frame(frame(10.1, {0, 99}));  // a later frame does not replace the locked one
  EXPECT_FALSE(sync.pop(g));
  EXPECT_EQ(sync.ready(), 0);
  sync.push_imu(imu(10.100));
  EXPECT_EQ(sync.ready(), 1);
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.begin, 10.0);
  EXPECT_NEAR(g.end, 10.0975, 1e-9);
  // Every sample not later than the end; the first later one stays for the next package.
  ASSERT_EQ(g.imu.size(), 21u);
  EXPECT_NEAR(g.imu.front().stamp, 9.995, 1e-9);
  EXPECT_NEAR(g.imu.back().stamp, 10.095, 1e-9);
  EXPECT_EQ(sync.imu_buffered(), 1u);
  imu_until(sync, 10.105, 10.2);
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.begin, 10.1);  // R-SYNC-7: frames and stamps stay paired
  EXPECT_NEAR(g.imu.front().stamp, 10.100, 1e-9);
}

TEST(MeasureSyncTest, R_SYNC_4_EndFromLastPointWithMeanScanTimeFallbacks) {
  ScanSynchronizer sync;
  ScanPackage g;
  imu_until(sync, 0.0, 2.0);
  sync.push_frame(frame(0.0, {0, 50, 100}));
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 0.1, 1e-9);
  sync.push_frame(frame(0.1, {0, 90}));
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 0.19, 1e-9);
  EXPECT_NEAR(sync.mean_scan_time(), 0.095, 1e-9);  // cumulative mean of 0.1 and 0.09

  sync.push_frame(frame(0.2, {0}));  // <= 1 point: begin + mean
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 0.295, 1e-9);
  sync.push_frame(frame(0.3, {0, 2, 40}));  // last offset 40 ms < half the mean: begin + mean
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 0.395, 1e-9);
  EXPECT_NEAR(sync.mean_scan_time(), 0.095, 1e-9);  // fallbacks do not update the mean
  EXPECT_EQ(sync.diagnostics().mean_time_fallbacks, 2u);
}

TEST(MeasureSyncTest, R_SYNC_4_ReadyAgreesWithPopOnFallbackFrames) {
  // workload() (ready) must not count a frame that pop() refuses, or the host waits forever.
  ScanSynchronizer sync;
  ScanPackage g;
  imu_until(sync, 0.0, 0.2);
  sync.push_frame(frame(0.0, {0, 50, 100}));
  ASSERT_TRUE(sync.pop(g));  // mean scan time 0.1
  sync.push_frame(frame(0.1, {0}));  // one point: ends at 0.1 + mean = 0.2
  EXPECT_EQ(sync.ready(), 1);
  sync.push_frame(frame(0.15, {0}));  // ends at 0.25: the IMU (to 0.2) does not cover it
  EXPECT_EQ(sync.ready(), 1);
  ASSERT_TRUE(sync.pop(g));
  EXPECT_EQ(sync.ready(), 0);
  EXPECT_FALSE(sync.pop(g));
}

TEST(MeasureSyncTest, R_SYNC_4_FirstFrameWithOnePointEndsAtItsBegin) {
  // The mean starts at 0: the documented edge case of a bad first frame.
  ScanSynchronizer sync;
  ScanPackage g;
  imu_until(sync, 0.0, 0.5);
  sync.push_frame(frame(0.1, {0}));
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.end, 0.1);
}

TEST(MeasureSyncTest, R_SYNC_5_InstantaneousFramesEndAtTheirBegin) {
  ScanSynchronizer sync(ScanEndRule::INSTANTANEOUS);
  ScanPackage g;
  imu_until(sync, 0.0, 0.3);
  sync.push_frame(frame(0.2, {0, 0, 0}));  // offsets all zero: the frame is a snapshot
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.end, 0.2);
  EXPECT_NEAR(g.imu.back().stamp, 0.2, 1e-9);
}

TEST(MeasureSyncTest, R_SYNC_8_UnorderedPointsUseTheMaximumAndUnitMistakesAreCounted) {
  ScanSynchronizer sync;
  ScanPackage g;
  imu_until(sync, 0.0, 1.5);
  sync.push_frame(frame(0.0, {0, 100, 20, 80, 40}));  // stored out of time order
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 0.1, 1e-9);  // the maximum, not the last point's 40 ms
  EXPECT_EQ(sync.diagnostics().unordered_frames, 1u);

  std::vector<float> microseconds_as_ms;
  for (int i = 0; i <= 200; ++i) microseconds_as_ms.push_back(static_cast<float>(i) * 0.0005f);  // 0.1 ms sweep
  sync.push_frame(frame(0.1, microseconds_as_ms));
  ASSERT_TRUE(sync.pop(g));
  EXPECT_EQ(sync.diagnostics().suspicious_offsets, 1u);

  sync.push_imu(imu(1.0));  // older than the newest (1.5): dropped, counted
  EXPECT_EQ(sync.diagnostics().imu_out_of_order, 1u);
  EXPECT_EQ(sync.diagnostics().packages, 2u);
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

TEST(So3Test, R_IMU_3_AlignHandlesParallelAndAntiparallel) {
  EXPECT_TRUE(so3::align(Eigen::Vector3d(0, 0, 2), Eigen::Vector3d(0, 0, 1)).isIdentity(1e-12));
  const Eigen::Matrix3d flip = so3::align(Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0, 0, -1));
  EXPECT_LT((flip * Eigen::Vector3d(0, 0, 1) - Eigen::Vector3d(0, 0, -1)).norm(), 1e-12);
  EXPECT_NEAR(flip.determinant(), 1.0, 1e-12);
  const Eigen::Vector3d a(1, 2, 3), b(-2, 0.5, 1);
  EXPECT_LT((so3::align(a, b) * a.normalized() - b.normalized()).norm(), 1e-12);
}

TEST(So3Test, ExpLogAndRightJacobian) {
  for (const Eigen::Vector3d& w : {Eigen::Vector3d(0.1, -0.2, 0.3), Eigen::Vector3d(1e-9, 0, 0), Eigen::Vector3d(2.0, 1.0, -0.5)}) {
    EXPECT_LT((so3::log(so3::exp(w)) - w).norm(), 1e-9);
    const Eigen::Vector3d d(1e-6, -2e-6, 1.5e-6);
    // Exp(w + d) = Exp(w) Exp(Jr(w) d) to first order.
    const Eigen::Matrix3d lhs = so3::exp(w + d);
    const Eigen::Matrix3d rhs = so3::exp(w) * so3::exp(so3::right_jacobian(w) * d);
    EXPECT_LT((lhs - rhs).norm(), 1e-10);
  }
}

TEST(VoxelMapTest, KnnMatchesBruteForceWithinHalfAVoxel) {
  VoxelMap map(VoxelMapParams{0.5, 100, 0.0, 1000.0});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<Eigen::Vector3f> points;
  for (int i = 0; i < 3000; ++i) points.emplace_back(u(rng), u(rng), u(rng));
  EXPECT_EQ(map.insert(points), points.size());
  std::vector<Eigen::Vector3f> found;
  for (int q = 0; q < 50; ++q) {
    const Eigen::Vector3f query(u(rng), u(rng), u(rng));
    std::vector<float> d;
    for (const auto& p : points) d.push_back((p - query).norm());
    std::sort(d.begin(), d.end());
    map.knn(query, 5, 10.0, found);
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (d[i] < 0.25f) {
        EXPECT_FLOAT_EQ((found[i] - query).norm(), d[i]);  // exact within half a voxel
      }
    }
  }
}

TEST(VoxelMapTest, DownsamplingAndMovingBox) {
  VoxelMap map(VoxelMapParams{1.0, 3, 0.2, 10.0});
  EXPECT_EQ(map.insert({{0.1f, 0.1f, 0.1f}, {0.15f, 0.1f, 0.1f}, {0.5f, 0.5f, 0.5f}, {0.9f, 0.1f, 0.1f}, {0.1f, 0.9f, 0.9f}}), 3u);  // close one, full voxel
  EXPECT_EQ(map.insert({{50.0f, 0.0f, 0.0f}}), 1u);
  EXPECT_EQ(map.size(), 4u);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d::Zero()), 1u);  // the voxel at x = 50 is outside +-10 m
  EXPECT_EQ(map.size(), 3u);
}

TEST(PlaneFitTest, FitsPlanesThroughTheOriginAndRejectsCurvedPatches) {
  Plane plane;
  const std::vector<Eigen::Vector3f> ground = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0.01f}, {0.5f, 0.5f, -0.01f}};
  ASSERT_TRUE(fit_plane(ground, 0.05, plane));
  EXPECT_NEAR(std::fabs(plane.normal.z()), 1.0, 1e-3);
  EXPECT_NEAR(plane.d, 0.0, 0.01);
  const std::vector<Eigen::Vector3f> corner = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 2}};
  EXPECT_FALSE(fit_plane(corner, 0.1, plane));
}

TEST(ScanDownsampleTest, FirstPointPerVoxelInInputOrder) {
  auto point = [](float x, float y, float z) {
    Point p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
  };
  // Cells of 1 m; the second point shares the first's cell, the last shares cell (-1, 0, 0).
  const std::vector<Point> points{point(0.2f, 0.2f, 0.2f), point(0.8f, 0.1f, 0.9f), point(1.5f, 0.5f, 0.5f), point(0.5f, 0.5f, 1.5f),
                                  point(-0.5f, 0.5f, 0.5f), point(0.5f, 1.5f, 0.5f), point(1.5f, 1.5f, 0.5f), point(-0.2f, 0.9f, 0.1f)};
  auto kept = lio::downsample_first_per_voxel(points, 1.0);
  EXPECT_EQ(kept, (std::vector<std::uint32_t>{0, 2, 3, 4, 5, 6}));
}

TEST(PcdTest, BinaryRoundTrip) {
  const auto path = (std::filesystem::temp_directory_path() / ("asuka_pcd_" + std::to_string(::getpid()) + ".pcd")).string();
  const std::vector<Eigen::Vector3f> points = {{1, 2, 3}, {-4.5f, 0.25f, 1e3f}};
  ASSERT_TRUE(write_pcd(path, points));
  std::vector<Eigen::Vector3f> back;
  std::string error;
  ASSERT_TRUE(read_pcd(path, back, &error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1], points[1]);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace asuka::lio
