// fastlio (#5): its parameters, and the whole pipeline on short simulated bags
// (asuka_sim -> asuka_rosbag's player and host -> fastlio -> asuka_eval) against ground truth.
// The long accuracy and speed runs are in benchmarks/run_frontends.sh, not here.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/io/pcd_io.hpp>
#include <asuka_sim/scene.hpp>

#include "support/host_run.hpp"
#include "support/log_capture.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

using FastlioTest = test::SimRunTest;

TEST_F(FastlioTest, R_PLUG_3_ABadKeyIsALoadErrorNamingIt) {
  // Loading, tracking and faults are the conformance suite's (test_conformance.cpp).
  std::string error;
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"sensor": {"extrinsic_R": [1, 0, 0, 0, 2, 0, 0, 0, 1]}})", "c.json"));
  EXPECT_FALSE(OdometryEstimation::load_module("fastlio", &error));
  EXPECT_NE(error.find("not a rotation matrix"), std::string::npos) << error;
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

// #16 map.pcd is the record of what the map took over the run (map_record.hpp), with intensity:
// with a local-map box of 10 m the map ends with a fraction of what the run saw, and map.pcd keeps
// the rest, once per 0.1 m cell, at the map's own accuracy; with the record off it is the local map
// as it ends, without intensity.
TEST_F(FastlioTest, Issue16_MapPcdKeepsWhatTheLocalBoxDropped) {
  sim::SimParams p;
  p.duration = 10.0;
  const auto bag = simulate(p);
  std::size_t local_map = 0;
  auto connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) { local_map = f->map_points; });
  std::vector<Eigen::Vector3f> saved[2];
  std::vector<float> intensity[2];
  std::size_t local[2] = {0, 0};
  std::vector<StampedPose> trajectory;
  for (const int record : {1, 0}) {
    const auto result = run(bag, p, "livox",
                            std::string(R"({"so_name": "fastlio", "mapping": {"local_map_half_size": 10.0}, "output": {"map_record_max_points": )") +
                                (record ? "20000000" : "0") + "}}");
    EXPECT_LT(result.eval.ate.rmse, 0.03);
    std::string error;
    ASSERT_TRUE(read_pcd_intensity((dir / "map.pcd").string(), saved[record], intensity[record], &error)) << error;
    local[record] = local_map;
    if (record) trajectory = result.trajectory;
    GlobalConfig::instance().clear();
  }
  connection.disconnect();
  EXPECT_EQ(local[0], local[1]);  // the record changes nothing in the estimate's map
  EXPECT_EQ(saved[0].size(), local[0]);
  for (const float i : intensity[0]) ASSERT_EQ(i, 0.0f);
  EXPECT_GT(saved[1].size(), 3 * local[1]);  // measured 14x on 10 s
  for (const float i : intensity[1]) ASSERT_GE(i, 20.0f);
  // The run's map lies on the scene as the estimator's own map does: brought into the simulator's
  // world by the first pose's ground truth, 99.9 % of either is within 10 cm of a surface (measured:
  // record 95 % within 5 cm, local map 86 %, ranges noisy by 2 cm). A point recorded from a wrong
  // state or frame is decimetres off.
  std::vector<StampedPose> gt;
  ASSERT_TRUE(read_tum(bag.ground_truth_path, gt));
  const auto pairs = eval::associate(trajectory, gt);
  ASSERT_GE(pairs.size(), 50u);
  const Eigen::Isometry3d T_sim_est = pairs.T_gt[0] * pairs.T_est[0].inverse();
  const auto scene = sim::make_scene(p.scene, p.seed);
  for (const int record : {0, 1}) {
    std::size_t within_5cm = 0, within_10cm = 0;
    for (const auto& q : saved[record]) {
      const double d = scene->distance(T_sim_est * q.cast<double>());
      within_5cm += d < 0.05 ? 1 : 0;
      within_10cm += d < 0.1 ? 1 : 0;
    }
    std::printf("map.pcd with the record %s: %zu points, %.1f %% within 5 cm, %.2f %% within 10 cm of the scene\n", record ? "on" : "off",
                saved[record].size(), 100.0 * within_5cm / saved[record].size(), 100.0 * within_10cm / saved[record].size());
    EXPECT_GT(within_10cm, saved[record].size() * 99 / 100);
    if (record) {
      EXPECT_GT(within_5cm, saved[record].size() * 9 / 10);
    }
  }
}

