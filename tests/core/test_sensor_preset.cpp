// Sensor presets (#16, docs/sensors.md): every shipped preset reads and is consistent; a preset fills
// what the config folder leaves out and never wins over it; errors name the file and what is wrong;
// the sensor setup names the extrinsic's source and warns when nobody chose it. And FAST-LIO's keys
// are named with their asuka equivalents instead of only "unknown".

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/core/types.hpp>
#include "support/log_capture.hpp"

namespace asuka {
namespace {

namespace fs = std::filesystem;

const std::string kShipped = std::string(ASUKA_SOURCE_DIR) + "/config/sensors";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

class SensorPresetTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_preset_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
    fs::remove_all(dir);
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir;
};

TEST_F(SensorPresetTest, Issue16_EveryShippedPresetIsComplete) {
  const auto presets = list_sensor_presets({kShipped});
  std::vector<std::string> names;
  for (const auto& p : presets) names.push_back(p.name);
  // Every layout the input layer reads (docs/sensors.md).
  for (const char* expected : {"avia", "mid360", "hap", "vlp16", "vlp32", "hdl32", "hdl64", "os0", "os1", "os2", "rs16", "rs32", "helios", "pandar40", "xt32"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& p : presets) {
    SCOPED_TRACE(p.name);
    EXPECT_FALSE(p.description.empty());
    EXPECT_FALSE(p.extrinsic_source.empty());
    EXPECT_FALSE(p.setting("config_ros.imu_topic").empty());
    EXPECT_FALSE(p.setting("config_ros.points_topic").empty());
    LidarType type;
    EXPECT_TRUE(lidar_type_from_string(p.lidar_type, type)) << p.lidar_type;  // a name the host accepts
    EXPECT_FALSE(p.setting("config_odometry.preprocess.scan_line").empty());
    EXPECT_FALSE(p.setting("config_odometry.preprocess.min_distance").empty());
    EXPECT_LT(p.elevation_min_deg, p.elevation_max_deg);
    // A preset with an external IMU cannot know the rig: it must say its extrinsic is a placeholder.
    if (!p.imu_builtin) {
      EXPECT_FALSE(p.extrinsic_known);
    }
  }
  // The manufacturers' numbers (docs/sensors.md).
  const auto mid360 = load_sensor_preset("mid360", {kShipped});
  EXPECT_TRUE(mid360.T_imu_lidar.translation().isApprox(Eigen::Vector3d(-0.011, -0.02329, 0.04412)));
  const auto os1 = load_sensor_preset("os1", {kShipped});
  EXPECT_TRUE(os1.T_imu_lidar.translation().isApprox(Eigen::Vector3d(-0.006253, 0.011775, -0.007645)));
}

TEST_F(SensorPresetTest, Issue16_AnUnknownNameListsThePresetsAndAMalformedFileIsNamed) {
  const auto error = error_of([] { load_sensor_preset("velodyne16", {kShipped}); });
  EXPECT_NE(error.find("no sensor preset 'velodyne16'"), std::string::npos) << error;
  EXPECT_NE(error.find("vlp16"), std::string::npos) << error;
  EXPECT_NE(error.find("mid360"), std::string::npos) << error;

  const auto bad_R = write("tilted.json", R"({"imu": "built-in", "extrinsic_known": true, "settings": {"config_ros": {"lidar_type": "livox"},
    "config_odometry": {"sensor": {"extrinsic_t": [0, 0, 0], "extrinsic_R": [1, 0, 0, 0, 1, 0, 0, 0, 2]}}}})");
  const auto r_error = error_of([&] { load_sensor_preset(bad_R, {}); });
  EXPECT_NE(r_error.find("tilted.json"), std::string::npos) << r_error;
  EXPECT_NE(r_error.find("extrinsic_R is not a rotation"), std::string::npos) << r_error;

  const auto other_module = write("odd.json", R"({"imu": "external", "extrinsic_known": false, "settings": {"config": {"x": 1}}})");
  EXPECT_NE(error_of([&] { load_sensor_preset(other_module, {}); }).find("only config_ros and config_odometry"), std::string::npos);
  const auto no_imu = write("noimu.json", R"({"settings": {}})");
  EXPECT_NE(error_of([&] { load_sensor_preset(no_imu, {}); }).find("'imu' must be"), std::string::npos);
}

TEST_F(SensorPresetTest, Issue16_APresetFillsWhatTheFolderLeavesOutAndNamesWhatItDoesNotOverride) {
  auto& global = GlobalConfig::instance();
  global.set_module("config_ros", Config::parse(R"({"imu_topic": "/my/imu"})", "config_ros.json"));
  global.set_module("config_odometry", Config::parse(R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0.1, 0.2, 0.3]}})", "config_odometry_fastlio.json"));
  const auto preset = load_sensor_preset("mid360", {kShipped});
  const auto conflicts = apply_sensor_preset(global, preset);

  EXPECT_EQ(global.module("config_ros").get<std::string>("imu_topic", ""), "/my/imu");        // the folder's
  EXPECT_EQ(global.module("config_ros").get<std::string>("points_topic", ""), "/livox/lidar");  // the preset's
  EXPECT_EQ(global.module("config_odometry").get<int>("preprocess.scan_line", 0), 4);
  EXPECT_EQ(global.module("config_odometry").get<Eigen::Vector3d>("sensor.extrinsic_t", Eigen::Vector3d::Zero()), Eigen::Vector3d(0.1, 0.2, 0.3));
  ASSERT_EQ(conflicts.size(), 2u);  // imu_topic and extrinsic_t differ; the identical values do not count
  const std::string all = conflicts[0] + conflicts[1];
  EXPECT_NE(all.find("config_odometry_fastlio.json sets sensor.extrinsic_t to [0.1,0.2,0.3], the sensor preset 'mid360' to [-0.011,-0.02329,0.04412]"),
            std::string::npos)
      << all;
}

