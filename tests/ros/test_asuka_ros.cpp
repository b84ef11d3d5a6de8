// AsukaROS against the fake frontend: R-ROS-1..7, acc_scale, sensor-time ordering.

#include <spdlog/sinks/ringbuffer_sink.h>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>
#include <asuka_ros/asuka_ros.hpp>

#include "core/test_support.hpp"
#include "ros_test_support.hpp"

namespace asuka_ros {
namespace {

using asuka::test::FakeProbe;

class AsukaROSTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto& global = asuka::GlobalConfig::instance();
    global.set_root(asuka::Config::parse(R"({"extensions": []})", "config.json"), ".");
    global.set_module("config_odometry", asuka::Config::parse(R"({"so_name": ")" + asuka::test::fake_frontend_path() + R"("})", "config_odometry_fake.json"));
    global.set_module("config_ros", asuka::Config::parse(R"({"imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne", "acc_scale": 1.0})",
                                                        "config_ros.json"));
    sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
    asuka::module_logger("ros")->sinks().push_back(sink);
  }
  void TearDown() override {
    auto& sinks = asuka::module_logger("ros")->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
    asuka::GlobalConfig::instance().clear();
  }

  std::unique_ptr<AsukaROS> make(const std::function<void(AsukaROSParams&)>& edit = {}) {
    auto params = AsukaROSParams::from_config();
    if (edit) edit(params);
    auto host = std::make_unique<AsukaROS>(params);
    probe = asuka::test::fake_probe();
    return host;
  }

  std::vector<std::string> logged() const { return sink->last_formatted(); }
  bool logged_contains(const std::string& text) const {
    for (const auto& line : logged()) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  std::vector<double> fed() const {
    std::lock_guard<std::mutex> lock(probe->mutex);
    return probe->fed_stamps;
  }

  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
  FakeProbe* probe = nullptr;
};

TEST_F(AsukaROSTest, R_ROS_1_ParamsFromConfigAndFrontendLoadedBySoName) {
  auto host = make();
  EXPECT_EQ(host->params().imu_topic, "/imu");
  EXPECT_EQ(host->params().lidar_type, asuka::LidarType::VELODYNE);
  EXPECT_DOUBLE_EQ(host->acc_scale(), 1.0);
  EXPECT_TRUE(host->executor().running());

  asuka::GlobalConfig::instance().module("config_odometry").set("so_name", "\"no_such_frontend\"");
  try {
    make();
    FAIL() << "expected a load error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("libasuka_odometry_no_such_frontend.so"), std::string::npos) << e.what();
  }
}

TEST_F(AsukaROSTest, R_ROS_1_BadConfigValuesAreRejected) {
  asuka::GlobalConfig::instance().module("config_ros").set("lidar_type", "\"velodyn\"");
  try {
    AsukaROSParams::from_config();
    FAIL();
  } catch (const asuka::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("one of: livox, velodyne"), std::string::npos) << e.what();
  }
  asuka::GlobalConfig::instance().module("config_ros").set("lidar_type", "\"velodyne\"");
  asuka::GlobalConfig::instance().module("config_ros").set("acc_scale", "\"fast\"");
  EXPECT_THROW(AsukaROSParams::from_config(), asuka::ConfigError);
}

TEST_F(AsukaROSTest, R_ROS_2_LoopBackWarnsOnRawStampAndNeverDrops) {
  auto host = make([](AsukaROSParams& p) { p.imu_time_offset = 100.0; });
  for (double t : {1.0, 2.0, 1.5, 1.5, 1.6}) host->insert_imu(test::make_imu(t));
  host->wait(true);
  // Warned once, with the raw stamps (before the +100 s offset); equal stamps are not a loop back.
  EXPECT_TRUE(logged_contains("imu loop back detected: 2.000000000 -> 1.500000000"));
  EXPECT_EQ(host->stats().imu_loop_backs, 1u);
  EXPECT_EQ(fed(), std::vector<double>({101.0, 102.0, 101.5, 101.5, 101.6}));  // nothing dropped

  host->handle_loop_back(0.0, asuka::FrameId::WORLD);  // no-op
  EXPECT_EQ(host->stats().imu_loop_backs + host->stats().lidar_loop_backs, 1u);
}

