// AsukaROS against the fake frontend: what the ROS adapter adds to asuka::Host (R-ROS-1: config_ros,
// decoding of each message type on its way in). The host's own rules (R-ROS-2..7, acc_scale,
// reorder window) are tested without ROS in tests/host/test_host.cpp.


#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>
#include <asuka_ros/asuka_ros.hpp>

#include "core/test_support.hpp"
#include "support/log_capture.hpp"
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
  }
  void TearDown() override {
    asuka::GlobalConfig::instance().clear();
  }

  std::unique_ptr<AsukaROS> make(const std::function<void(AsukaROSParams&)>& edit = {}) {
    auto params = AsukaROSParams::from_config();
    if (edit) edit(params);
    auto host = std::make_unique<AsukaROS>(params);
    probe = asuka::test::fake_probe();
    return host;
  }

  bool logged_contains(const std::string& text) const { return log.contains(text); }
  std::vector<double> fed() const {
    std::lock_guard<std::mutex> lock(probe->mutex);
    return probe->fed_stamps;
  }

  asuka::test::LogCapture log{"ros"};
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

TEST_F(AsukaROSTest, R_ROS_4_OffsetThenPreprocessThenExecutor) {
  std::vector<asuka::LidarFrame::ConstPtr> seen;
  auto slot = asuka::connect(asuka::OdometryCallbacks::on_insert_frame, [&](const asuka::LidarFrame::ConstPtr& f) { seen.push_back(f); });
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
  // A frame the preprocessor empties is warned with the topic it came from.
  host->insert_frame(test::make_cloud(11.0, {{"x", test::F32}, {"y", test::F32}, {"z", test::F32}, {"tag", test::U8}, {"time", test::F32}},
                                      {{1, 0, 0, 0xFF, 0.0}}));
  host->wait(true);
  EXPECT_TRUE(logged_contains("[empty_after_preprocess] '/points': frame at")) << log.text();
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

}  // namespace
}  // namespace asuka_ros
