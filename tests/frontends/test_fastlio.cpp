// fastlio (#5): preprocessing rules, parameters, and the whole pipeline on short simulated bags
// (asuka_sim -> asuka_rosbag's player and host -> fastlio -> asuka_eval) against ground truth.
// The long accuracy and speed runs are in benchmarks/run_fastlio.sh, not here.

#include <filesystem>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka_eval/evaluation.hpp>
#include <asuka_ros/bag_player.hpp>
#include <asuka_sim/simulator.hpp>

namespace asuka {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  asuka_eval::EvalResult eval;
  std::size_t poses = 0;
  bool ok = false;
};

class FastlioTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_fastlio_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
    fs::remove_all(dir);
  }

  /// Simulates, runs fastlio through the offline player, evaluates against the ground truth.
  RunResult simulate_and_run(const sim::SimParams& sim_params, const std::string& lidar_type, const std::string& odometry_json) {
    const auto sim = sim::run_simulation(sim_params, (dir / "sim").string());
    auto& global = GlobalConfig::instance();
    global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
    global.set_module("config_odometry", Config::parse(odometry_json, "config_odometry_fastlio.json"));
    global.set_module("config_ros", Config::parse(R"({"imu_topic": ")" + sim.imu_topic + R"(", "points_topic": ")" + sim.points_topic +
                                                     R"(", "lidar_type": ")" + lidar_type + R"(", "reorder_window": 1.0})",
                                                 "config_ros.json"));
    const auto params = asuka_ros::AsukaROSParams::from_config();
    asuka_ros::BagPlayer player({sim.bag_path}, params);
    asuka_ros::AsukaROS host(params);
    player.play(host);
    host.wait(true);
    host.save((dir / "map.pcd").string());
    std::vector<StampedPose> gt;
    EXPECT_TRUE(read_tum(sim.ground_truth_path, gt));
    RunResult run;
    run.poses = host.trajectory().size();
    run.ok = host.executor().ok();
    run.eval = asuka_eval::evaluate(host.trajectory(), gt);
    std::printf("%s %s: %zu poses, ATE rmse %.4f m max %.4f m, drift %.3f %%\n", sim_params.lidar.c_str(), sim_params.trajectory.profile.c_str(), run.poses,
                run.eval.ate.rmse, run.eval.ate.max, run.eval.drift.translation_percent);
    return run;
  }

  fs::path dir;
};

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
  EXPECT_GE(run.poses, 140u);
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
  EXPECT_GE(run.poses, 140u);
  // Measured 2.0 cm. A level spinning lidar draws walls as scan lines: collinear neighbours made this
  // 24 cm before fit_plane rejected them, and 3.8 cm before the absolute residual gate.
  EXPECT_LT(run.eval.ate.rmse, 0.03);
}

}  // namespace
}  // namespace asuka
