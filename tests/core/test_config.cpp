// Config and GlobalConfig: typed getters, validation messages that name file, key, value and
// expectation, unknown-key warnings, effective config dump.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigTest, TypedGettersWithDefaults) {
  const auto config = Config::parse(R"({
    "so_name": "fastlio",
    "preprocess": {"min_distance": 0.5, "point_filter_num": 3, "enabled": true},
    "sensor": {"t_imu_lidar": [0.04165, 0.02326, -0.0284]},
    "topics": ["/imu", "/points"],
    "matrix": [[1,0,0,1],[0,1,0,2],[0,0,1,3],[0,0,0,1]]
  })", "config_odometry.json");

  EXPECT_EQ(config.get<std::string>("so_name", ""), "fastlio");
  EXPECT_DOUBLE_EQ(config.get<double>("preprocess.min_distance", 0.0), 0.5);
  EXPECT_EQ(config.get<int>("preprocess.point_filter_num", 1), 3);
  EXPECT_TRUE(config.get<bool>("preprocess.enabled", false));
  EXPECT_DOUBLE_EQ(config.get<double>("preprocess.max_distance", 300.0), 300.0);  // default
  EXPECT_EQ(config.get<int>("preprocess.point_filter_num", 1), 3);
  EXPECT_TRUE(config.get<Eigen::Vector3d>("sensor.t_imu_lidar", Eigen::Vector3d::Zero()).isApprox(Eigen::Vector3d(0.04165, 0.02326, -0.0284)));
  EXPECT_EQ(config.get<std::vector<std::string>>("topics", {}), std::vector<std::string>({"/imu", "/points"}));
  const auto m = config.get<Eigen::Matrix4d>("matrix", Eigen::Matrix4d::Identity());
  EXPECT_DOUBLE_EQ(m(1, 3), 2.0);
  EXPECT_DOUBLE_EQ(config.get<double>("preprocess.point_filter_num", 0.0), 3.0);  // ints are numbers
  EXPECT_TRUE(config.has("sensor.t_imu_lidar"));
  EXPECT_FALSE(config.has("sensor.missing"));
  EXPECT_EQ(config.keys("preprocess"), std::vector<std::string>({"enabled", "min_distance", "point_filter_num"}));
}

TEST(ConfigTest, WrongTypeNamesFileKeyValueAndExpectation) {
  const auto config = Config::parse(R"({"preprocess": {"min_distance": "0.5", "point_filter_num": 2.5, "v": [1, 2]}})", "config_odometry_fastlio.json");
  const auto e1 = error_of([&] { config.get<double>("preprocess.min_distance", 0.0); });
  EXPECT_NE(e1.find("config_odometry_fastlio.json"), std::string::npos) << e1;
  EXPECT_NE(e1.find("preprocess.min_distance"), std::string::npos) << e1;
  EXPECT_NE(e1.find("\"0.5\""), std::string::npos) << e1;
  EXPECT_NE(e1.find("a number"), std::string::npos) << e1;

  const auto e2 = error_of([&] { config.get<int>("preprocess.point_filter_num", 1); });
  EXPECT_NE(e2.find("2.5"), std::string::npos) << e2;
  EXPECT_NE(e2.find("an integer"), std::string::npos) << e2;

  const auto e3 = error_of([&] { config.get<Eigen::Vector3d>("preprocess.v", Eigen::Vector3d::Zero()); });
  EXPECT_NE(e3.find("an array of 3 numbers"), std::string::npos) << e3;
}

TEST(ConfigTest, RangeEnumAndRequiredValidation) {
  const auto config = Config::parse(R"({"max_distance": -3, "lidar_type": "velodyn"})", "config_ros.json");
  const auto e1 = error_of([&] { config.get_in_range("max_distance", 300.0, 0.0, 1000.0); });
  EXPECT_NE(e1.find("max_distance"), std::string::npos) << e1;
  EXPECT_NE(e1.find("-3"), std::string::npos) << e1;
  EXPECT_NE(e1.find("[0, 1000]"), std::string::npos) << e1;

  const auto e2 = error_of([&] { config.get_enum("lidar_type", "livox", {"livox", "velodyne", "ouster"}); });
  EXPECT_NE(e2.find("\"velodyn\""), std::string::npos) << e2;
  EXPECT_NE(e2.find("one of: livox, velodyne, ouster"), std::string::npos) << e2;

  const auto e3 = error_of([&] { config.get_required<std::string>("so_name"); });
  EXPECT_NE(e3.find("required key 'so_name' is missing"), std::string::npos) << e3;
  EXPECT_EQ(config.get_in_range("missing", 5, 1, 10), 5);
}

TEST(ConfigTest, ParseErrorsAndMissingFilesAreClear) {
  const auto e1 = error_of([] { Config::parse("{\"a\": 1,,}", "broken.json"); });
  EXPECT_NE(e1.find("broken.json: invalid JSON"), std::string::npos) << e1;
  const auto e2 = error_of([] { Config::parse("[1, 2]", "array.json"); });
  EXPECT_NE(e2.find("expected a JSON object"), std::string::npos) << e2;
  const auto e3 = error_of([] { Config::load("/nonexistent/config.json"); });
  EXPECT_NE(e3.find("/nonexistent/config.json: cannot open"), std::string::npos) << e3;
  // Comments are allowed in config files.
  EXPECT_EQ(Config::parse("{\n// a comment\n\"a\": 1}", "c.json").get<int>("a", 0), 1);
}

