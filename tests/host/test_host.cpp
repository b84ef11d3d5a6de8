// asuka::Host against the fake frontend, with no ROS (so these run under ASan/UBSan and TSan too):
// the input rules R-ROS-2..7 on decoded data, acc_scale, sensor-time ordering, the event-driven wait.
// tests/ros/test_asuka_ros.cpp checks what the ROS adapter adds (decoding, topics, ROS config).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/host/host.hpp>
#include <asuka/util/logging.hpp>

#include "core/test_support.hpp"
#include "support/log_capture.hpp"

namespace asuka {
namespace {

using test::FakeProbe;

ImuData imu_at(double stamp, double az = 9.81) {
  ImuData imu;
  imu.stamp = stamp;
  imu.acc = Eigen::Vector3d(0, 0, az);
  imu.gyro = Eigen::Vector3d(0, 0, 0.1);
  return imu;
}

/// A frame at `stamp` with one point per offset [ms]; `tags` (if given) per point.
LidarFrame::Ptr frame_at(double stamp, const std::vector<float>& offsets_ms, const std::vector<std::uint8_t>& tags = {}) {
  auto frame = std::make_shared<LidarFrame>();
  frame->stamp = stamp;
  for (std::size_t i = 0; i < offsets_ms.size(); ++i) {
    Point p;
    p.x = 1.0f + static_cast<float>(i);
    p.offset_ms = offsets_ms[i];
    p.tag = i < tags.size() ? tags[i] : 0;
    frame->points.push_back(p);
  }
  return frame;
}

class HostTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto& global = GlobalConfig::instance();
    global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
    global.set_module("config_odometry", Config::parse(R"({"so_name": ")" + test::fake_frontend_path() + R"("})", "config_odometry_fake.json"));
    global.set_module("config_ros", Config::parse(R"({"acc_scale": 1.0})", "config_ros.json"));
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
  }

  std::unique_ptr<Host> make(const std::function<void(HostParams&)>& edit = {}) {
    auto params = HostParams::from_config(GlobalConfig::instance().module("config_ros"));
    if (edit) edit(params);
    auto host = std::make_unique<Host>(params);
    probe = test::fake_probe();
    return host;
  }

  bool logged_contains(const std::string& text) const { return log.contains(text); }
  std::vector<double> fed() const {
    std::lock_guard<std::mutex> lock(probe->mutex);
    return probe->fed_stamps;
  }

  test::LogCapture log{"ros"};
  FakeProbe* probe = nullptr;
};

TEST_F(HostTest, R_PLUG_5_FrontendChosenBySoNameAlone) {
  auto params = HostParams::from_config(GlobalConfig::instance().module("config_ros"));
  EXPECT_EQ(params.so_name, test::fake_frontend_path());
  Host host(params);
  EXPECT_TRUE(host.executor().ok());
  GlobalConfig::instance().module("config_odometry").set("so_name", "\"libasuka_odometry_does_not_exist.so\"");
  auto missing = HostParams::from_config(GlobalConfig::instance().module("config_ros"));
  EXPECT_THROW(Host{missing}, ConfigError);  // the configuration's error: the applications exit 2
  // A bare unknown name: the error lists the installed frontends (#12), here the test plugins.
  missing.so_name = "nope";
  ::setenv("ASUKA_PLUGIN_PATH", ASUKA_TEST_PLUGIN_DIR, 1);
  try {
    Host host_nope(missing);
    ADD_FAILURE() << "an unknown frontend loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("installed odometry plugins: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fake"), std::string::npos) << e.what();
  }
  ::unsetenv("ASUKA_PLUGIN_PATH");
}

TEST_F(HostTest, R_ROS_2_LoopBackWarnsOnRawStampAndNeverDrops) {
  auto host = make([](HostParams& p) { p.imu_time_offset = 100.0; });
  for (double t : {1.0, 2.0, 1.5, 1.5, 1.6}) host->insert_imu(imu_at(t));
  host->wait(true);
  // Warned once, with the raw stamps (before the +100 s offset); equal stamps are not a loop back.
  EXPECT_TRUE(logged_contains("imu loop back detected: 2.000000000 -> 1.500000000"));
  EXPECT_EQ(host->stats().imu_loop_backs, 1u);
  EXPECT_EQ(fed(), std::vector<double>({101.0, 102.0, 101.5, 101.5, 101.6}));  // nothing dropped

  host->handle_loop_back(0.0, StreamId::NONE);  // no-op
  EXPECT_EQ(host->stats().imu_loop_backs + host->stats().lidar_loop_backs, 1u);
}