TEST_F(SensorPresetTest, Issue16_TheSetupNamesTheExtrinsicsSourceAndWarnsWhenNobodyChoseIt) {
  auto& global = GlobalConfig::instance();
  // A spinning lidar with no extrinsic anywhere: the frontends' default is a Livox Avia's.
  global.set_module("config_ros", Config::parse(R"({"lidar_type": "velodyne"})", "config_ros.json"));
  global.set_module("config_odometry", Config::parse(R"({"so_name": "fastlio"})", "config_odometry.json"));
  auto setup = describe_sensor_setup(global, nullptr);
  EXPECT_EQ(setup.extrinsic_source, "the built-in default (a Livox Avia's)");
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_NE(setup.warnings[0].find("lidar_type is 'velodyne' but the lidar-IMU extrinsic is a Livox Avia's"), std::string::npos);
  EXPECT_NE(setup.warnings[0].find("--sensor NAME"), std::string::npos);
  EXPECT_NE(setup.summary().find("no preset"), std::string::npos);

  // The vlp16 preset: its zero extrinsic is a placeholder until replaced.
  const auto vlp16 = load_sensor_preset("vlp16", {kShipped});
  apply_sensor_preset(global, vlp16);
  setup = describe_sensor_setup(global, &vlp16);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_NE(setup.warnings[0].find("placeholder"), std::string::npos);
  EXPECT_NE(setup.warnings[0].find("config_odometry.sensor.extrinsic_t"), std::string::npos);
  // Replaced by the user: no warning, and the source says so.
  global.module("config_odometry").set("sensor.extrinsic_t", "[0, 0, 0.12]");
  setup = describe_sensor_setup(global, &vlp16);
  EXPECT_TRUE(setup.warnings.empty());
  EXPECT_EQ(setup.extrinsic_source, "config_odometry.json or --set");
  EXPECT_NE(setup.summary().find("t = (0.0000, 0.0000, 0.1200) m"), std::string::npos) << setup.summary();

  // A built-in IMU with the manufacturer's extrinsic: nothing to warn about; a rotation reads in degrees.
  global.set_module("config_odometry", Config::parse(R"({"so_name": "fastlio", "sensor": {"extrinsic_R": [0, -1, 0, 1, 0, 0, 0, 0, 1]}})", "o.json"));
  const auto mid360 = load_sensor_preset("mid360", {kShipped});
  global.set_module("config_ros", Config::parse("{}", "config_ros.json"));
  apply_sensor_preset(global, mid360);
  setup = describe_sensor_setup(global, &mid360);
  EXPECT_TRUE(setup.warnings.empty());
  EXPECT_NE(setup.summary().find("yaw 90.0 deg"), std::string::npos) << setup.summary();
}

TEST_F(SensorPresetTest, Issue16_FastLioKeysAreNamedWithTheirAsukaEquivalents) {
  const auto config = Config::parse(R"({"mapping": {"extrinsic_T": [0, 0, 0], "filter_size_map": 0.5}, "preprocess": {"blind": 2.0}, "typo_key": 1})",
                                    "config_odometry_fastlio.json");
  test::LogCapture log("config");
  EXPECT_EQ(config.warn_unknown_keys(*module_logger("config")), 4u);
  EXPECT_TRUE(log.contains("unknown key 'mapping.extrinsic_T' is ignored (FAST-LIO's 'extrinsic_T' is config_odometry.sensor.extrinsic_t here)")) << log.text();
  EXPECT_TRUE(log.contains("FAST-LIO's 'filter_size_map' is config_odometry.mapping.map_voxel_size here")) << log.text();
  EXPECT_TRUE(log.contains("FAST-LIO's 'blind' is config_odometry.preprocess.min_distance here")) << log.text();
  EXPECT_TRUE(log.contains("unknown key 'typo_key' is ignored (a typo?")) << log.text();
  // A frontend that does not read the key the hint names (batchlio has no mapping.acc_cov) gets no hint
  // that points back at the key it just rejected.
  const auto batchlio = Config::parse(R"({"mapping": {"acc_cov": 0.1}})", "config_odometry_batchlio.json");
  batchlio.warn_unknown_keys(*module_logger("config"));
  EXPECT_TRUE(log.contains("config_odometry_batchlio.json: unknown key 'mapping.acc_cov' is ignored (a typo?")) << log.text();
}

}  // namespace
}  // namespace asuka
