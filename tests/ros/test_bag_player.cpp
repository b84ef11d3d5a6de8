// The bag player and asuka_rosbag on bags written by the test with ROS's bag writer.
// Requirements: R-ROS-1, R-ROS-5, R-ROS-7; issue #3 (order, back-pressure, determinism, errors).

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rosbag/bag.h>

#include <asuka/config/config.hpp>
#include <asuka_ros/bag_player.hpp>

#include "core/test_support.hpp"
#include "support/process.hpp"
#include "ros_test_support.hpp"

namespace asuka_ros {
namespace {

namespace fs = std::filesystem;

using test::BagSpec;
using test::write_bag;

class BagPlayerTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_bag_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    auto& global = asuka::GlobalConfig::instance();
    global.set_root(asuka::Config::parse(R"({"extensions": []})", "config.json"), ".");
    global.set_module("config_odometry", asuka::Config::parse(R"({"so_name": ")" + asuka::test::fake_frontend_path() + R"("})", "config_odometry_fake.json"));
    global.set_module("config_ros", asuka::Config::parse(R"({"imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne", "reorder_window": 1.0})",
                                                        "config_ros.json"));
  }
  void TearDown() override {
    asuka::GlobalConfig::instance().clear();
    fs::remove_all(dir);
  }
  std::string bag(const std::string& name, const BagSpec& spec = {}) {
    const auto path = (dir / name).string();
    write_bag(path, spec);
    return path;
  }
  std::string play_error(const std::vector<std::string>& bags, const AsukaROSParams& params) {
    try {
      BagPlayer player(bags, params);
      AsukaROS host(params);
      player.play(host);
    } catch (const BagPlayerError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir;
};

TEST_F(BagPlayerTest, R_ROS_1_PlaysConfiguredTopicsInSensorTimeOrder) {
  const auto path = bag("a.bag");
  const auto params = AsukaROSParams::from_config();
  BagPlayer player({path}, params);
  EXPECT_NEAR(player.duration(), 2.0, 0.01);
  ASSERT_EQ(player.topics().size(), 3u);
  AsukaROS host(params);
  int progress_calls = 0;
  player.play(host, [&](const BagPlayerProgress&) { ++progress_calls; });
  host.wait(true);
  auto* probe = asuka::test::fake_probe();
  std::lock_guard<std::mutex> lock(probe->mutex);
  EXPECT_EQ(probe->imu_count, 400u);
  EXPECT_EQ(probe->frame_count, 19u);  // /camera/info is ignored
  EXPECT_TRUE(std::is_sorted(probe->fed_stamps.begin(), probe->fed_stamps.end()));
  EXPECT_GE(progress_calls, 1);
}

TEST_F(BagPlayerTest, AStopRequestEndsReadingWithoutAnError) {
  // #12: Ctrl-C in asuka_rosbag calls request_stop() from its signal handler; the player stops before
  // the next message and returns normally (no "no usable IMU data" error), so what was read is
  // processed and written, marked interrupted.
  const auto path = bag("stop.bag");
  const auto params = AsukaROSParams::from_config();
  BagPlayer player({path}, params);
  AsukaROS host(params);
  EXPECT_FALSE(player.stopped());
  player.request_stop();
  EXPECT_NO_THROW(player.play(host));
  host.wait(true);
  EXPECT_TRUE(player.stopped());
  EXPECT_LT(player.stopped_at(), 0.01);
  EXPECT_EQ(host.stats().imu_inserted + host.stats().frames_inserted, 0u);
}

TEST_F(BagPlayerTest, R_ROS_7_BackPressureNeverOverflowsWithASlowFrontend) {
  const auto path = bag("slow.bag", BagSpec{3.0, 400.0, 20.0, false, false});
  auto params = AsukaROSParams::from_config();
  params.executor.imu_queue_capacity = 60;  // small queues make an overflow likely without back-pressure
  params.executor.frame_queue_capacity = 45;
  BagPlayer player({path}, params);
  AsukaROS host(params);
  {
    auto* probe = asuka::test::fake_probe();
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->sleep_us_per_event = 200;
  }
  player.play(host);
  host.wait(true);
  const auto stats = host.executor().stats();
  EXPECT_EQ(stats.imu_overflow + stats.frame_overflow, 0u);
  EXPECT_EQ(stats.imu_processed, 1200u);
  EXPECT_EQ(stats.frames_processed, 59u);
}

TEST_F(BagPlayerTest, DeterministicFeedOrderAcrossRuns) {
  const auto path = bag("det.bag", BagSpec{2.0, 200.0, 10.0, true});
  asuka::GlobalConfig::instance().module("config_ros").set("lidar_type", "\"livox\"");
  std::vector<std::vector<double>> runs;
  for (int run = 0; run < 3; ++run) {
    const auto params = AsukaROSParams::from_config();
    BagPlayer player({path}, params);
    AsukaROS host(params);
    auto* probe = asuka::test::fake_probe();
    {
      std::lock_guard<std::mutex> lock(probe->mutex);
      probe->sleep_us_per_event = run * 100;  // different speeds must not change the order
    }
    player.play(host);
    host.wait(true);
    std::lock_guard<std::mutex> lock(probe->mutex);
    runs.push_back(probe->fed_stamps);
  }
  EXPECT_EQ(runs[0].size(), 419u);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST_F(BagPlayerTest, ErrorsAreClear) {
  const auto params = AsukaROSParams::from_config();
  EXPECT_NE(play_error({(dir / "missing.bag").string()}, params).find("cannot read bag"), std::string::npos);

  const auto garbage = (dir / "garbage.bag").string();
  std::ofstream(garbage) << "#ROSBAG V2.0\nthis is not a bag at all";
  EXPECT_NE(play_error({garbage}, params).find("garbage.bag"), std::string::npos);

  const auto good = bag("good.bag");
  const auto truncated = (dir / "truncated.bag").string();
  fs::copy_file(good, truncated);
  fs::resize_file(truncated, fs::file_size(good) / 2);
  const auto truncated_error = play_error({truncated}, params);
  EXPECT_NE(truncated_error, "") << "a truncated bag must be an error";

  auto wrong_topic = params;
  wrong_topic.imu_topic = "/imu_missing";
  const auto missing_topic = play_error({good}, wrong_topic);
  EXPECT_NE(missing_topic.find("the IMU topic '/imu_missing' is not in the input"), std::string::npos) << missing_topic;
  EXPECT_NE(missing_topic.find("/imu (sensor_msgs/Imu, 400 messages)"), std::string::npos) << missing_topic;

  // #16: both topics wrong are named together, each with the topic of the right type and the setting.
  auto both_wrong = params;
  both_wrong.imu_topic = "/imu_missing";
  both_wrong.points_topic = "/imu";
  const auto both = play_error({good}, both_wrong);
  EXPECT_NE(both.find("the IMU topic '/imu_missing' is not in the input; '/imu' holds sensor_msgs/Imu: --set config_ros.imu_topic=/imu"), std::string::npos)
      << both;
  EXPECT_NE(both.find("and the lidar topic '/imu' carries sensor_msgs/Imu"), std::string::npos) << both;
  EXPECT_NE(both.find("'/points' holds sensor_msgs/PointCloud2: --set config_ros.points_topic=/points"), std::string::npos) << both;

  auto wrong_type = params;
  wrong_type.imu_topic = "/points";
  const auto type_error = play_error({good}, wrong_type);
  EXPECT_NE(type_error.find("carries sensor_msgs/PointCloud2, expected sensor_msgs/Imu"), std::string::npos) << type_error;

  BagSpec no_imu;
  no_imu.nan_imu = true;
  EXPECT_NE(play_error({bag("nan_imu.bag", no_imu)}, params).find("no usable IMU data"), std::string::npos);
  BagSpec no_lidar;
  no_lidar.empty_clouds = true;
  EXPECT_NE(play_error({bag("empty.bag", no_lidar)}, params).find("no usable lidar data"), std::string::npos);
  EXPECT_NE(play_error({}, params).find("no bag given"), std::string::npos);
}

// ---- asuka_rosbag, the program ---------------------------------------------------------------

asuka::test::CommandResult run(const std::string& command) { return asuka::test::run_command(command + " 2>&1"); }

std::string read_file(const fs::path& path) { return asuka::test::read_text_file(path.string()); }

TEST_F(BagPlayerTest, AsukaRosbagWritesOutputsAndIsByteIdenticalAcrossRuns) {
  const auto path = bag("run.bag", BagSpec{2.0, 200.0, 10.0, true});
  const auto config = dir / "config";
  fs::create_directories(config);
  std::ofstream(config / "config.json") << R"({"config_ros": "config_ros.json", "config_odometry": "config_odometry_fake.json", "extensions": []})";
  std::ofstream(config / "config_ros.json") << R"({"imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne", "acc_scale": "auto"})";
  std::ofstream(config / "config_odometry_fake.json") << R"({"so_name": ")" << asuka::test::fake_frontend_path()
                                                      << R"(", "fake": {"process_steps_per_event": 1}})";