// #16 map_save_every: the map is written while the run goes on (every N scans), whole each time, and
// grows with the run; the final save is the application's as before.
TEST_F(FastlioTest, Issue16_TheMapIsSavedEveryNScans) {
  sim::SimParams p;
  p.duration = 8.0;
  p.trajectory.static_duration = 2.0;
  p.trajectory.ramp_duration = 1.0;
  const auto bag = simulate(p);
  auto& global = GlobalConfig::instance();
  global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
  global.set_module("config_odometry", Config::parse(R"({"so_name": "fastlio"})", "config_odometry.json"));
  global.set_module("config_ros", Config::parse(R"({"imu_topic": ")" + bag.imu_topic + R"(", "points_topic": ")" + bag.points_topic +
                                                    R"(", "lidar_type": "livox", "reorder_window": 1.0, "map_save_every": 20})",
                                                "config_ros.json"));
  auto params = asuka_ros::AsukaROSParams::from_config();
  const auto path = (dir / "periodic_map.pcd").string();
  params.map_save_path = path;
  asuka_ros::BagPlayer player({bag.bag_path}, params);
  asuka_ros::AsukaROS host(params);
  std::size_t frames = 0;
  std::vector<std::uintmax_t> sizes;  // the file after every 20th scan
  auto connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr&) {
    if (++frames % 20 == 0) {
      std::error_code ec;
      sizes.push_back(std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0);
    }
  });
  player.play(host);
  host.wait(true);
  connection.disconnect();
  ASSERT_GE(sizes.size(), 2u) << frames << " frames";
  EXPECT_GT(sizes.front(), 1000u);
  EXPECT_GT(sizes.back(), sizes.front());  // the map grew between two saves
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(FastlioTest, ALidarImuTimeOffsetIsEstimatedAndNamedWithTheSetting) {
  // #12 item 4: stamps offset between the clocks (fastlio ended 3.2 m off with no word). The host
  // correlates the registered rotation with the gyroscope (asuka/host/time_offset_check.hpp).
  struct Case {
    double lidar_offset, imu_offset, expected;  // expected: the tau the host finds, the correction to add
  };
  for (const Case c : {Case{0.3, 0.0, -0.3}, Case{-0.3, 0.0, 0.3}, Case{0.0, 0.3, 0.3}}) {
    sim::SimParams p;
    p.duration = 12.0;
    p.faults.lidar_time_offset = c.lidar_offset;
    p.imu_time_offset = c.imu_offset;
    const auto run = test::run_in_memory(p, R"({"so_name": "fastlio"})");
    ASSERT_TRUE(run.time_offset) << c.lidar_offset << " " << c.imu_offset;
    ASSERT_TRUE(run.time_offset->valid) << run.time_offset->reason;
    EXPECT_NEAR(run.time_offset->offset, c.expected, 0.06) << c.lidar_offset << " " << c.imu_offset;
    EXPECT_EQ(run.stats.warnings.count("time_offset"), 1u) << c.lidar_offset << " " << c.imu_offset;
    GlobalConfig::instance().clear();
  }
  // The clocks agree: an estimate near zero, and no warning.
  sim::SimParams p;
  p.duration = 12.0;
  const auto run = test::run_in_memory(p, R"({"so_name": "fastlio"})");
  ASSERT_TRUE(run.time_offset && run.time_offset->valid);
  EXPECT_NEAR(run.time_offset->offset, 0.0, 0.01);
  EXPECT_EQ(run.stats.warnings.count("time_offset"), 0u);
}