TEST_F(AsukaROSTest, R_ROS_2_LidarTypesShareOneBaseline) {
  auto host = make();
  host->insert_frame(test::make_livox(5000000000ULL, {0, 1000}));  // Livox CustomMsg at 5 s
  host->insert_frame(test::make_cloud(4.0, {{"x", test::F32}, {"y", test::F32}, {"z", test::F32}, {"time", test::F32}}, {{1, 0, 0, 0.0}}));
  host->wait(true);
  EXPECT_EQ(host->stats().lidar_loop_backs, 1u);
  EXPECT_TRUE(logged_contains("lidar loop back detected: 5.000000000 -> 4.000000000"));
  EXPECT_EQ(host->stats().imu_loop_backs, 0u);  // separate baselines
  EXPECT_EQ(fed().size(), 2u);
}

TEST_F(AsukaROSTest, R_ROS_3_OffsetThenAccScale) {
  std::vector<asuka::ImuData> seen;
  auto slot = asuka::connect(asuka::OdometryCallbacks::on_insert_imu, [&](const asuka::ImuData& imu) { seen.push_back(imu); });
  auto host = make([](AsukaROSParams& p) {
    p.imu_time_offset = 0.25;
    p.acc_scale = 2.0;
  });
  host->insert_imu(test::make_imu(1.0, 3.0));
  host->wait(true);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_DOUBLE_EQ(seen[0].stamp, 1.25);
  EXPECT_DOUBLE_EQ(seen[0].acc.z(), 6.0);
  EXPECT_DOUBLE_EQ(seen[0].gyro.z(), 0.1);  // the gyro is not scaled
}

TEST_F(AsukaROSTest, R_ROS_3_AccScaleAutoDetectsG) {
  for (const auto& [reading, expected] : {std::pair<double, double>{1.0, 9.80665}, {9.81, 1.0}}) {
    std::vector<asuka::ImuData> seen;
    auto slot = asuka::connect(asuka::OdometryCallbacks::on_insert_imu, [&](const asuka::ImuData& imu) { seen.push_back(imu); });
    auto host = make([](AsukaROSParams& p) { p.acc_scale = 0.0; });
    for (int i = 0; i < 12; ++i) host->insert_imu(test::make_imu(i * 0.005, reading));
    host->wait(true);
    EXPECT_DOUBLE_EQ(host->acc_scale(), expected);
    ASSERT_EQ(seen.size(), 12u);  // the samples held during detection are scaled too, in order
    for (const auto& s : seen) EXPECT_NEAR(s.acc.z(), reading * expected, 1e-9);
    EXPECT_DOUBLE_EQ(seen.front().stamp, 0.0);
    EXPECT_TRUE(logged_contains("acc_scale auto"));
  }
}

TEST_F(AsukaROSTest, R_ROS_3_AccScaleAutoWithFewSamplesDecidesAtFlush) {
  auto host = make([](AsukaROSParams& p) { p.acc_scale = 0.0; });
  host->insert_imu(test::make_imu(0.0, 1.0));
  host->insert_imu(test::make_imu(0.005, 1.0));
  EXPECT_DOUBLE_EQ(host->acc_scale(), 0.0);
  host->wait(true);
  EXPECT_DOUBLE_EQ(host->acc_scale(), 9.80665);
  EXPECT_EQ(fed().size(), 2u);
}

TEST_F(AsukaROSTest, R_ROS_4_OffsetThenPreprocessThenExecutor) {
  std::vector<asuka::Frame::ConstPtr> seen;
  auto slot = asuka::connect(asuka::OdometryCallbacks::on_insert_frame, [&](const asuka::Frame::ConstPtr& f) { seen.push_back(f); });
  auto host = make([](AsukaROSParams& p) { p.time_offset_lidar_to_imu = -0.5; });
  auto msg = test::make_cloud(10.0, {{"x", test::F32}, {"y", test::F32}, {"z", test::F32}, {"tag", test::U8}, {"time", test::F32}},
                              {{1, 0, 0, 0, 0.0}, {2, 0, 0, 0xFF, 0.05}, {3, 0, 0, 0, 0.1}});
  host->insert_frame(msg);
  host->wait(true);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_DOUBLE_EQ(seen[0]->stamp, 9.5);
  EXPECT_EQ(seen[0]->points.size(), 2u);  // the frontend's preprocessor dropped the 0xFF point
  EXPECT_EQ(host->stats().points_in, 3u);
  EXPECT_EQ(host->stats().points_kept, 2u);
}