  const std::string program = std::string(ASUKA_BINARY_DIR) + "/bin/asuka_rosbag";
  std::string outputs[2];
  for (int i = 0; i < 2; ++i) {
    const auto out = dir / ("out" + std::to_string(i));
    const auto r = run(program + " --bag " + path + " --config " + config.string() + " --output " + out.string() +
                       " --set config_ros.lidar_type=livox");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("real-time factor"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("progress 100.0%"), std::string::npos) << r.output;  // not a terminal: plain lines
    ASSERT_TRUE(fs::exists(out / "trajectory.tum"));
    ASSERT_TRUE(fs::exists(out / "config" / "config_ros.json"));
    outputs[i] = read_file(out / "trajectory.tum");
    const auto report = nlohmann::json::parse(read_file(out / "report.json"));
    EXPECT_EQ(report["frames"]["processed"], 19);
    EXPECT_EQ(report["imu_samples"]["processed"], 400);
    EXPECT_EQ(report["points"]["in"], 19 * 50);
    EXPECT_EQ(report["overflows"]["imu"], 0);
    EXPECT_DOUBLE_EQ(report["acc_scale"].get<double>(), 1.0);
    EXPECT_EQ(report["point_time"]["unit"], "ns");
    EXPECT_TRUE(report["time_per_stage_s"]["estimate_per_scan"].contains("p95"));
    // #18: the per-scan record streamed beside the trajectory, one line per estimated scan, and the
    // process's peak memory in the report.
    EXPECT_TRUE(report["time_per_stage_s"]["estimate_per_scan"].contains("p99"));
    EXPECT_GT(report["memory"]["peak_resident_mb"].get<double>(), 1.0);
    ASSERT_EQ(report["outputs"]["scans"], (out / "scans.csv").string());
    const std::string scans = read_file(out / "scans.csv");
    EXPECT_EQ(scans.rfind("# stamp_s,estimate_ms,resident_mb,map_points,estimate_cpu_ms\n", 0), 0u) << scans;
    EXPECT_EQ(std::count(scans.begin(), scans.end(), '\n'), 1 + 19);
    // The last frame's extrinsic, as the fake frontend reports it.
    const auto& extrinsic = report["T_imu_lidar_final"];
    EXPECT_EQ(extrinsic["t_m"], nlohmann::json({0.1, 0.2, 0.3}));
    EXPECT_EQ(extrinsic["R_row_major"], nlohmann::json({0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0}));
    EXPECT_NEAR(extrinsic["rotation_vector_deg"][2].get<double>(), 90.0, 1e-9);
    EXPECT_NEAR(extrinsic["rotation_vector_deg"][0].get<double>(), 0.0, 1e-9);
    // The --set override reached the effective config.
    EXPECT_NE(read_file(out / "config" / "config_ros.json").find("\"livox\""), std::string::npos);
  }
  EXPECT_EQ(std::count(outputs[0].begin(), outputs[0].end(), '\n'), 19);
  EXPECT_EQ(outputs[0], outputs[1]);