TEST_F(HostTest, R_ROS_2_LidarAndImuHaveSeparateBaselines) {
  auto host = make();
  host->insert_frame(frame_at(5.0, {0.0f, 1.0f}));
  host->insert_imu(imu_at(4.5));
  host->insert_frame(frame_at(4.0, {0.0f}));
  host->wait(true);
  EXPECT_EQ(host->stats().lidar_loop_backs, 1u);
  EXPECT_TRUE(logged_contains("lidar loop back detected: 5.000000000 -> 4.000000000"));
  EXPECT_EQ(host->stats().imu_loop_backs, 0u);
  EXPECT_EQ(fed().size(), 3u);
}

TEST_F(HostTest, R_ROS_3_OffsetThenAccScale) {
  std::vector<ImuData> seen;
  auto slot = connect(OdometryCallbacks::on_insert_imu, [&](const ImuData& imu) { seen.push_back(imu); });
  auto host = make([](HostParams& p) {
    p.imu_time_offset = 0.25;
    p.acc_scale = 2.0;
  });
  host->insert_imu(imu_at(1.0, 3.0));
  host->wait(true);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_DOUBLE_EQ(seen[0].stamp, 1.25);
  EXPECT_DOUBLE_EQ(seen[0].acc.z(), 6.0);
  EXPECT_DOUBLE_EQ(seen[0].gyro.z(), 0.1);  // the gyro is not scaled by acc_scale (gyro_scale 1)
}

TEST_F(HostTest, R_ROS_3_AccScaleAutoDetectsG) {
  for (const auto& [reading, expected] : {std::pair<double, double>{1.0, 9.80665}, {9.81, 1.0}}) {
    std::vector<ImuData> seen;
    auto slot = connect(OdometryCallbacks::on_insert_imu, [&](const ImuData& imu) { seen.push_back(imu); });
    auto host = make([](HostParams& p) { p.acc_scale = 0.0; });
    for (int i = 0; i < 12; ++i) host->insert_imu(imu_at(i * 0.005, reading));
    host->wait(true);
    EXPECT_DOUBLE_EQ(host->acc_scale(), expected);
    ASSERT_EQ(seen.size(), 12u);  // the samples held during detection are scaled too, in order
    for (const auto& s : seen) EXPECT_NEAR(s.acc.z(), reading * expected, 1e-9);
    EXPECT_DOUBLE_EQ(seen.front().stamp, 0.0);
    EXPECT_TRUE(logged_contains("acc_scale auto"));
  }
}

TEST_F(HostTest, R_ROS_3_AccScaleAutoWithFewSamplesDecidesAtFlush) {
  auto host = make([](HostParams& p) { p.acc_scale = 0.0; });
  host->insert_imu(imu_at(0.0, 1.0));
  host->insert_imu(imu_at(0.005, 1.0));
  EXPECT_DOUBLE_EQ(host->acc_scale(), 0.0);
  host->wait(true);
  EXPECT_DOUBLE_EQ(host->acc_scale(), 9.80665);
  EXPECT_EQ(fed().size(), 2u);
}

TEST_F(HostTest, R_ROS_4_OffsetThenPreprocessThenExecutor) {
  std::vector<LidarFrame::ConstPtr> seen;
  auto slot = connect(OdometryCallbacks::on_insert_frame, [&](const LidarFrame::ConstPtr& f) { seen.push_back(f); });
  auto host = make([](HostParams& p) { p.time_offset_lidar_to_imu = -0.5; });
  host->insert_frame(frame_at(10.0, {0.0f, 50.0f, 100.0f}, {0, 0xFF, 0}));
  host->wait(true);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_DOUBLE_EQ(seen[0]->stamp, 9.5);
  EXPECT_EQ(seen[0]->points.size(), 2u);  // the frontend's preprocessor dropped the 0xFF point
  EXPECT_EQ(host->stats().points_kept, 2u);
}