TEST_F(FastlioTest, Issue12_AStartAtConstantVelocityStartsAtTheVelocityTheLidarMeasures) {
  // #12 item 1: a vehicle already driving when the recording starts. The IMU reads as at rest; the
  // scans of the initialization, registered by the LiDAR alone, show the motion, and the filter
  // starts at that velocity (filter_frontend.hpp). Without it (lidar_start_velocity false) the
  // filter starts at v = 0, ends metres off, and a warning names the cause. Over 1 s at rest
  // and then up to speed, neither fires; nor in a corridor at rest, where the LiDAR alone slides along
  // the axis (7 m/s measured) but the registration does not constrain that direction. Every
  // frontend: the conformance suite.
  const std::string vlp16 = R"("so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]})";
  for (const int start : {0, 1, 2}) {  // moving, moving without the LiDAR's velocity, at rest
    SCOPED_TRACE(start);
    sim::SimParams p;
    p.lidar = "vlp16";
    p.trajectory.profile = "vehicle";
    p.duration = 6.0;
    p.trajectory.static_duration = start == 2 ? 1.0 : 0.0;
    p.trajectory.ramp_duration = start == 2 ? 1.0 : 0.0;
    test::LogCapture log("fastlio");
    const auto run = simulate_and_run(p, "velodyne", "{" + vlp16 + (start == 1 ? R"(, "mapping": {"lidar_start_velocity": false}})" : "}"));
    EXPECT_EQ(log.contains("the sensor was moving at 5."), start == 0) << log.text();
    EXPECT_EQ(log.contains("most likely already moving at constant velocity"), start == 1) << log.text();
    // With the key false the LiDAR alone still measures the start, and the warning names the setting
    // (the start check after 20 registrations saw 0.78 of 5.4 m/s with five neighbours, 0.13 with eight).
    EXPECT_EQ(log.contains("the LiDAR alone measured 5."), start == 1) << log.text();
    EXPECT_EQ(log.contains("mapping.lidar_start_velocity is false, so the filter starts at rest"), start == 1) << log.text();
    EXPECT_TRUE(log.contains("start check: the first 20 registrations corrected the velocity")) << log.text();
    EXPECT_FALSE(log.contains("could not measure the start velocity")) << log.text();  // a street constrains every direction
    if (start == 2) {
      sim::SimParams corridor;
      corridor.scene = "corridor";
      corridor.duration = 4.0;
      test::LogCapture corridor_log("fastlio");
      simulate_and_run(corridor, "livox", R"({"so_name": "fastlio"})", "corridor");
      EXPECT_FALSE(corridor_log.contains("the sensor was moving at")) << corridor_log.text();
      // ... but the user is told that a start in motion along the axis could not have been seen.
      EXPECT_TRUE(corridor_log.contains("the LiDAR could not measure the start velocity along world (1.00, 0.00, ")) << corridor_log.text();
      EXPECT_TRUE(corridor_log.contains("IMU initialized")) << corridor_log.text();
    }
    if (start == 1) {
      EXPECT_GT(run.eval.ate.rmse, 0.3);  // measured 2-17 m over 20 s
    } else {
      EXPECT_LT(run.eval.ate.rmse, 0.03);  // measured 0.5-1.3 cm over 20 s from the moving start
    }
  }
}

TEST_F(FastlioTest, Issue12_AnAggressiveMovingStartIsNotProjectedAwayWhileItSettles) {
  // #12 item 1 with #21: a hand-held rig already swung at 4 m/s when the recording starts. The first
  // scans' sparse map reads as degenerate; #21's projection then left the velocity along it to an IMU
  // that had never measured it: 44 m. While a moving start settles (filter_frontend.hpp) the LiDAR
  // keeps correcting every direction: 14.6 cm; and the filter starts at the velocity the LiDAR alone,
  // aided by the gyroscope, measured over the initialization's scans: 1.07 cm.
  sim::SimParams p;
  p.duration = 12.0;
  p.seed = 1;
  p.trajectory.profile = "aggressive";
  p.trajectory.static_duration = 0.0;
  p.trajectory.ramp_duration = 0.0;
  test::LogCapture log("fastlio");
  const auto run = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  EXPECT_TRUE(log.contains("the sensor was moving during IMU initialization")) << log.text();
  EXPECT_TRUE(log.contains("moving start: the filter starts at the velocity the LiDAR alone measured")) << log.text();
  EXPECT_LT(run.eval.ate.rmse, 0.05);
}