  const auto missing = run(program + " --bag " + (dir / "nope.bag").string() + " --config " + config.string() + " --output " + (dir / "x").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("cannot read bag"), std::string::npos) << missing.output;

  const auto bad_set = run(program + " --bag " + path + " --config " + config.string() + " --set config_nope.x=1");
  EXPECT_EQ(bad_set.exit_code, 2) << bad_set.output;
  EXPECT_NE(bad_set.output.find("no config file 'config_nope'"), std::string::npos) << bad_set.output;

  // #12: an unwritable --output is found before the bag is read.
  const auto blocked = dir / "a_file";
  std::ofstream(blocked) << "not a directory";
  const auto unwritable = run(program + " --bag " + path + " --config " + config.string() + " --output " + (blocked / "out").string());
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.output;
  EXPECT_NE(unwritable.output.find("--output: cannot create the output directory"), std::string::npos) << unwritable.output;
  EXPECT_NE(unwritable.output.find("nothing was read"), std::string::npos) << unwritable.output;
  EXPECT_EQ(unwritable.output.find("progress"), std::string::npos) << unwritable.output;

  // #12: unusable input is exit 2 with the cause and the setting, not exit 0 and a wrong trajectory.
  const auto out = dir / "input_error";
  const auto clocks = run(program + " --bag " + path + " --config " + config.string() + " --output " + out.string() +
                          " --set config_ros.time_offset_lidar_to_imu=5");
  EXPECT_EQ(clocks.exit_code, 2) << clocks.output;
  EXPECT_NE(clocks.output.find("lidar and IMU stamps are on different clocks"), std::string::npos) << clocks.output;
  const auto report = nlohmann::json::parse(read_file(out / "report.json"));
  EXPECT_EQ(report["input"]["ok"], false);
  EXPECT_NE(report["input"]["error"].get<std::string>().find("config_ros.time_offset_lidar_to_imu"), std::string::npos);
  const auto units = run(program + " --bag " + path + " --config " + config.string() + " --output " + (dir / "units").string() +
                         " --set config_ros.acc_scale=0.1");
  EXPECT_EQ(units.exit_code, 2) << units.output;
  EXPECT_NE(units.output.find("mean |acc| of the first 200 IMU samples is 0.981"), std::string::npos) << units.output;
}

}  // namespace
}  // namespace asuka_ros

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/mcap.hpp>