TEST_F(AsukaROSTest, BadMessagesAreCountedByKindAndSkipped) {
  auto host = make();
  host->insert_frame(test::make_cloud(1.0, {{"x", test::F32}, {"y", test::F32}}, {{1, 2}}));
  host->insert_frame(test::make_cloud(1.1, {{"x", test::F32}, {"y", test::F32}, {"z", test::F32}}, {}));
  auto imu = test::make_imu(1.0);
  imu.linear_acceleration.x = std::numeric_limits<double>::quiet_NaN();
  host->insert_imu(imu);
  host->wait(true);
  const auto stats = host->stats();
  EXPECT_EQ(stats.warnings.at("missing_field"), 1u);
  EXPECT_EQ(stats.warnings.at("empty_cloud"), 1u);
  EXPECT_EQ(stats.warnings.at("non_finite_imu"), 1u);
  EXPECT_EQ(stats.frames_inserted, 0u);
  EXPECT_TRUE(fed().empty());
  EXPECT_TRUE(logged_contains("required field 'z' is missing"));
}

TEST_F(AsukaROSTest, R_ROS_6_WaitDoesNotHangOnAFrontendThatKeepsWorkload) {
  auto host = make();
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->workload_hold = 2;  // claims work it can never do: breaks the workload() contract
  }
  host->insert_imu(test::make_imu(1.0));
  const auto start = std::chrono::steady_clock::now();
  host->wait(true);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, 30.0);  // returns (after about 2 s) instead of hanging
  EXPECT_TRUE(logged_contains("still reports workload 2 with no input left"));
}

TEST_F(AsukaROSTest, R_ROS_5_SaveStopsFirstThenSavesMap) {
  auto host = make();
  host->insert_imu(test::make_imu(1.0));
  EXPECT_TRUE(host->save("/tmp/some_map.pcd"));
  EXPECT_FALSE(host->executor().running());
  std::lock_guard<std::mutex> lock(probe->mutex);
  ASSERT_FALSE(probe->calls.empty());
  EXPECT_EQ(probe->calls.back(), "save_map /tmp/some_map.pcd");
}

TEST_F(AsukaROSTest, ReorderWindowHandsOverInSensorTimeOrder) {
  auto host = make([](AsukaROSParams& p) { p.reorder_window = 0.5; });
  // A frame stamped at its start (1.0) arrives after the IMU up to its end, as drivers publish.
  for (int i = 0; i <= 20; ++i) host->insert_imu(test::make_imu(1.0 + i * 0.005));
  host->insert_frame(test::make_cloud(1.0, {{"x", test::F32}, {"y", test::F32}, {"z", test::F32}, {"time", test::F32}}, {{1, 0, 0, 0.0}, {2, 0, 0, 0.1}}));
  host->insert_imu(test::make_imu(0.9));  // late: older than what was handed over? not yet
  for (int i = 21; i <= 200; ++i) host->insert_imu(test::make_imu(1.0 + i * 0.005));
  host->wait(true);
  const auto stamps = fed();
  ASSERT_EQ(stamps.size(), 203u);
  EXPECT_TRUE(std::is_sorted(stamps.begin(), stamps.end()));
  EXPECT_EQ(host->stats().reordered_late, 0u);
  std::vector<std::string> inserts;
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    for (const auto& c : probe->calls) {
      if (c.rfind("insert", 0) == 0) inserts.push_back(c);
    }
  }
  ASSERT_GE(inserts.size(), 3u);
  EXPECT_EQ(inserts[0], "insert imu 0.900000");
  EXPECT_EQ(inserts[1], "insert imu 1.000000");
  EXPECT_EQ(inserts[2], "insert frame 1.000000");  // equal stamps keep arrival order
}

TEST_F(AsukaROSTest, ReorderWindowLateEventIsHandedOverAfterADrain) {
  auto host = make([](AsukaROSParams& p) { p.reorder_window = 0.1; });
  for (int i = 0; i < 100; ++i) host->insert_imu(test::make_imu(i * 0.01));
  host->insert_imu(test::make_imu(0.2));  // a loop back / out-of-order sample
  host->wait(true);
  EXPECT_EQ(host->stats().reordered_late, 1u);
  const auto stamps = fed();
  ASSERT_EQ(stamps.size(), 101u);
  // Everything older than the window went first, then everything held, then the late sample.
  EXPECT_DOUBLE_EQ(stamps[99], 0.99);
  EXPECT_DOUBLE_EQ(stamps[100], 0.2);
}

}  // namespace
}  // namespace asuka_ros