TEST(ConfigTest, NumberOverflowIsAConfigError) {
  // JSON has no NaN or infinity; a number too large for a double is the way to write one.
  const auto e = error_of([] { Config::parse(R"({"x": 1e999})", "c.json"); });
  EXPECT_NE(e.find("c.json: invalid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("overflow"), std::string::npos) << e;
}

TEST(ConfigTest, UnknownKeysAreThoseNoModuleRead) {
  const auto config = Config::parse(R"({
    "_comment": "documentation is never unknown",
    "preprocess": {"min_distance": 0.5, "min_distnace": 0.7},
    "sensor": {"extrinsic": [1, 2, 3]},
    "mapping": {"a": 1, "b": {"c": 2}}
  })", "config_odometry.json");
  config.get<double>("preprocess.min_distance", 0.0);
  config.get<std::vector<double>>("sensor.extrinsic", {});
  config.mark_known("mapping.b");
  EXPECT_EQ(config.unknown_keys(), std::vector<std::string>({"mapping.a", "preprocess.min_distnace"}));
  auto logger = module_logger("config");
  EXPECT_EQ(config.warn_unknown_keys(*logger), 2u);
}

TEST(ConfigTest, EffectiveConfigHoldsValuesReallyUsed) {
  const auto config = Config::parse(R"({"preprocess": {"min_distance": 1.5}})", "c.json");
  config.get<double>("preprocess.min_distance", 0.5);
  config.get<int>("preprocess.point_filter_num", 2);  // default, recorded too
  const auto effective = Config::parse(config.effective_json(), "effective");
  EXPECT_DOUBLE_EQ(effective.get<double>("preprocess.min_distance", 0.0), 1.5);
  EXPECT_EQ(effective.get<int>("preprocess.point_filter_num", 0), 2);
}

TEST(ConfigTest, SetOverridesByDottedPath) {
  auto config = Config::parse(R"({"topics": {"imu": "/imu"}})", "config_ros.json");
  config.set("topics.imu", "\"/livox/imu\"");
  config.set("topics.points", "/livox/lidar");  // not JSON: taken as a string
  config.set("time_offset", "0.25");
  config.set("new.section.value", "true");
  EXPECT_EQ(config.get<std::string>("topics.imu", ""), "/livox/imu");
  EXPECT_EQ(config.get<std::string>("topics.points", ""), "/livox/lidar");
  EXPECT_DOUBLE_EQ(config.get<double>("time_offset", 0.0), 0.25);
  EXPECT_TRUE(config.get<bool>("new.section.value", false));
  const auto e = error_of([&] { config.set("time_offset.x", "1"); });
  EXPECT_NE(e.find("'time_offset' is not an object"), std::string::npos) << e;
}

class GlobalConfigTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("asuka_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
    std::filesystem::remove_all(dir);
  }
  void write(const std::string& file, const std::string& text) { std::ofstream(dir / file) << text; }
  std::filesystem::path dir;
};

TEST_F(GlobalConfigTest, RootNamesOneFilePerModule) {
  write("config.json", R"({"config_ros": "config_ros.json", "config_odometry": "config_odometry_fake.json", "log_level": "warn"})");
  write("config_ros.json", R"({"lidar_type": "livox"})");
  write("config_odometry_fake.json", R"({"so_name": "fake", "preprocess": {"min_distance": 2.0}})");
  auto& global = GlobalConfig::instance();
  global.load(dir.string());
  EXPECT_EQ(global.module_names(), std::vector<std::string>({"config_odometry", "config_ros"}));
  EXPECT_EQ(global.module("config_ros").get<std::string>("lidar_type", ""), "livox");
  EXPECT_DOUBLE_EQ(global.module("config_odometry").get<double>("preprocess.min_distance", 0.0), 2.0);
  EXPECT_FALSE(global.has_module("config_viewer"));
  EXPECT_EQ(global.module("config_viewer").get<int>("x", 4), 4);  // unconfigured: defaults

  // The dump keeps the module file names, so the folder can be loaded again.
  const auto out = dir / "effective";
  std::string error;
  ASSERT_TRUE(global.dump_effective(out.string(), &error)) << error;
  EXPECT_TRUE(std::filesystem::exists(out / "config_odometry_fake.json"));
  global.load(out.string());
  EXPECT_DOUBLE_EQ(global.module("config_odometry").get<double>("preprocess.min_distance", 0.0), 2.0);
}

TEST_F(GlobalConfigTest, MissingModuleFileNamesTheFile) {
  write("config.json", R"({"config_odometry": "config_odometry_missing.json"})");
  const auto e = error_of([&] { GlobalConfig::instance().load(dir.string()); });
  EXPECT_NE(e.find("config_odometry_missing.json: cannot open"), std::string::npos) << e;
}

}  // namespace
}  // namespace asuka
