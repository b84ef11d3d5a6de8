// The frontends' shared data entry: cloud preprocessing (R-PRE-1..5), including the Robosense time
// rebuilt from yaw; the IMU initializer's history, reset and disabled modes (R-IMU-1, 2, 4); and the
// synchronizer's max-offset end rule and IMU history (R-PRE-2, R-IMU-2).

#include <cmath>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/lio/default_cloud_preprocessor.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/scan_synchronizer.hpp>

namespace asuka::lio {
namespace {

constexpr double kDegToRad = M_PI / 180.0;

Point at_yaw(double yaw_deg, std::uint16_t ring, double range = 10.0) {
  Point p;
  p.x = static_cast<float>(range * std::cos(yaw_deg * kDegToRad));
  p.y = static_cast<float>(range * std::sin(yaw_deg * kDegToRad));
  p.z = static_cast<float>(0.1 * ring);
  p.ring = ring;
  return p;
}

TEST(CloudPreprocessorTest, R_PRE_1_DefaultsAndClamping) {
  const PreprocessParams defaults = PreprocessParams::from_config(Config::parse("{}", "c.json"));
  EXPECT_EQ(defaults.min_distance, 0.5);
  EXPECT_EQ(defaults.max_distance, 300.0);
  EXPECT_EQ(defaults.point_filter_num, 2);
  EXPECT_EQ(defaults.scan_line, 6);
  EXPECT_EQ(defaults.scan_rate, 10.0);
  const PreprocessParams clamped = PreprocessParams::from_config(
      Config::parse(R"({"preprocess": {"max_distance": -4, "point_filter_num": -2, "scan_line": 0, "min_distance": 2}})", "c.json"));
  EXPECT_EQ(clamped.max_distance, 0.0);
  EXPECT_EQ(clamped.point_filter_num, 1);
  EXPECT_EQ(clamped.scan_line, 1);
  EXPECT_EQ(clamped.min_distance, 2.0);
  EXPECT_THROW(PreprocessParams::from_config(Config::parse(R"({"preprocess": {"scan_rate": 0}})", "c.json")), ConfigError);
}

TEST(CloudPreprocessorTest, R_PRE_4_YawTimeAtTenHertz) {
  // One ring sweeping clockwise from 90 deg through the -180/180 wrap to 95 deg: the first point is
  // at 0 ms and each degree is 1 / 3.61 ms later.
  std::vector<Point> points;
  for (double swept = 0.0; swept < 355.0; swept += 5.0) {
    double yaw = 90.0 - swept;
    if (yaw <= -180.0) yaw += 360.0;
    points.push_back(at_yaw(yaw, 0));
  }
  EXPECT_EQ(DefaultCloudPreprocessor::rebuild_time_from_yaw(points, 16, 10.0), 0u);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_NEAR(points[i].offset_ms, 5.0 * static_cast<double>(i) / 3.61, 1e-3) << i;
  }
  // At 20 Hz the rate doubles: the same sweep takes half the time.
  std::vector<Point> fast = points;
  DefaultCloudPreprocessor::rebuild_time_from_yaw(fast, 16, 20.0);
  EXPECT_NEAR(fast.back().offset_ms, 0.5f * points.back().offset_ms, 1e-3);
}

TEST(CloudPreprocessorTest, R_PRE_4_YawTimePerRingAcrossTheWrapAndRingBoundaries) {
  // Velodyne/Robosense order: one firing of every ring per azimuth, rings interleaved. Ring r starts
  // at yaw 179 - r (some rings begin just before the wrap, one after it) and sweeps 358 deg.
  const int rings = 4;
  std::vector<Point> points;
  std::vector<double> expected;
  for (int step = 0; step < 180; ++step) {
    for (int r = 0; r < rings; ++r) {
      double yaw = 179.0 - 3.0 * r - 2.0 * step;
      while (yaw <= -180.0) yaw += 360.0;
      points.push_back(at_yaw(yaw, static_cast<std::uint16_t>(r)));
      expected.push_back(2.0 * step / 3.61);
    }
  }
  EXPECT_EQ(DefaultCloudPreprocessor::rebuild_time_from_yaw(points, rings, 10.0), 0u);
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_NEAR(points[i].offset_ms, expected[i], 2e-3) << i;
}

TEST(CloudPreprocessorTest, R_PRE_4_YawTimeStaysMonotonicUnderJitterAndPastAFullTurn) {
  std::vector<Point> points = {at_yaw(10.0, 0), at_yaw(10.02, 0),  // jitter against the spin at the start: not a turn later
                               at_yaw(0.0, 0),  at_yaw(0.01, 0),   // jitter mid-ring: held, not a turn later
                               at_yaw(-170.0, 0), at_yaw(11.0, 0),  // 359 deg swept: just under a turn
                               at_yaw(9.0, 0)};                    // past the start again: more than a full turn
  DefaultCloudPreprocessor::rebuild_time_from_yaw(points, 1, 10.0);
  const double turn = 360.0 / 3.61;
  EXPECT_FLOAT_EQ(points[0].offset_ms, 0.0f);
  EXPECT_NEAR(points[1].offset_ms, 0.0, 1e-6);
  EXPECT_NEAR(points[2].offset_ms, 10.0 / 3.61, 1e-4);
  EXPECT_NEAR(points[3].offset_ms, 10.0 / 3.61, 1e-4);
  EXPECT_NEAR(points[4].offset_ms, 180.0 / 3.61, 1e-4);
  EXPECT_NEAR(points[5].offset_ms, 359.0 / 3.61, 1e-4);
  EXPECT_NEAR(points[6].offset_ms, turn + 1.0 / 3.61, 1e-4);
  for (std::size_t i = 1; i < points.size(); ++i) EXPECT_GE(points[i].offset_ms, points[i - 1].offset_ms);
}

TEST(CloudPreprocessorTest, R_PRE_4_RobosenseUsesItsOwnTimeWhenTheLastPointHasOne) {
  PreprocessParams params;
  params.point_filter_num = 1;
  params.scan_line = 2;
  DefaultCloudPreprocessor pre(params);
  LidarFrame raw;
  raw.stamp = 3.0;
  raw.lidar_type = LidarType::ROBOSENSE;
  for (int i = 0; i < 4; ++i) {
    Point p = at_yaw(-10.0 * i, static_cast<std::uint16_t>(i % 2));
    p.offset_ms = 7.0f + static_cast<float>(i);  // the driver's time, not what yaw would give
    raw.points.push_back(p);
  }
  auto out = pre.preprocess(raw);
  ASSERT_EQ(out->points.size(), 4u);
  EXPECT_FLOAT_EQ(out->points[3].offset_ms, 10.0f);

  // The last point has no time (0): the whole frame is rebuilt from yaw; ring 2 >= scan_line has no
  // time and is dropped, as are non-finite points.
  raw.points.back().offset_ms = 0.0f;
  raw.points.push_back(at_yaw(-50.0, 2));
  Point nan = at_yaw(-60.0, 0);
  nan.y = std::nanf("");
  raw.points.push_back(nan);
  out = pre.preprocess(raw);
  ASSERT_EQ(out->points.size(), 4u);
  EXPECT_FLOAT_EQ(out->points[0].offset_ms, 0.0f);                   // ring 0 starts at yaw 0
  EXPECT_FLOAT_EQ(out->points[1].offset_ms, 0.0f);                   // ring 1 starts at yaw -10
  EXPECT_NEAR(out->points[2].offset_ms, 20.0 / 3.61, 1e-4);          // ring 0, 20 deg on
  EXPECT_NEAR(out->points[3].offset_ms, 20.0 / 3.61, 1e-4);          // ring 1, 20 deg on
  EXPECT_TRUE(out->has_point_time);

  // Decimation by the raw index on this path (R-PRE-4), after the time is rebuilt from every point.
  params.point_filter_num = 2;
  DefaultCloudPreprocessor every_other(params);
  out = every_other.preprocess(raw);
  ASSERT_EQ(out->points.size(), 2u);  // raw indices 0, 2 (4 has no time)
  EXPECT_NEAR(out->points[1].offset_ms, 20.0 / 3.61, 1e-4);
}

TEST(CloudPreprocessorTest, R_PRE_2_R_PRE_5_EmptyInEmptyOutAndOffsetsStayInMs) {
  DefaultCloudPreprocessor pre{PreprocessParams()};
  for (LidarType type : {LidarType::LIVOX, LidarType::VELODYNE, LidarType::ROBOSENSE, LidarType::OUSTER}) {
    LidarFrame raw;
    raw.stamp = 2.0;
    raw.lidar_type = type;
    const auto out = pre.preprocess(raw);
    EXPECT_TRUE(out->points.empty());
    EXPECT_EQ(out->stamp, 2.0);
  }
  LidarFrame raw;
  raw.lidar_type = LidarType::VELODYNE;
  for (int i = 0; i < 10; ++i) {
    Point p = at_yaw(i, 0);
    p.offset_ms = 10.0f * static_cast<float>(i);
    raw.points.push_back(p);
  }
  const auto out = pre.preprocess(raw);
  ASSERT_EQ(out->points.size(), 5u);
  EXPECT_FLOAT_EQ(out->max_offset_ms(), 80.0f);
}

ImuData sample(double t, const Eigen::Vector3d& acc, const Eigen::Vector3d& gyro = Eigen::Vector3d::Zero()) {
  ImuData s;
  s.stamp = t;
  s.acc = acc;
  s.gyro = gyro;
  return s;
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

LidarFrame::ConstPtr frame_with_offsets(double stamp, const std::vector<float>& offsets) {
  auto f = std::make_shared<LidarFrame>();
  f->stamp = stamp;
  for (float o : offsets) {
    Point p;
    p.x = 5.0f;
    p.offset_ms = o;
    f->points.push_back(p);
  }
  return f;
}

TEST(MeasureSyncTest, R_PRE_2_MaxOffsetEndRuleAndR_IMU_2_History) {
  ScanSynchronizer sync(ScanEndRule::MAX_OFFSET);
  sync.collect_imu_history(true);
  // Unordered points and a last point far below the maximum: the end is the maximum, no fallback.
  sync.push_frame(frame_with_offsets(1.0, {0.0f, 90.0f, 5.0f}));
  sync.push_frame(frame_with_offsets(1.1, {0.0f}));  // one point: end = begin
  for (int k = 0; k <= 25; ++k) sync.push_imu(sample(0.99 + 0.005 * k, Eigen::Vector3d::Zero()));
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

}  // namespace
}  // namespace asuka::lio
