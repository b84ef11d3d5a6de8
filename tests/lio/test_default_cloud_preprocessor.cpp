// The default cloud preprocessor (asuka/lio/default_cloud_preprocessor.hpp): R-PRE-1..5, including
// the Livox line, tag and decimation rules and the Robosense time rebuilt from yaw.

#include <cmath>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/lio/default_cloud_preprocessor.hpp>

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

  // Decimation on this path (R-PRE-4) after the time is rebuilt from every point: by the raw index
  // (the default: indices 0 and 2; 4 has no time), or along each ring (the first of ring 0 and of
  // ring 1; ring 0's third is NaN, ring 2 has no time).
  params.point_filter_num = 2;
  DefaultCloudPreprocessor by_index(params);
  out = by_index.preprocess(raw);
  ASSERT_EQ(out->points.size(), 2u);
  EXPECT_NEAR(out->points[1].offset_ms, 20.0 / 3.61, 1e-4);
  params.decimate_per_ring = true;
  DefaultCloudPreprocessor per_ring(params);
  out = per_ring.preprocess(raw);
  ASSERT_EQ(out->points.size(), 2u);
  EXPECT_EQ(out->points[0].ring, 0);
  EXPECT_EQ(out->points[1].ring, 1);
  EXPECT_FLOAT_EQ(out->points[1].offset_ms, 0.0f);
}