TEST_F(HostTest, FramesEmptyAfterPreprocessingAreCountedAndSkipped) {
  auto host = make();
  host->insert_frame(frame_at(1.0, {0.0f}, {0xFF}));
  host->insert_frame(nullptr);  // ignored
  host->wait(true);
  EXPECT_EQ(host->stats().warnings.at("empty_after_preprocess"), 1u);
  EXPECT_TRUE(logged_contains("'lidar': frame at 1.000000: no point left after preprocessing"));  // names the input
  EXPECT_TRUE(fed().empty());
}

TEST_F(HostTest, R_ROS_6_WaitDoesNotHangOnAFrontendThatKeepsWorkload) {
  auto host = make();
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->workload_hold = 2;  // claims work it can never do: breaks the workload() contract
  }
  host->insert_imu(imu_at(1.0));
  host->wait(true);  // returns once the event is consumed, without a timer
  EXPECT_TRUE(logged_contains("still reports workload 2 with no input left"));
  EXPECT_EQ(fed().size(), 1u);
}

TEST_F(HostTest, R_EXEC_7_WaitReturnsAfterTheLastEventIsFed) {
  auto host = make();
  for (int i = 0; i < 300; ++i) host->insert_imu(imu_at(i * 0.005));
  host->wait(true);
  EXPECT_EQ(fed().size(), 300u);  // nothing in flight after wait()
  EXPECT_EQ(host->executor().workload(), 0);
}

TEST_F(HostTest, R_ROS_5_SaveStopsFirstThenSavesMap) {
  auto host = make();
  host->insert_imu(imu_at(1.0));
  EXPECT_TRUE(host->save("/tmp/some_map.pcd"));
  EXPECT_FALSE(host->executor().running());
  std::lock_guard<std::mutex> lock(probe->mutex);
  ASSERT_FALSE(probe->calls.empty());
  EXPECT_EQ(probe->calls.back(), "save_map /tmp/some_map.pcd");
}

TEST_F(HostTest, ReorderWindowHandsOverInSensorTimeOrder) {
  auto host = make([](HostParams& p) { p.reorder_window = 0.5; });
  // A frame stamped at its start (1.0) arrives after the IMU up to its end, as drivers publish.
  for (int i = 0; i <= 20; ++i) host->insert_imu(imu_at(1.0 + i * 0.005));
  host->insert_frame(frame_at(1.0, {0.0f, 100.0f}));
  host->insert_imu(imu_at(0.9));  // older, but within the window: placed in order, not late
  for (int i = 21; i <= 200; ++i) host->insert_imu(imu_at(1.0 + i * 0.005));
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

TEST_F(HostTest, ReorderWindowLateEventIsHandedOverAfterADrain) {
  auto host = make([](HostParams& p) { p.reorder_window = 0.1; });
  for (int i = 0; i < 100; ++i) host->insert_imu(imu_at(i * 0.01));
  host->insert_imu(imu_at(0.2));  // a loop back / out-of-order sample
  host->wait(true);
  EXPECT_EQ(host->stats().reordered_late, 1u);
  const auto stamps = fed();
  ASSERT_EQ(stamps.size(), 101u);
  // Everything older than the window went first, then everything held, then the late sample.
  EXPECT_DOUBLE_EQ(stamps[99], 0.99);
  EXPECT_DOUBLE_EQ(stamps[100], 0.2);
}

TEST_F(HostTest, R_ROS_7_BackPressureKeepsTheQueuesFromOverflowing) {
  auto host = make([](HostParams& p) {
    p.reorder_window = 0.05;
    p.executor.imu_queue_capacity = 60;
    p.executor.frame_queue_capacity = 45;
  });
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->sleep_us_per_event = 200;  // a slow frontend
  }
  for (int i = 0; i < 2000; ++i) host->insert_imu(imu_at(i * 0.005));
  host->wait(true);
  const auto stats = host->executor().stats();
  EXPECT_EQ(stats.imu_overflow, 0u);
  EXPECT_EQ(fed().size(), 2000u);
}