namespace asuka_ros {
namespace {

/// #15: a ROS 2 bag cut off by a crash: asuka_rosbag plays everything before the cut, writes its
/// outputs, says where reading stopped, and exits 2 (report.json input.ok false).
TEST_F(BagPlayerTest, AsukaRosbagPlaysATruncatedRos2BagUpToTheDamageAndExits2) {
  namespace b = asuka::bag;
  const auto full = (dir / "full.mcap").string();
  {
    b::McapWriterOptions options;
    options.chunk_size = 8192;
    b::McapWriter w(full, options);
    w.add_topic("/imu", b::type_names::kImu, b::definition_of(b::type_names::kImu));
    w.add_topic("/points", b::type_names::kPointCloud2, b::definition_of(b::type_names::kPointCloud2));
    for (int i = 0; i < 400; ++i) {  // 2 s of 200 Hz IMU at rest, 10 Hz clouds with relative times
      const std::uint64_t t = 1000ULL * 1000000000ULL + static_cast<std::uint64_t>(i) * 5000000ULL;
      asuka::msg::Imu imu;
      imu.header.stamp = {static_cast<std::int64_t>(t / 1000000000ULL), static_cast<std::uint32_t>(t % 1000000000ULL)};
      imu.linear_acceleration = {0.0, 0.0, 9.81};
      w.write("/imu", t, b::write_imu(imu));
      if (i % 20 == 10) {
        asuka::msg::PointCloud2 cloud;
        const std::uint64_t start = t - 100000000ULL;
        cloud.header.stamp = {static_cast<std::int64_t>(start / 1000000000ULL), static_cast<std::uint32_t>(start % 1000000000ULL)};
        cloud.height = 1;
        cloud.width = 50;
        cloud.fields = {{"x", 0, asuka::msg::PointField::FLOAT32, 1}, {"y", 4, asuka::msg::PointField::FLOAT32, 1},
                        {"z", 8, asuka::msg::PointField::FLOAT32, 1}, {"time", 12, asuka::msg::PointField::FLOAT32, 1}};
        cloud.point_step = 16;
        cloud.row_step = 16 * 50;
        std::vector<std::uint8_t> data(16 * 50);
        for (int j = 0; j < 50; ++j) {
          const float p[4] = {5.0f + 0.1f * static_cast<float>(j), 1.0f, 0.5f, 0.002f * static_cast<float>(j)};
          std::memcpy(data.data() + 16 * j, p, 16);
        }
        cloud.data = asuka::msg::Span<std::uint8_t>(data);
        w.write("/points", t + 1000000ULL, b::write_point_cloud2(cloud));
      }
    }
  }
  std::ifstream in(full, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto cut = (dir / "cut.mcap").string();
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 6 / 10));

  const auto config = dir / "config";
  fs::create_directories(config);
  std::ofstream(config / "config.json") << R"({"config_ros": "config_ros.json", "config_odometry": "config_odometry_fake.json", "extensions": []})";
  std::ofstream(config / "config_ros.json") << R"({"imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne"})";
  std::ofstream(config / "config_odometry_fake.json") << R"({"so_name": ")" << asuka::test::fake_frontend_path()
                                                      << R"(", "fake": {"process_steps_per_event": 1}})";
  const std::string program = std::string(ASUKA_BINARY_DIR) + "/bin/asuka_rosbag";
  const auto out = dir / "out";
  const auto r = run(program + " --bag " + cut + " --config " + config.string() + " --output " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the input is damaged, reading stopped early"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("truncated"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(out / "trajectory.tum")) << r.output;
  const auto report = nlohmann::json::parse(read_file(out / "report.json"));
  EXPECT_FALSE(report["input"]["ok"].get<bool>());
  EXPECT_NE(report["input"]["error"].get<std::string>().find("messages before it"), std::string::npos);
  EXPECT_GT(report["frames"]["processed"].get<int>(), 5);
  EXPECT_LT(report["frames"]["processed"].get<int>(), 20);

  const auto whole = run(program + " --bag " + full + " --config " + config.string() + " --output " + (dir / "out_full").string());
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
}

}  // namespace
}  // namespace asuka_ros
