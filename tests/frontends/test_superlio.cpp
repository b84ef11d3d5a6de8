// superlio (#14): its parameters, and the whole pipeline on short simulated bags
// (asuka_sim -> asuka_rosbag's player and host -> superlio -> asuka_eval) against ground truth, next
// to fastlio on the same bag. Loading, the fault suite and the spinning lidar are the conformance and
// bag suites' (test_conformance.cpp, test_bags.cpp); the long accuracy and speed runs are in
// benchmarks/run_frontends.sh.

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/io/pcd_io.hpp>

#include "support/host_run.hpp"
#include "support/log_capture.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

using SuperlioTest = test::SimRunTest;

TEST_F(SuperlioTest, R_PLUG_3_BadKeysAreLoadErrorsAndAnUnusedKeyIsNamed) {
  std::string error;
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"mapping": {"fuse_points": 0}})", "c.json"));
  EXPECT_FALSE(OdometryEstimation::load_module("superlio", &error));
  EXPECT_NE(error.find("mapping.fuse_points"), std::string::npos) << error;
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"mapping": {"plane_cache_cell": -0.5}})", "c.json"));
  EXPECT_FALSE(OdometryEstimation::load_module("superlio", &error));
  EXPECT_NE(error.find("mapping.plane_cache_cell"), std::string::npos) << error;
  // fastlio's map down-sampling key does nothing here: the user is told which key sets the density.
  test::LogCapture log("superlio");
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"mapping": {"map_min_point_distance": 0.3}})", "c.json"));
  EXPECT_TRUE(OdometryEstimation::load_module("superlio", &error)) << error;
  EXPECT_TRUE(log.contains("mapping.map_min_point_distance has no effect in superlio")) << log.text();
  EXPECT_TRUE(log.contains("mapping.map_voxel_size")) << log.text();
}

TEST_F(SuperlioTest, AviaHandheldCourtyardTracksTheGroundTruthWithASmallerMapThanFastlio) {
  sim::SimParams p;
  p.duration = 15.0;
  std::vector<Eigen::Vector3f> map;
  const auto fast = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  ASSERT_TRUE(read_pcd((dir / "map.pcd").string(), map));
  const std::size_t fastlio_map = map.size();
  const auto super = simulate_and_run(p, "livox", R"({"so_name": "superlio"})");
  ASSERT_TRUE(read_pcd((dir / "map.pcd").string(), map));
  const std::size_t superlio_map = map.size();
  std::printf("map points: superlio %zu, fastlio %zu\n", superlio_map, fastlio_map);
  EXPECT_TRUE(super.ok);
  EXPECT_GE(super.trajectory.size(), 140u);
  EXPECT_GT(super.eval.coverage, 0.95);
  EXPECT_LT(super.eval.ate.rmse, 0.03);  // millimetres when it works; divergence or a frame mix-up is metres
  // Accuracy within reach of fastlio's on the same bag (the benchmark compares the standard bags).
  EXPECT_LT(super.eval.ate.rmse, 1.5 * fast.eval.ate.rmse + 0.002);
  // The OctVox map: at most one point per 0.25 m subvoxel, fewer than fastlio's 0.2 m spacing.
  EXPECT_LT(superlio_map, fastlio_map);
  EXPECT_GT(superlio_map, fastlio_map / 4);
}

TEST_F(SuperlioTest, OnlineExtrinsicEstimationWorksThroughTheSharedFilter) {
  // The same filter code as fastlio (asuka/lio/ieskf_frontend.hpp): a wrong extrinsic (5.6 cm,
  // 1 deg off) is pulled back on the aggressive profile.
  sim::SimParams p;
  p.duration = 15.0;
  p.trajectory.profile = "aggressive";
  const Eigen::Vector3d t_true(0.04165, 0.02326, -0.0284);
  const std::string wrong = R"("sensor": {"extrinsic_t": [0.08165, -0.00674, -0.0034], "extrinsic_R": [0.99985, -0.01745, 0, 0.01745, 0.99985, 0, 0, 0, 1]})";
  const auto estimated = simulate_and_run(p, "livox", R"({"so_name": "superlio", "mapping": {"extrinsic_est_en": true}, )" + wrong + "}");
  ASSERT_TRUE(estimated.ok && estimated.extrinsic);
  const double t_error = (estimated.extrinsic->translation() - t_true).norm();
  std::printf("superlio extrinsic error after 15 s: %.1f mm (from 56 mm)\n", t_error * 1e3);
  EXPECT_LT(t_error, 0.02);
}