TEST_F(HostTest, R_ROS_7_BackPressureFitsQueuesSmallerThanItsThreshold) {
  // #12: an imu_queue_capacity below the threshold of 40 used to overflow before back-pressure began.
  for (const std::size_t capacity : {std::size_t{30}, std::size_t{5}, std::size_t{1}}) {
    auto host = make([&](HostParams& p) {
      p.reorder_window = 0.05;
      p.executor.imu_queue_capacity = capacity;
    });
    {
      std::lock_guard<std::mutex> lock(probe->mutex);
      probe->sleep_us_per_event = 100;
    }
    for (int i = 0; i < 500; ++i) host->insert_imu(imu_at(i * 0.005));
    host->wait(true);
    EXPECT_EQ(host->executor().stats().imu_overflow, 0u) << "capacity " << capacity;
    EXPECT_EQ(fed().size(), 500u) << "capacity " << capacity;
  }
}

// ---- input checks (#12, asuka/host/input_checks.hpp) ---------------------------------------------

TEST_F(HostTest, LidarAndImuOnDifferentClocksAreAnInputErrorNamingBothRanges) {
  auto host = make();
  for (int i = 0; i < 3; ++i) host->insert_frame(frame_at(100.0 + 0.1 * i, {0.0f, 50.0f}));  // from boot time
  for (int i = 0; i < 40; ++i) host->insert_imu(imu_at(1.7e9 + 0.005 * i));                   // epoch
  host->wait(true);
  const std::string error = host->input_error();
  EXPECT_NE(error.find("different clocks"), std::string::npos) << error;
  EXPECT_NE(error.find("[100.000000, 100.200000]"), std::string::npos) << error;
  EXPECT_NE(error.find("[1700000000.000000, 1700000000.095000]"), std::string::npos) << error;
  EXPECT_NE(error.find("config_ros.time_offset_lidar_to_imu"), std::string::npos) << error;
  EXPECT_EQ(host->stats().warnings.at("clocks"), 1u);
}

TEST_F(HostTest, AnImuStartingSecondsAfterTheLidarIsNotAClockError) {
  auto host = make();
  for (int i = 0; i < 50; ++i) host->insert_frame(frame_at(0.1 * i, {0.0f, 50.0f}));
  for (int i = 0; i < 400; ++i) host->insert_imu(imu_at(5.0 + 0.005 * i));
  host->wait(true);
  EXPECT_EQ(host->input_error(), "") << host->input_error();
}

TEST_F(HostTest, ALoneStampFarAheadIsDroppedAndNeverBecomesTheBaseline) {
  // #12 item 5: one IMU sample and one frame stamped +1000 s.
  auto host = make();
  for (int i = 0; i < 100; ++i) {
    host->insert_imu(imu_at(i == 40 ? 1000.2 : 0.005 * i));
    if (i % 20 == 0) host->insert_frame(frame_at(i == 60 ? 1000.3 : 0.005 * i, {0.0f, 50.0f}));
  }
  host->wait(true);
  const auto stamps = fed();
  EXPECT_EQ(stamps.size(), 99u + 4u);  // everything but the two outliers
  EXPECT_EQ(std::count_if(stamps.begin(), stamps.end(), [](double t) { return t > 1.0; }), 0);
  EXPECT_EQ(host->stats().warnings.at("time_outlier"), 2u);
  EXPECT_EQ(host->stats().imu_loop_backs + host->stats().lidar_loop_backs, 0u);  // the baseline never moved
  EXPECT_TRUE(logged_contains("sample stamped 1000.200000 lies 1000.005 s after the one before (0.195000), and the next (0.205000)"))
      << log.text();
}

TEST_F(HostTest, ARealGapIsNotAnOutlier) {
  auto host = make();
  for (int i = 0; i < 400; ++i) {
    const double t = 0.005 * i + (i >= 200 ? 2.0 : 0.0);  // 2 s without IMU (and lidar) data
    host->insert_imu(imu_at(t));
    if (i % 20 == 0) host->insert_frame(frame_at(t, {0.0f, 50.0f}));
  }
  host->insert_imu(imu_at(10.0));  // and a jump at the very end: kept (nothing tells otherwise)
  host->wait(true);
  EXPECT_EQ(fed().size(), 401u + 20u);
  EXPECT_EQ(host->stats().warnings.count("time_outlier"), 0u);
}