TEST(CloudPreprocessorTest, Issue17_DecimationKeepsEveryRingOfASpinningLidar) {
  // A VLP-16 in its firing order: per column the lasers at -15, +1, -13, +3, ..., -1, +15 deg
  // (ring = laser id). Every 2nd point by the raw index keeps lasers 0, 2, ..., 14: only the
  // downward half (the default, FAST-LIO's rule). With decimate_per_ring every ring keeps half its points.
  LidarFrame raw;
  raw.lidar_type = LidarType::VELODYNE;
  raw.has_point_time = true;
  for (int column = 0; column < 100; ++column) {
    for (std::uint16_t laser = 0; laser < 16; ++laser) {
      Point p = at_yaw(0.2 * column, laser);
      const double elevation = laser % 2 == 0 ? -15.0 + laser : 1.0 + (laser - 1);
      p.z = static_cast<float>(10.0 * std::tan(elevation * kDegToRad));
      p.offset_ms = 0.05f * static_cast<float>(column);
      raw.points.push_back(p);
    }
  }
  const auto rings_and_up = [](const LidarFrame& f) {
    std::vector<int> per_ring(16, 0);
    int up = 0;
    for (const auto& p : f.points) {
      ++per_ring[p.ring];
      up += p.z > 0.0f ? 1 : 0;
    }
    return std::make_pair(per_ring, up);
  };
  PreprocessParams params;  // point_filter_num 2
  params.decimate_per_ring = true;
  const auto [per_ring, up] = rings_and_up(*DefaultCloudPreprocessor(params).preprocess(raw));
  for (int r = 0; r < 16; ++r) EXPECT_EQ(per_ring[r], 50) << r;
  EXPECT_EQ(up, 8 * 50);
  params.decimate_per_ring = false;
  const auto [by_index, up_by_index] = rings_and_up(*DefaultCloudPreprocessor(params).preprocess(raw));
  EXPECT_EQ(up_by_index, 0);  // FAST-LIO's rule: the upper half is gone
  for (int r = 1; r < 16; r += 2) EXPECT_EQ(by_index[r], 0) << r;
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

TEST(CloudPreprocessorTest, R_PRE_1_R_PRE_3_R_PRE_5_LivoxRulesAndDecimation) {
  // R-PRE-1 clamping: negative max_distance -> 0, point_filter_num 0 -> 1.
  auto pre = std::make_shared<DefaultCloudPreprocessor>(
      PreprocessParams::from_config(Config::parse(R"({"preprocess": {"point_filter_num": 0, "scan_line": 4, "min_distance": 1.0}})", "c.json")));
  LidarFrame raw;
  raw.stamp = 1.0;
  EXPECT_TRUE(pre->preprocess(raw)->points.empty());  // R-PRE-5
  auto add = [&](float x, std::uint8_t line, std::uint8_t tag, float offset) {
    Point p;
    p.x = x;
    p.line = line;
    p.tag = tag;
    p.offset_ms = offset;
    raw.points.push_back(p);
  };
  add(5.0f, 0, 0x10, 0.0f);   // kept
  add(5.0f, 5, 0x10, 1.0f);   // line >= scan_line: dropped
  add(6.0f, 1, 0x20, 2.0f);   // tag & 0x30 == 0x20 (second return): dropped
  add(0.5f, 1, 0x00, 3.0f);   // closer than min_distance: dropped
  add(5.0f, 2, 0x00, 4.0f);   // same position as the previous kept point: dropped (the fixed check)
  add(7.0f, 3, 0x00, 5.0f);   // kept
  add(std::nanf(""), 3, 0x00, 6.0f);  // non-finite: dropped
  const auto out = pre->preprocess(raw);
  ASSERT_EQ(out->points.size(), 2u);
  EXPECT_FLOAT_EQ(out->points[0].x, 5.0f);
  EXPECT_FLOAT_EQ(out->points[1].x, 7.0f);
  EXPECT_DOUBLE_EQ(out->stamp, 1.0);

  // Decimation by the count of valid points (Livox) vs by the raw index (spinning lidars).
  pre = std::make_shared<DefaultCloudPreprocessor>(PreprocessParams::from_config(Config::parse(R"({"preprocess": {"point_filter_num": 2}})", "c.json")));
  LidarFrame livox;
  for (int i = 0; i < 6; ++i) {
    Point p;
    p.x = 2.0f + static_cast<float>(i);
    p.line = static_cast<std::uint8_t>(i == 0 ? 9 : 0);  // the first is filtered before counting
    livox.points.push_back(p);
  }
  const auto decimated = pre->preprocess(livox);
  ASSERT_EQ(decimated->points.size(), 3u);  // valid points 3,4,5,6,7 -> keep 1st, 3rd, 5th
  EXPECT_FLOAT_EQ(decimated->points[0].x, 3.0f);
  LidarFrame spinning = livox;
  spinning.lidar_type = LidarType::VELODYNE;
  const auto by_index = pre->preprocess(spinning);
  ASSERT_EQ(by_index->points.size(), 3u);  // raw indices 0, 2, 4
  EXPECT_FLOAT_EQ(by_index->points[0].x, 2.0f);
}

TEST(CloudPreprocessorTest, PointsTimedFarBeyondTheSweepAreDropped) {
  // #12 item 5: a Livox sweep of 0..100 ms with one point at 1410 ms (a bad offset_time). Without the
  // check the frame would end 1.41 s after its stamp.
  PreprocessParams params;
  params.point_filter_num = 1;
  DefaultCloudPreprocessor preprocessor(params);
  LidarFrame raw;
  raw.lidar_type = LidarType::LIVOX;
  raw.has_point_time = true;
  for (int i = 0; i < 2000; ++i) {
    Point p;
    p.x = 5.0f + 0.001f * static_cast<float>(i);
    p.y = 1.0f;
    p.tag = 0x10;
    p.offset_ms = i == 700 ? 1410.0f : 0.05f * static_cast<float>(i);
    raw.points.push_back(p);
  }
  const auto out = preprocessor.preprocess(raw);
  ASSERT_EQ(out->points.size(), 1999u);
  EXPECT_LT(out->max_offset_ms(), 100.0f);
  // A clean sweep keeps every point (the check is a single pass when nothing stands out).
  raw.points[700].offset_ms = 35.0f;
  EXPECT_EQ(preprocessor.preprocess(raw)->points.size(), 2000u);
  // Frames whose times are all zero are the synchronizer's warning, not outliers.
  for (auto& p : raw.points) p.offset_ms = 0.0f;
  EXPECT_EQ(preprocessor.preprocess(raw)->points.size(), 2000u);
}

}  // namespace
}  // namespace asuka::lio
