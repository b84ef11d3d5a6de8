#pragma once
// Runs a frontend end to end on a simulated bag, as asuka_rosbag does (asuka_sim -> the offline
// player and host -> the frontend -> asuka_eval against the ground truth). Shared by the frontends'
// integration tests.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_eval/evaluation.hpp>
#include <asuka_ros/bag_player.hpp>
#include <asuka_sim/simulator.hpp>

namespace asuka::test {

struct SimRun {
  asuka::eval::EvalResult eval;
  std::vector<StampedPose> trajectory;
  asuka_ros::AsukaROSStats stats;  ///< the host's counters (loop-backs, warnings by kind, ...)
  std::optional<Eigen::Isometry3d> extrinsic;  ///< T_imu_lidar of the last estimated frame
  bool ok = false;
};

/// A scratch directory per test, removed with it; GlobalConfig is cleared afterwards.
class SimRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("asuka_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
    std::filesystem::remove_all(dir);
  }

  /// Simulates `sim_params` into `dir/<tag>` and runs the frontend named by `odometry_json`'s
  /// so_name on it.
  SimRun simulate_and_run(const sim::SimParams& sim_params, const std::string& lidar_type, const std::string& odometry_json, const std::string& tag = "sim") {
    return run(simulate(sim_params, tag), sim_params, lidar_type, odometry_json);
  }

  /// Simulates `sim_params` into `dir/<tag>` (to run several frontends on one bag with run()).
  sim::SimResult simulate(const sim::SimParams& sim_params, const std::string& tag = "sim") {
    return sim::run_simulation(sim_params, (dir / tag).string());
  }

  /// Runs the frontend named by `odometry_json`'s so_name on the bag `sim` simulated from `sim_params`.
  SimRun run(const sim::SimResult& sim, const sim::SimParams& sim_params, const std::string& lidar_type, const std::string& odometry_json) {
    auto& global = GlobalConfig::instance();
    global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
    auto odometry = Config::parse(odometry_json, "config_odometry.json");
    // A simulated camera: its topic, and its calibration as the frontend's sensor.camera block unless
    // the test gives one.
    if (!sim.image_topic.empty() && !odometry.has("sensor.camera")) odometry.set("sensor.camera", sim::camera_block_json(sim::make_camera(sim_params.camera.model)));
    global.set_module("config_odometry", odometry);
    global.set_module("config_ros", Config::parse(R"({"imu_topic": ")" + sim.imu_topic + R"(", "points_topic": ")" + sim.points_topic +
                                                     R"(", "image_topic": ")" + sim.image_topic + R"(", "lidar_type": ")" + lidar_type +
                                                     R"(", "reorder_window": 1.0})",
                                                 "config_ros.json"));
    const auto params = asuka_ros::AsukaROSParams::from_config();
    asuka_ros::BagPlayer player({sim.bag_path}, params);
    asuka_ros::AsukaROS host(params);
    player.play(host);
    host.wait(true);
    host.save((dir / "map.pcd").string());
    std::vector<StampedPose> gt;
    EXPECT_TRUE(read_tum(sim.ground_truth_path, gt));
    SimRun run;
    run.trajectory = host.trajectory();
    run.ok = host.executor().ok();
    run.stats = host.stats();
    run.extrinsic = host.last_extrinsic();
    run.eval = asuka::eval::evaluate(run.trajectory, gt);
    std::printf("%s %s %s: %zu poses, ATE rmse %.4f m max %.4f m, drift %.3f %%\n", params.so_name.c_str(), sim_params.lidar.c_str(),
                sim_params.trajectory.profile.c_str(), run.trajectory.size(), run.eval.ate.rmse, run.eval.ate.max, run.eval.drift.translation_percent);
    return run;
  }

  std::filesystem::path dir;
};

}  // namespace asuka::test