TEST_F(HostTest, ImuUnitsAreCheckedAfterAccScaleAndNameTheSetting) {
  struct Case {
    double az, scale;
    std::string expected;  // empty: no error
  };
  for (const Case& c : {Case{1.0, 1.0, "reports in g: set config_ros.acc_scale to 9.80665"}, Case{0.0, 1.0, "reads (almost) zero"},
                        Case{1000.0, 1.0, "milli-g? then set config_ros.acc_scale to 0.00980665"}, Case{1.0, 9.80665, ""}, Case{9.81, 1.0, ""}}) {
    auto host = make([&](HostParams& p) { p.acc_scale = c.scale; });
    for (int i = 0; i < 300; ++i) host->insert_imu(imu_at(0.005 * i, c.az));
    host->wait(true);
    const std::string error = host->input_error();
    if (c.expected.empty()) {
      EXPECT_EQ(error, "") << "az " << c.az;
    } else {
      EXPECT_NE(error.find(c.expected), std::string::npos) << "az " << c.az << ": " << error;
    }
    // The unit check does not drop data (the applications stop reading); impossible samples are dropped.
    EXPECT_EQ(fed().size(), c.az > 490.0 ? 0u : 300u);
  }
}

TEST_F(HostTest, ImpossibleImuSamplesAreDroppedAndADegreeGyroIsAnInputError) {
  auto host = make();
  auto spike = imu_at(0.5);
  spike.gyro.x() = 1e10;  // one corrupt sample: dropped, counted, not fatal
  for (int i = 0; i < 100; ++i) host->insert_imu(i == 50 ? spike : imu_at(0.005 * i));
  host->wait(true);
  EXPECT_EQ(fed().size(), 99u);
  EXPECT_EQ(host->stats().warnings.at("imu_implausible"), 1u);
  EXPECT_EQ(host->input_error(), "");

  auto degrees = make();
  for (int i = 0; i < 100; ++i) {
    auto imu = imu_at(0.005 * i);
    imu.gyro.z() = i < 50 ? 0.3 : 90.0;  // a 90 deg/s turn read as rad/s
    degrees->insert_imu(imu);
  }
  degrees->wait(true);
  const std::string error = degrees->input_error();
  EXPECT_NE(error.find("deg/s"), std::string::npos) << error;
  EXPECT_NE(error.find("10 samples"), std::string::npos) << error;
}

TEST_F(HostTest, ADegreeGyroTurningSlowerThanTheImpossibleLimitIsAnInputError) {
  // #12 item 3: a deg/s gyroscope on a sensor turning at 0.3-0.5 rad/s reads 17-29 "rad/s": below
  // the impossible limit, but no person or vehicle keeps that up. 1 % of the first 2000 samples
  // above 10 rad/s is an error naming config_ros.gyro_scale, unless gyro_scale was given.
  auto sway = [](int i) {
    auto imu = imu_at(0.005 * i);
    imu.gyro = Eigen::Vector3d(0.0, 0.0, 0.4 * std::sin(0.01 * i)) * (180.0 / M_PI);  // up to 23 "rad/s"
    return imu;
  };
  auto degrees = make();
  for (int i = 0; i < 2100; ++i) degrees->insert_imu(sway(i));
  degrees->wait(true);
  const std::string error = degrees->input_error();
  EXPECT_NE(error.find("deg/s"), std::string::npos) << error;
  EXPECT_NE(error.find("config_ros.gyro_scale to 0.017453293"), std::string::npos) << error;

  // gyro_scale converts, and a configured scale is trusted: no error, the rates arrive in rad/s.
  for (const double scale : {M_PI / 180.0, 1.0}) {
    double largest = 0.0;
    auto slot = connect(OdometryCallbacks::on_insert_imu, [&](const ImuData& imu) { largest = std::max(largest, imu.gyro.norm()); });
    auto configured = make([scale](HostParams& p) {
      p.gyro_scale = scale;
      p.gyro_scale_configured = true;
    });
    for (int i = 0; i < 2100; ++i) configured->insert_imu(sway(i));
    configured->wait(true);
    EXPECT_EQ(configured->input_error(), "") << scale;
    EXPECT_NEAR(largest, scale * 0.4 * 180.0 / M_PI, 1e-4 * scale * 0.4 * 180.0 / M_PI) << scale;  // the sway's sampled peak
  }

  // A real sensor's rates (the same sway in rad/s) are not one.
  auto radians = make();
  for (int i = 0; i < 2100; ++i) {
    auto imu = sway(i);
    imu.gyro *= M_PI / 180.0;
    radians->insert_imu(imu);
  }
  radians->wait(true);
  EXPECT_EQ(radians->input_error(), "");
}

}  // namespace
}  // namespace asuka