// #17: the same generated VLP-16 drive as fastlio's test (test_fastlio.cpp): superlio already fits
// eight neighbours, yet planes hinged on one of them took it 0.79 m off; with the spread required
// without any one neighbour (mapping.plane_spread_leave_one_out, plane_fit.hpp; opt-in, since it
// costs superlio 6-13 % per scan) it measured 8 cm. (In memory here: 5.2 cm with the key, 22.6 cm
// without.)
TEST_F(SuperlioTest, Issue17_PlanesThatHingeOnOnePointDoNotDriveAVlp16Off) {
  const std::string config =
      R"({"so_name": "superlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}, "mapping": {"plane_spread_leave_one_out": true}})";
  const auto run = test::run_in_memory(test::generated_vlp16_field_drive(), config);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.eval.coverage, 0.9);
  EXPECT_LT(run.eval.ate.rmse, 0.12);
}

// #17: superlio with the VLP-16 preset on the same drive: its 0.3 m map voxels (subvoxels 0.15 m)
// instead of 0.5 m hold it without the leave-one-out spread test (measured 1.7 cm in the bag
// benchmark, 0.84 cm here; 79 cm with 0.5 m voxels, 22.6 cm here, and 8 cm with the leave-one-out
// test instead).
TEST_F(SuperlioTest, Issue17_TheVlp16PresetsFinerMapVoxelsHoldTheFieldDrive) {
  const auto preset = test::shipped_sensor_preset("vlp16");
  ASSERT_EQ(preset.setting("config_odometry.mapping.map_voxel_size"), "0.3");
  const std::string config = R"({"so_name": "superlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})";
  const auto run = test::run_in_memory(test::generated_vlp16_field_drive(), config, &preset);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.eval.coverage, 0.9);
  EXPECT_LT(run.eval.ate.rmse, 0.03);
}

// #17: the RS-16 hall walk (test::rs16_hall_walk): superlio's degenerate scans search their thin
// plane fits in the wider block of its octo-voxel map too (OctVoxMap::knn_wide), which finds the
// floor and the hall's ends. That decided the walk with FAST-LIO's IMU noise (0.1, superlio's until
// 2026-12-07) and the wide reach from the first moving scan; with superlio's defaults since then (a
// MEMS IMU's noise, no wide reach in the first 3 s after the rest) the walk holds either way
// (docs/frontends/fastlio.md, "The IMU's noise"). The premise runs without the plane cache (#14, on by
// default since 2026-12-07): with it the wide walk ends 3.1 cm off and the nearest-only one 8.3 cm,
// the same order but not 3x.
TEST_F(SuperlioTest, Issue17_ADegenerateScanReachesFartherForPlanesDownAHall) {
  const auto runs = test::rs16_hall_walk_with_and_without_wide_reach("superlio",
                                                                     R"("gyr_cov": 0.1, "acc_cov": 0.1, "rest_map_seconds": 0, "plane_cache_cell": 0)");
  ASSERT_TRUE(runs.wide.ok);
  EXPECT_GT(runs.wide.eval.coverage, 0.9);
  EXPECT_LT(runs.wide.eval.ate.rmse, 0.05);
  // The premise: the nearest blocks only.
  ASSERT_TRUE(runs.nearest.ok);
  EXPECT_GT(runs.nearest.eval.ate.rmse, 3.0 * runs.wide.eval.ate.rmse);
  // The defaults.
  const auto defaults = test::rs16_hall_walk_with_and_without_wide_reach("superlio");
  ASSERT_TRUE(defaults.wide.ok);
  EXPECT_LT(defaults.wide.eval.ate.rmse, 0.03);
}

// #17: an RS-16 carried through the generated rooms (seed 3) from a static start. The map built at
// rest is the sixteen rings; the first moving scans read as degenerate against it, and the wide reach
// fitted planes across 1.2 m of rings that tilted them: pitch 23-32 mrad off, and with the MEMS IMU's
// noise the wrong pitch was held and the walk drifted (50.6 cm in the bag benchmark; 10.9 cm with
// FAST-LIO's noise). mapping.rest_map_seconds (3 s) leaves the wide reach out while the map
// is the rest's rings: 1.0 cm (docs/frontends/fastlio.md, "The IMU's noise").
TEST_F(SuperlioTest, Issue17_NoWideReachWhileTheMapIsTheRingsOfTheRest) {
  const auto preset = test::shipped_sensor_preset("rs16");
  const auto walk = test::generated_world("rs16", "indoor", "handheld", 3);
  const std::string config = R"({"so_name": "superlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.1]})";
  const auto run = test::run_in_memory(walk, config + "}", &preset);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.eval.coverage, 0.9);
  EXPECT_LT(run.eval.ate.rmse, 0.02);
  // The premise: the wide reach from the first moving scan.
  const auto early = test::run_in_memory(walk, config + R"(, "mapping": {"rest_map_seconds": 0}})", &preset);
  ASSERT_TRUE(early.ok);
  EXPECT_GT(early.eval.ate.rmse, 3.0 * run.eval.ate.rmse);
}

}  // namespace
}  // namespace asuka
