// The scan synchronizer (asuka/lio/scan_synchronizer.hpp): packages of one frame and the IMU up to
// its end (R-SYNC-1..8), its end rules (R-SYNC-4 last point, R-PRE-2 maximum offset, R-SYNC-5
// instantaneous) and the IMU history of the initialization (R-IMU-2).

#include <cmath>

#include <gtest/gtest.h>

#include <asuka/lio/scan_synchronizer.hpp>

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

TEST(ScanSynchronizerTest, R_SYNC_2_EmptyBuffersGiveNothing) {
  ScanSynchronizer sync;
  ScanPackage g;
  EXPECT_FALSE(sync.pop(g));
  sync.push_frame(frame(0.0, {0, 50, 100}));
  EXPECT_FALSE(sync.pop(g));  // no IMU
  ScanSynchronizer only_imu;
  only_imu.push_imu(imu(1.0));
  EXPECT_FALSE(only_imu.pop(g));  // no frame
}

TEST(ScanSynchronizerTest, R_SYNC_3_R_SYNC_6_LockedFrameWaitsForImuToItsEnd) {
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

TEST(ScanSynchronizerTest, R_SYNC_4_EndFromLastPointWithMeanScanTimeFallbacks) {
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

TEST(ScanSynchronizerTest, R_SYNC_4_ReadyAgreesWithPopOnFallbackFrames) {
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

TEST(ScanSynchronizerTest, R_SYNC_4_FirstFrameWithOnePointEndsAtItsBegin) {
  // The mean starts at 0: the documented edge case of a bad first frame.
  ScanSynchronizer sync;
  ScanPackage g;
  imu_until(sync, 0.0, 0.5);
  sync.push_frame(frame(0.1, {0}));
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.end, 0.1);
}

TEST(ScanSynchronizerTest, R_SYNC_5_InstantaneousFramesEndAtTheirBegin) {
  ScanSynchronizer sync(ScanEndRule::INSTANTANEOUS);
  ScanPackage g;
  imu_until(sync, 0.0, 0.3);
  sync.push_frame(frame(0.2, {0, 0, 0}));  // offsets all zero: the frame is a snapshot
  ASSERT_TRUE(sync.pop(g));
  EXPECT_DOUBLE_EQ(g.end, 0.2);
  EXPECT_NEAR(g.imu.back().stamp, 0.2, 1e-9);
}

TEST(ScanSynchronizerTest, R_SYNC_8_UnorderedPointsUseTheMaximumAndUnitMistakesAreCounted) {
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

TEST(ScanSynchronizerTest, R_PRE_2_MaxOffsetEndRuleAndR_IMU_2_History) {
  ScanSynchronizer sync(ScanEndRule::MAX_OFFSET);
  sync.collect_imu_history(true);
  // Unordered points and a last point far below the maximum: the end is the maximum, no fallback.
  sync.push_frame(frame(1.0, {0.0f, 90.0f, 5.0f}));
  sync.push_frame(frame(1.1, {0.0f}));  // one point: end = begin
  for (int k = 0; k <= 25; ++k) sync.push_imu(imu(0.99 + 0.005 * k));
  EXPECT_EQ(sync.ready(), 2);
  ScanPackage g;
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 1.09, 1e-9);
  EXPECT_EQ(sync.diagnostics().mean_time_fallbacks, 0u);
  const std::size_t first = g.imu.size();
  ASSERT_TRUE(sync.pop(g));
  EXPECT_NEAR(g.end, 1.1, 1e-9);
  EXPECT_EQ(sync.imu_history().size(), first + g.imu.size());
  sync.collect_imu_history(false);
  EXPECT_TRUE(sync.imu_history().empty());
}

TEST(ScanSynchronizerTest, R_PRE_2_MaxOffsetRuleAlsoCountsImpossibleSweeps) {
  // #12 item 9: batchlio (maximum-offset rule) said nothing on Livox clouds whose offset_time is
  // zero or in the wrong unit; the check is the synchronizer's, for every rule that uses point times.
  ScanSynchronizer sync(ScanEndRule::MAX_OFFSET);
  imu_until(sync, 0.0, 5.0);
  sync.push_frame(frame(0.0, std::vector<float>(200, 0.0f)));  // offset_time 0 everywhere
  ScanPackage g;
  ASSERT_TRUE(sync.pop(g));
  EXPECT_EQ(sync.diagnostics().suspicious_offsets, 1u);
  sync.push_frame(frame(0.1, {0.0f, 50.0f, 2000.0f}));  // a 2 s sweep: ms read as... something else
  ASSERT_TRUE(sync.pop(g));
  EXPECT_EQ(sync.diagnostics().suspicious_offsets, 2u);
  sync.push_frame(frame(2.2, std::vector<float>(200, 0.0f), false));  // no point time at all: not a unit mistake
  ASSERT_TRUE(sync.pop(g));
  EXPECT_EQ(sync.diagnostics().suspicious_offsets, 2u);
}

}  // namespace
}  // namespace asuka::lio