namespace asuka {
namespace {

Image::Ptr host_image_at(double stamp, int width = 4, int height = 2) {
  auto image = std::make_shared<Image>();
  image->stamp = stamp;
  image->width = width;
  image->height = height;
  image->stride = static_cast<std::size_t>(width);
  image->pixels = std::shared_ptr<const std::uint8_t>(new std::uint8_t[static_cast<std::size_t>(width * height)](), std::default_delete<std::uint8_t[]>());
  return image;
}

// #13: images go through the host like the other streams: loop-back on the raw stamp, the camera
// offset, the reorder window (sensor time across the three streams), counters; pixels not copied.
TEST_F(HostTest, ImagesAreAThirdStreamWithOffsetLoopBackAndReorder) {
  auto host = make([](HostParams& p) {
    p.reorder_window = 0.5;
    p.time_offset_camera_to_imu = 0.01;
  });
  const auto first = host_image_at(1.02);
  const auto* pixels = first->pixels.get();
  const Image* seen = nullptr;
  auto slot = connect(OdometryCallbacks::on_insert_image, [&](const Image::ConstPtr& image) {
    if (image->stamp > 1.02) seen = image.get();  // the first image, after its offset
  });
  for (int i = 0; i <= 10; ++i) host->insert_imu(imu_at(1.0 + i * 0.01));
  host->insert_image(first);                  // 1.03 after the offset
  host->insert_image(host_image_at(1.0));     // raw 1.00 < 1.02: a loop back (counted), still fed
  host->insert_image(nullptr);                // ignored
  auto broken = host_image_at(1.05);
  broken->stride = 1;                         // smaller than a row
  host->insert_image(broken);
  host->wait(true);

  const auto stats = host->stats();
  EXPECT_EQ(stats.images_inserted, 2u);
  EXPECT_EQ(stats.image_loop_backs, 1u);
  EXPECT_TRUE(logged_contains("camera loop back detected: 1.020000000 -> 1.000000000"));
  EXPECT_EQ(stats.warnings.at("bad_image"), 1u);
  const auto stamps = fed();
  EXPECT_TRUE(std::is_sorted(stamps.begin(), stamps.end()));
  EXPECT_EQ(stamps.size(), 13u);
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->pixels.get(), pixels);  // the same buffer the producer made
  std::vector<std::string> images;
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    for (const auto& c : probe->calls) {
      if (c.rfind("insert image", 0) == 0) images.push_back(c);
    }
  }
  EXPECT_EQ(images, std::vector<std::string>({"insert image 1.010000", "insert image 1.030000"}));
  EXPECT_EQ(host->executor().stats().images_processed, 2u);
}

TEST_F(HostTest, AVisualFrontendWithoutImagesIsWarnedOnce) {
  GlobalConfig::instance().module("config_odometry").set("fake", R"({"uses_images": true})");
  auto host = make();
  for (int i = 0; i < 5; ++i) host->insert_imu(imu_at(1.0 + i * 0.01));
  host->wait(true);
  host->wait(true);
  EXPECT_EQ(host->stats().warnings.at("no_images"), 1u);
  EXPECT_TRUE(logged_contains("uses camera images but none arrived"));
}

TEST_F(HostTest, ALidarFrontendWithoutImagesIsNotWarned) {
  auto host = make();
  for (int i = 0; i < 5; ++i) host->insert_imu(imu_at(1.0 + i * 0.01));
  host->wait(true);
  EXPECT_EQ(host->stats().warnings.count("no_images"), 0u);
}

}  // namespace
}  // namespace asuka