TEST_F(FastlioTest, OnlineExtrinsicEstimationRecoversAWrongExtrinsic) {
  // The issue's optional online lidar-IMU extrinsic: the simulator mounts the Avia's lidar where
  // it is (t = (0.04165, 0.02326, -0.0284) m, R = I); the config says 5.6 cm and 1 deg otherwise.
  // Rotation makes the extrinsic observable, so the aggressive profile.
  sim::SimParams p;
  p.duration = 15.0;
  p.trajectory.profile = "aggressive";
  const Eigen::Vector3d t_true(0.04165, 0.02326, -0.0284);
  const std::string wrong = R"("sensor": {"extrinsic_t": [0.08165, -0.00674, -0.0034], "extrinsic_R": [0.99985, -0.01745, 0, 0.01745, 0.99985, 0, 0, 0, 1]})";
  const auto fixed = simulate_and_run(p, "livox", R"({"so_name": "fastlio", )" + wrong + "}");
  const auto estimated = simulate_and_run(p, "livox", R"({"so_name": "fastlio", "mapping": {"extrinsic_est_en": true}, )" + wrong + "}");
  ASSERT_TRUE(fixed.ok && estimated.ok);
  ASSERT_TRUE(fixed.extrinsic && estimated.extrinsic);
  // Not estimated: the frames carry the configured extrinsic, unchanged.
  EXPECT_LT((fixed.extrinsic->translation() - Eigen::Vector3d(0.08165, -0.00674, -0.0034)).norm(), 1e-12);
  // Estimated: from 56 mm and 1 deg, measured 18 mm and 0.21 deg after these 15 s (7 mm and 0.35 deg
  // before #21's coupled gravity prior). The translation is weakly observable: after 25 s of three
  // aggressive seeds it was 17, 30 and 36 mm off with the coupled prior and 10, 33 and 22 mm without
  // (the bound was 15 mm from this seed alone, then raised to 20 mm with those numbers in hand).
  const double t_error = (estimated.extrinsic->translation() - t_true).norm();
  const double r_error = Eigen::AngleAxisd(estimated.extrinsic->linear()).angle() * 180.0 / M_PI;
  std::printf("extrinsic error after 15 s: %.1f mm, %.2f deg; ATE %.2f cm (fixed wrong extrinsic: %.2f cm)\n", t_error * 1e3, r_error,
              estimated.eval.ate.rmse * 100.0, fixed.eval.ate.rmse * 100.0);
  EXPECT_LT(t_error, 0.020);
  EXPECT_LT(r_error, 0.6);
  // And the trajectory is better for it (measured 1.2 vs 2.4 cm; 1.5 vs 2.6 cm before the coupling).
  EXPECT_LT(estimated.eval.ate.rmse, 0.8 * fixed.eval.ate.rmse);
}

// #17: planes that hinge on one point. A VLP-16 on a vehicle in the generated field (seed 4, random
// motion): the five nearest map points were often four on one scan line and one beside it, a plane
// that fits any point beside the line exactly, and fastlio with FAST-LIO's five neighbours ended
// 7.1 m off with exit 0 (5.1 m in memory here). With eight, which the 16-line presets (vlp16, rs16)
// set, it measured 4 cm (1.9 cm here); the bound leaves room for other seeds' noise, not for that
// failure.
TEST_F(FastlioTest, Issue17_PlanesThatHingeOnOnePointDoNotDriveAVlp16Off) {
  const auto preset = test::shipped_sensor_preset("vlp16");
  ASSERT_NE(std::find(preset.settings.begin(), preset.settings.end(), "config_odometry.mapping.knn=8"), preset.settings.end());
  const std::string config = R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}, "mapping": {"knn": 8}})";
  const auto run = test::run_in_memory(test::generated_vlp16_field_drive(), config);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.eval.coverage, 0.9);
  EXPECT_LT(run.eval.ate.rmse, 0.3);
}

// #17: the 16-line presets' map voxels. The k nearest map points are searched in the 2 x 2 x 2
// voxels around a point, so the voxel edge bounds how far a plane's neighbours reach. On a 16-line
// lidar, whose rings lie far apart, neighbours within 0.5 m voxels reach round the pillars and
// corners of the generated garage and fit planes that are not there; 0.3 m keeps them on one face.
// Measured here 0.39 cm with the preset, 3.96 cm with 0.5 m voxels (in the bag benchmark, origin
// aligned: 1.1 against 22 cm).
TEST_F(FastlioTest, Issue17_TheVlp16PresetsFinerMapVoxelsHoldAnExtremeWalkInAGarage) {
  const auto preset = test::shipped_sensor_preset("vlp16");
  ASSERT_EQ(preset.setting("config_odometry.mapping.map_voxel_size"), "0.3");
  const std::string config = R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})";
  const auto fine = test::run_in_memory(test::generated_vlp16_garage_extreme(), config, &preset);
  ASSERT_TRUE(fine.ok);
  EXPECT_GT(fine.eval.coverage, 0.9);
  EXPECT_LT(fine.eval.ate.rmse, 0.015);
  // The premise: the same walk with 0.5 m voxels (the file's value wins over the preset's). 10x the
  // preset's error with FAST-LIO's IMU noise, 2.9x with fastlio's own (1.12 against 0.39 cm;
  // docs/frontends/fastlio.md, "The IMU's noise"): the coarse voxels' planes are still wrong, the
  // filter follows them less.
  const std::string coarse_config =
      R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}, "mapping": {"map_voxel_size": 0.5}})";
  const auto coarse = test::run_in_memory(test::generated_vlp16_garage_extreme(), coarse_config, &preset);
  ASSERT_TRUE(coarse.ok);
  EXPECT_GT(coarse.eval.ate.rmse, 2.0 * fine.eval.ate.rmse);
}

