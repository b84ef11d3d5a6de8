// fastlio (#5): preprocessing rules, parameters, and the whole pipeline on short simulated bags
// (asuka_sim -> asuka_rosbag's player and host -> fastlio -> asuka_eval) against ground truth.
// The long accuracy and speed runs are in benchmarks/run_frontends.sh, not here.

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/odometry_estimation.hpp>

#include "support/sim_run.hpp"

namespace asuka {
namespace {

using FastlioTest = test::SimRunTest;

TEST_F(FastlioTest, LoadsByNameThroughThePluginRegistry) {
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"so_name": "fastlio"})", "config_odometry_fastlio.json"));
  std::string error;
  auto odometry = OdometryEstimation::load_module("fastlio", &error);  // beside libasuka.so
  ASSERT_TRUE(odometry) << error;
  ASSERT_TRUE(odometry->cloud_preprocess());
  ASSERT_TRUE(odometry->imu_preprocess());
  EXPECT_FALSE(odometry->imu_preprocess()->is_initialized());
  EXPECT_EQ(odometry->workload(), 0);

  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"sensor": {"extrinsic_R": [1, 0, 0, 0, 2, 0, 0, 0, 1]}})", "c.json"));
  EXPECT_FALSE(OdometryEstimation::load_module("fastlio", &error));
  EXPECT_NE(error.find("not a rotation matrix"), std::string::npos) << error;
}

TEST_F(FastlioTest, R_PRE_1_R_PRE_3_R_PRE_5_Preprocess) {
  // R-PRE-1 clamping: negative max_distance -> 0, point_filter_num 0 -> 1.
  GlobalConfig::instance().set_module("config_odometry",
                                      Config::parse(R"({"preprocess": {"point_filter_num": 0, "scan_line": 4, "min_distance": 1.0}})", "c.json"));
  auto odometry = OdometryEstimation::load_module("fastlio");
  ASSERT_TRUE(odometry);
  auto pre = odometry->cloud_preprocess();
  Frame raw;
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
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"preprocess": {"point_filter_num": 2}})", "c.json"));
  odometry = OdometryEstimation::load_module("fastlio");
  pre = odometry->cloud_preprocess();
  Frame livox;
  for (int i = 0; i < 6; ++i) {
    Point p;
    p.x = 2.0f + static_cast<float>(i);
    p.line = static_cast<std::uint8_t>(i == 0 ? 9 : 0);  // the first is filtered before counting
    livox.points.push_back(p);
  }
  const auto decimated = pre->preprocess(livox);
  ASSERT_EQ(decimated->points.size(), 3u);  // valid points 3,4,5,6,7 -> keep 1st, 3rd, 5th
  EXPECT_FLOAT_EQ(decimated->points[0].x, 3.0f);
  Frame spinning = livox;
  spinning.lidar_type = LidarType::VELODYNE;
  const auto by_index = pre->preprocess(spinning);
  ASSERT_EQ(by_index->points.size(), 3u);  // raw indices 0, 2, 4
  EXPECT_FLOAT_EQ(by_index->points[0].x, 2.0f);
}

TEST_F(FastlioTest, AviaHandheldCourtyardTracksTheGroundTruth) {
  sim::SimParams p;
  p.duration = 15.0;
  const auto run = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  EXPECT_TRUE(run.ok);
  EXPECT_GE(run.trajectory.size(), 140u);
  EXPECT_GT(run.eval.coverage, 0.95);
  EXPECT_LT(run.eval.ate.rmse, 0.03);  // measured 4 mm on 30 s; divergence or a frame mix-up is metres
}

TEST_F(FastlioTest, Vlp16VehicleTracksTheGroundTruth) {
  sim::SimParams p;
  p.lidar = "vlp16";
  p.duration = 15.0;
  p.trajectory.profile = "vehicle";
  const auto run = simulate_and_run(p, "velodyne", R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})");
  EXPECT_TRUE(run.ok);
  EXPECT_GE(run.trajectory.size(), 140u);
  // Measured 2.0 cm. A level spinning lidar draws walls as scan lines: collinear neighbours made this
  // 24 cm before fit_plane rejected them, and 3.8 cm before the absolute residual gate.
  EXPECT_LT(run.eval.ate.rmse, 0.03);
}

}  // namespace
}  // namespace asuka
