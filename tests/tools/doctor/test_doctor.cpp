// asuka_doctor on simulated bags: a clean bag has no findings, and each fault the simulator can
// inject is reported by its name; suggested config values match the sensor.

#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka_doctor/doctor.hpp>
#include <asuka_sim/simulator.hpp>

namespace asuka::doctor {
namespace {

namespace fs = std::filesystem;

class DoctorTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_doctor_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  static sim::SimParams base(const std::string& lidar = "vlp16") {
    sim::SimParams p;
    p.lidar = lidar;
    p.duration = 3.0;
    p.trajectory.static_duration = 1.5;
    p.trajectory.ramp_duration = 0.5;
    return p;
  }
  Report run(const sim::SimParams& p, const std::string& name) {
    const auto r = sim::run_simulation(p, (dir / name).string());
    return diagnose({r.bag_path}, {});
  }
  static std::vector<std::string> names(const Report& r) {
    std::vector<std::string> out;
    for (const auto& f : r.findings) out.push_back(f.name);
    return out;
  }
  static bool has(const Report& r, const std::string& name) {
    const auto n = names(r);
    return std::find(n.begin(), n.end(), name) != n.end();
  }
  fs::path dir;
};

TEST_F(DoctorTest, CleanBagsHaveNoFindingsAndGetTheRightSuggestions) {
  struct Case {
    std::string lidar, type, unit, reference, imu_topic, points_topic;
  };
  for (const auto& c : {Case{"vlp16", "velodyne", "s", "relative", "/imu/data", "/velodyne_points"},
                        Case{"avia", "livox", "ns", "absolute", "/livox/imu", "/livox/lidar"},
                        Case{"os1-64", "ouster", "ns", "relative", "/os_cloud_node/imu", "/os_cloud_node/points"},
                        Case{"rs16", "robosense", "s", "absolute", "/imu/data", "/rslidar_points"}}) {
    const auto r = run(base(c.lidar), c.lidar);
    EXPECT_TRUE(r.findings.empty()) << c.lidar << ": " << to_text(r);
    EXPECT_EQ(r.imu_topic, c.imu_topic);
    EXPECT_EQ(r.points_topic, c.points_topic);
    ASSERT_TRUE(r.cloud);
    EXPECT_EQ(r.cloud->lidar_type, c.type);
    EXPECT_EQ(r.cloud->time_unit, c.unit) << c.lidar;
    EXPECT_EQ(r.cloud->time_reference, c.reference) << c.lidar;
    EXPECT_EQ(r.cloud->header_position, "first point") << c.lidar;
    EXPECT_NEAR(r.cloud->sweep_duration, 0.1, 0.005) << c.lidar;
    EXPECT_DOUBLE_EQ(r.cloud->points_in_order, 1.0);
    EXPECT_EQ(r.suggested_config.at("lidar_type"), "\"" + c.type + "\"");
    EXPECT_EQ(r.suggested_config.at("acc_scale"), "1.0");
    ASSERT_TRUE(r.imu && r.imu->at_rest_found);
    EXPECT_EQ(r.imu->unit, "m/s^2");
    for (const auto& t : r.topics) {
      if (t.topic == c.imu_topic) {
        EXPECT_NEAR(t.rate, 200.0, 1.0);
      }
      if (t.topic == c.points_topic) {
        EXPECT_NEAR(t.rate, 10.0, 0.1);
      }
    }
  }
}

/// #15: a ROS 2 bag (MCAP, SQLite3) gets the same report as the ROS 1 bag of the same recording, but
/// for the type names; a fault shows the same way.
TEST_F(DoctorTest, Ros2BagsGetTheSameDiagnosis) {
  for (const std::string lidar : {"avia", "vlp16"}) {
    auto p = base(lidar);
    p.acc_in_g = true;  // one finding to carry over
    const auto ros1 = run(p, lidar + "_ros1");
    for (const std::string format : {"ros2-mcap", "ros2-sqlite"}) {
      p.format = format;
      const auto ros2 = run(p, lidar + "_" + format);
      EXPECT_EQ(names(ros2), names(ros1)) << format << ": " << to_text(ros2);
      EXPECT_TRUE(has(ros2, "acc_in_g"));
      EXPECT_EQ(ros2.imu_topic, ros1.imu_topic);
      EXPECT_EQ(ros2.points_topic, ros1.points_topic);
      EXPECT_EQ(ros2.suggested_config, ros1.suggested_config) << format;
      ASSERT_TRUE(ros1.cloud && ros2.cloud);
      EXPECT_EQ(ros2.cloud->fields, ros1.cloud->fields);
      EXPECT_EQ(ros2.cloud->time_unit, ros1.cloud->time_unit);
      EXPECT_EQ(ros2.cloud->mean_points, ros1.cloud->mean_points);
      ASSERT_EQ(ros2.topics.size(), ros1.topics.size());
      for (std::size_t i = 0; i < ros1.topics.size(); ++i) {
        EXPECT_EQ(ros2.topics[i].messages, ros1.topics[i].messages);
        EXPECT_EQ(ros2.topics[i].rate, ros1.topics[i].rate);
        EXPECT_EQ(ros2.topics[i].median_latency, ros1.topics[i].median_latency);
      }
    }
  }
}

TEST_F(DoctorTest, EverySimulatorFaultIsReportedByName) {
  struct Case {
    std::string name;
    std::function<void(sim::SimParams&)> set;
    std::string finding;
  };
  const std::vector<Case> cases = {
    {"loop", [](sim::SimParams& p) { p.faults.loop = true; }, "loop_back"},
    {"gap", [](sim::SimParams& p) { p.faults.imu_gap_start = 2.0, p.faults.imu_gap_length = 0.3; }, "imu_gap"},
    {"ooo", [](sim::SimParams& p) { p.faults.imu_out_of_order = 2; }, "out_of_order"},
    {"notime", [](sim::SimParams& p) { p.faults.no_point_time = true; }, "missing_point_time"},
    {"unit", [](sim::SimParams& p) { p.faults.point_time_unit = "ms"; }, "point_time_unit"},
    {"livox_unit", [](sim::SimParams& p) { p.lidar = "avia", p.faults.point_time_unit = "us"; }, "point_time_unit"},
    {"nan", [](sim::SimParams& p) { p.faults.nan_points = 0.01; }, "nan_points"},
    {"empty", [](sim::SimParams& p) { p.faults.empty_frame_every = 4; }, "empty_frames"},
    {"drop", [](sim::SimParams& p) { p.faults.drop_frame_every = 4; }, "dropped_frames"},
    {"offset", [](sim::SimParams& p) { p.faults.lidar_time_offset = 0.02; }, "lidar_imu_time_offset"},
    {"g", [](sim::SimParams& p) { p.acc_in_g = true; }, "acc_in_g"},
    {"end", [](sim::SimParams& p) { p.header_at_end = true; }, "header_at_end"},
  };
  for (const auto& c : cases) {
    auto p = base();
    c.set(p);
    const auto r = run(p, c.name);
    EXPECT_TRUE(has(r, c.finding)) << c.name << " should report " << c.finding << ":\n" << to_text(r);
    // The fault is named, not drowned: the other named faults of the list are not reported for it.
    for (const auto& other : cases) {
      if (other.finding == c.finding || other.finding == "out_of_order") continue;
      if (c.finding == "imu_gap" && other.finding == "dropped_frames") continue;
      EXPECT_FALSE(has(r, other.finding) && other.finding != "imu_coverage") << c.name << " also reported " << other.finding << ":\n" << to_text(r);
    }
  }
}

TEST_F(DoctorTest, SuggestionsFollowTheFaults) {
  auto p = base();
  p.acc_in_g = true;
  p.faults.point_time_unit = "ms";
  const auto r = run(p, "both");
  EXPECT_EQ(r.suggested_config.at("acc_scale"), "9.80665");
  EXPECT_EQ(r.suggested_config.at("point_time.unit"), "\"ms\"");
  const auto j = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(j["suggested_config"]["point_time.unit"], "ms");
  EXPECT_DOUBLE_EQ(j["suggested_config"]["acc_scale"].get<double>(), 9.80665);
  EXPECT_EQ(j["cloud"]["lidar_type"], "velodyne");
  EXPECT_FALSE(j["findings"].empty());
}

TEST_F(DoctorTest, ProgramWritesJsonAndFailsClearlyOnAMissingBag) {
  const auto r = sim::run_simulation(base(), (dir / "cli").string());
  const std::string program = std::string(ASUKA_BINARY_DIR) + "/bin/asuka_doctor";
  const auto json = (dir / "report.json").string();
  int status = std::system((program + " " + r.bag_path + " --json " + json + " > " + (dir / "out.txt").string()).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["points_topic"], "/velodyne_points");
  status = std::system((program + " " + (dir / "nope.bag").string() + " > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace asuka::doctor

namespace asuka::doctor {
namespace {

/// #13: the camera topic: encoding and size, how the images sit relative to the scans, and images
/// the decoder refuses, in ROS 1 and ROS 2 bags alike.
TEST_F(DoctorTest, CameraTopicsAreDescribedAndTheirTimeRelationNamed) {
  auto p = base("avia");
  p.duration = 2.0;
  p.camera.model = "pinhole";
  const auto triggered = run(p, "triggered");
  ASSERT_TRUE(triggered.camera) << to_text(triggered);
  EXPECT_EQ(triggered.image_topic, "/camera/image_raw");
  EXPECT_EQ(triggered.camera->encoding, "mono8");
  EXPECT_EQ(triggered.camera->width, 640);
  EXPECT_EQ(triggered.camera->images, 20u);
  EXPECT_EQ(triggered.camera->relation, "triggered at scan ends") << to_text(triggered);
  EXPECT_EQ(triggered.suggested_config.at("image_topic"), "\"/camera/image_raw\"");
  EXPECT_TRUE(triggered.findings.empty()) << to_text(triggered);

  p.camera.time_offset = 0.02;
  const auto offset = run(p, "offset");
  ASSERT_TRUE(offset.camera);
  EXPECT_EQ(offset.camera->relation, "fixed offset from scan ends");
  EXPECT_NEAR(offset.camera->median_offset_to_scan_end, 0.02, 1e-3);
  EXPECT_TRUE(has(offset, "image_scan_offset"));

  p.camera.time_offset = 0.0;
  p.camera.free_running = true;
  p.camera.rate = 15.0;
  p.camera.format = "jpeg";
  p.camera.corrupt_jpeg_every = 4;
  p.format = "ros2-mcap";
  const auto free = run(p, "free");
  ASSERT_TRUE(free.camera) << to_text(free);
  EXPECT_EQ(free.image_topic, "/camera/image_raw/compressed");
  EXPECT_EQ(free.camera->relation, "free-running");
  EXPECT_EQ(free.camera->encoding, "compressed -> mono8");
  EXPECT_EQ(free.camera->unreadable, free.camera->images / 4);
  EXPECT_TRUE(has(free, "unreadable_images"));
}

}  // namespace
}  // namespace asuka::doctor