// #17: the IMU's noise per sample (mapping.gyr_cov, acc_cov). With FAST-LIO's 0.1 (rad/s)^2 the
// attitude's prior grows by 7 mrad per scan, about a hundred times what a MEMS gyroscope errs over
// 0.1 s, so each scan's registration sets the attitude on its own, and a young map's error becomes a
// tilt that gravity turns into acceleration. fastlio's defaults, 1e-3 and 1e-2, are still 125 and 12
// times the simulator's (consumer MEMS) noise at 200 Hz. The generated garage, a VLP-16 on a vehicle
// (seed 3), was the worst of ten such drives: 4.7 cm with FAST-LIO's values, 2.0 cm with these
// (origin-aligned, docs/frontends/fastlio.md, "The IMU's noise"; SE(3)-aligned here 0.97 and 0.52 cm
// with five neighbours per plane, 1.13 and 0.70 cm with eight).
TEST_F(FastlioTest, Issue17_TheImuNoiseOfAMemsImuHoldsAVlp16DriveThroughAGarage) {
  const auto preset = test::shipped_sensor_preset("vlp16");
  const std::string config = R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]})";
  const auto drive = test::generated_world("vlp16", "garage", "vehicle", 3);
  // The noise compared with the rest map's weighting off (#21, rest_map_degenerate_std_scale 1),
  // which holds this drive's first seconds too.
  const auto run = test::run_in_memory(drive, config + R"(, "mapping": {"rest_map_degenerate_std_scale": 1}})", &preset);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.eval.coverage, 0.9);
  EXPECT_LT(run.eval.ate.rmse, 0.008);
  // The premise: the same drive with FAST-LIO's noise.
  const auto fastlio_noise =
      test::run_in_memory(drive, config + R"(, "mapping": {"gyr_cov": 0.1, "acc_cov": 0.1, "rest_map_degenerate_std_scale": 1}})", &preset);
  ASSERT_TRUE(fastlio_noise.ok);
  EXPECT_GT(fastlio_noise.eval.ate.rmse, 1.5 * run.eval.ate.rmse);
  // fastlio's defaults (both): 0.89 cm, where the MEMS noise alone gives the run above.
  const auto defaults = test::run_in_memory(drive, config + "}", &preset);
  ASSERT_TRUE(defaults.ok);
  EXPECT_LT(defaults.eval.ate.rmse, 0.012);
}

// #17: an RS-16 carried down the hall of the rooms scene (seed 21): the floor's rings and the hall's
// far end are farther apart than the 0.6 m block of the preset's 0.3 m voxels, so the nearest
// blocks leave the motion along the hall and the vertical without a plane, and the IMU carried them
// (7.6 m off). A scan found degenerate is associated again with the wide reach (4 x 4 x 4 voxels for
// its thin fits, plane_association.hpp), which finds the floor and the end walls. That was with
// FAST-LIO's IMU noise (gyr_cov, acc_cov 0.1) and the wide reach from the first moving scan; with
// fastlio's defaults since 2026-12-07 (1e-3, 1e-2, and no wide reach in the first 3 s after the rest:
// docs/frontends/fastlio.md, "The IMU's noise") the walk holds either way (1.4 cm), so the wide reach
// is shown here under the earlier settings.
TEST_F(FastlioTest, Issue17_ADegenerateScanReachesFartherForPlanesDownAHall) {
  const auto runs = test::rs16_hall_walk_with_and_without_wide_reach("fastlio", R"("gyr_cov": 0.1, "acc_cov": 0.1, "rest_map_seconds": 0)");
  ASSERT_TRUE(runs.wide.ok);
  EXPECT_GT(runs.wide.eval.coverage, 0.9);
  EXPECT_LT(runs.wide.eval.ate.rmse, 0.10);
  // The premise: without the wide reach the same walk is left to the IMU along the hall.
  ASSERT_TRUE(runs.nearest.ok);
  EXPECT_GT(runs.nearest.eval.ate.rmse, 5.0 * runs.wide.eval.ate.rmse);
  EXPECT_GT(runs.nearest.degeneracy.degenerate_scans, 2 * runs.wide.degeneracy.degenerate_scans);
  // With fastlio's defaults the same walk holds.
  const auto defaults = test::rs16_hall_walk_with_and_without_wide_reach("fastlio");
  ASSERT_TRUE(defaults.wide.ok);
  EXPECT_LT(defaults.wide.eval.ate.rmse, 0.03);
}

// #21: along the plain corridor no scan measures the position; the filter can only carry the IMU's
// integration there, and must not do worse than the IMU alone from the same initial state (the
// simulator's dead reckoning). The static start levels the attitude on the accelerometer, so the
// horizontal accel bias sits in the world frame as a tilt of gravity; the walk's yaw swings later
// reveal the bias. With gravity held to its own prior, the filter took that bias as acceleration
// along the axis (seeds 1 and 3 of benchmarks/degeneracy.sh ended 5.4 and 2.6 m off where the IMU
// alone ends 2.9 and 1.9 m off); the static prior now couples gravity to the bias (nav_state.hpp).
TEST_F(FastlioTest, Issue21_AlongTheCorridorNoWorseThanTheImuAlone) {
  for (const std::uint64_t seed : {1u, 3u}) {
    SCOPED_TRACE(seed);
    const auto [ok, filter, imu_alone] = test::corridor_walk_against_the_imu_alone(R"({"so_name": "fastlio"})", seed, 20.0);
    ASSERT_TRUE(ok);
    EXPECT_LT(filter.ate_axes_rmse.x(), imu_alone.ate_axes_rmse.x() + 0.05);
    EXPECT_LT(std::fabs(filter.final_error.x()), std::fabs(imu_alone.final_error.x()) + 0.1);
    // Across and vertically the walls, floor and ceiling hold it.
    EXPECT_LT(filter.ate_axes_rmse.y(), 0.02);
    EXPECT_LT(filter.ate_axes_rmse.z(), 0.02);
  }
}

// #21: a car pulling away from rest into a road tunnel (VLP-16, degeneracy.sh's settings). Only the
// floor and ceiling, seen ahead and behind as rings 1-3 m apart, constrain the pitch, and in the first
// seconds the map is the rest's rings: planes over two of them (two parallel lines always span one)
// pulled the pitch by 2-4 mrad per scan, 10 mrad were locked in, and gravity carried that along the
// axis no scan constrains (ATE 1.2 m on this seed, 4.7 and 0.5 m on seeds 1 and 3; docs/degeneracy.md).
// Degenerate scans against the rest's map are weighted down (mapping.rest_map_degenerate_std_scale).
TEST_F(FastlioTest, Issue21_TheRestMapDoesNotTiltACarPullingAwayIntoATunnel) {
  sim::SimParams p;
  p.lidar = "vlp16";
  p.scene = "tunnel";
  p.trajectory.profile = "vehicle";
  p.duration = 30.0;
  p.seed = 2;
  const std::string vlp16 = R"("so_name": "fastlio", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]})";
  const auto weighted = test::degenerate_run_against_the_imu_alone(p, "{" + vlp16 + "}");
  const auto plain = test::degenerate_run_against_the_imu_alone(p, "{" + vlp16 + R"(, "mapping": {"rest_map_degenerate_std_scale": 1}})");
  ASSERT_TRUE(weighted.ok && plain.ok);
  std::printf("tunnel: rotation rms %.3f deg weighted, %.3f plain\n", weighted.filter.rotation_rmse_deg, plain.filter.rotation_rmse_deg);
  // Along the axis no worse than the IMU alone from the same start ...
  EXPECT_LT(weighted.filter.ate_axes_rmse.x(), weighted.imu_alone.ate_axes_rmse.x() + 0.05);
  EXPECT_LT(std::fabs(weighted.filter.final_error.x()), std::fabs(weighted.imu_alone.final_error.x()) + 0.1);
  // ... which it was not with every scan weighted alike (the premise).
  EXPECT_GT(plain.filter.ate_axes_rmse.x(), 2.0 * weighted.imu_alone.ate_axes_rmse.x());
  // The attitude is what the weighting holds (0.11 against 0.21 deg rms).
  EXPECT_LT(weighted.filter.rotation_rmse_deg, 0.7 * plain.filter.rotation_rmse_deg);
}

}  // namespace
}  // namespace asuka
