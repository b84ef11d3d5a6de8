// Sensor presets end to end (#16): every preset against its simulated sensor, run as a user runs it:
// the default config folder, `--sensor NAME` and nothing else. And how the configuration is loaded
// (asuka_ros/app_support: load_configuration): a preset named in config.json, --set over everything, a
// saved config folder switched to another frontend.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_doctor/doctor.hpp>
#include <asuka_eval/evaluation.hpp>
#include <asuka_ros/app_support.hpp>
#include <asuka_ros/bag_player.hpp>
#include <asuka_sim/simulator.hpp>

namespace asuka {
namespace {

namespace fs = std::filesystem;

const std::string kConfig = std::string(ASUKA_SOURCE_DIR) + "/config";

class PresetRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_presets_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override {
    GlobalConfig::instance().clear();
    fs::remove_all(dir);
  }

  struct Run {
    double ate = 0.0;
    std::size_t poses = 0;
    SensorSetup setup;
    std::optional<ExtrinsicRotationCheck> extrinsic_check;
    std::string input_error;
  };
  /// Runs the bag as asuka_rosbag does, with the given configuration options.
  Run run(const sim::SimResult& sim, const asuka_ros::ConfigurationOptions& options) {
    GlobalConfig::instance().clear();
    const auto configuration = asuka_ros::load_configuration(options);
    Run r;
    r.setup = describe_sensor_setup(GlobalConfig::instance(), configuration.preset ? &*configuration.preset : nullptr);
    auto params = asuka_ros::AsukaROSParams::from_config();
    params.reorder_window = 1.0;
    asuka_ros::BagPlayer player({sim.bag_path}, params);
    asuka_ros::AsukaROS host(params);
    player.play(host);
    host.wait(true);
    host.save((dir / "map.pcd").string());
    r.extrinsic_check = host.extrinsic_check();
    r.input_error = host.input_error();
    std::vector<StampedPose> gt;
    EXPECT_TRUE(read_tum(sim.ground_truth_path, gt));
    const auto trajectory = host.trajectory();
    r.poses = trajectory.size();
    r.ate = trajectory.empty() ? 1e9 : eval::evaluate(trajectory, gt).ate.rmse;
    return r;
  }

  fs::path dir;
};

// The simulator's model of each preset's sensor (docs/simulator.md).
struct PresetCase {
  const char* preset;
  const char* model;
};

class EveryPresetTest : public PresetRunTest, public ::testing::WithParamInterface<PresetCase> {};

// A preset with the manufacturer's extrinsic runs the simulated sensor, mounted as the manufacturer
// built it (the simulator's own model of it), as well as the exact extrinsic does: within 1.5x its ATE.
// An external IMU's rig cannot be known to a preset: there the run must still track, and the
// placeholder must be named with the setting to change.
TEST_P(EveryPresetTest, Issue16_SensorNameAndNothingElse) {
  const auto [preset_name, model_name] = GetParam();
  const auto preset = load_sensor_preset(preset_name, {kConfig + "/sensors"});
  sim::SimParams p;
  p.lidar = model_name;
  p.duration = 10.0;
  p.trajectory.static_duration = 2.0;
  p.trajectory.ramp_duration = 1.0;
  const auto sim = sim::run_simulation(p, (dir / "sim").string());
  const Eigen::Isometry3d truth = sim::make_lidar(model_name).T_imu_lidar;

  const auto with_preset = run(sim, {kConfig, kConfig, "fastlio", preset_name, {}});
  const Eigen::Vector3d t = truth.translation();
  const auto exact = run(sim, {kConfig, kConfig, "fastlio", preset_name,
                               {fmt::format("config_odometry.sensor.extrinsic_t=[{},{},{}]", t.x(), t.y(), t.z())}});
  std::printf("preset %-9s model %-9s: ATE %.4f m with --sensor only, %.4f m with the exact extrinsic\n", preset_name, model_name, with_preset.ate, exact.ate);
  EXPECT_GE(with_preset.poses, 70u);
  EXPECT_LT(exact.ate, 0.08);
  if (preset.extrinsic_known) {
    EXPECT_TRUE(with_preset.setup.warnings.empty()) << with_preset.setup.warnings.front();
    EXPECT_LE(with_preset.ate, 1.5 * exact.ate + 0.001);
  } else {
    ASSERT_EQ(with_preset.setup.warnings.size(), 1u);
    EXPECT_NE(with_preset.setup.warnings[0].find("placeholder"), std::string::npos);
    EXPECT_NE(with_preset.setup.warnings[0].find("config_odometry.sensor.extrinsic_t"), std::string::npos);
    EXPECT_LT(with_preset.ate, 0.3);  // tracks, with the error of a lever arm of 10-15 cm
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, EveryPresetTest,
                         ::testing::Values(PresetCase{"avia", "avia"}, PresetCase{"mid360", "mid360"}, PresetCase{"hap", "hap"},
                                           PresetCase{"vlp16", "vlp16"}, PresetCase{"vlp32", "vlp32"}, PresetCase{"hdl32", "hdl32"},
                                           PresetCase{"hdl64", "hdl64"}, PresetCase{"os0", "os0-64"}, PresetCase{"os1", "os1-64"},
                                           PresetCase{"os2", "os2-64"}, PresetCase{"rs16", "rs16"}, PresetCase{"rs32", "rs32"},
                                           PresetCase{"helios", "helios"}, PresetCase{"pandar40", "pandar40"}, PresetCase{"xt32", "xt32"}),
                         [](const auto& test_info) { return std::string(test_info.param.preset); });

// Every preset has a simulated sensor, so that the test above covers it.
TEST(PresetCoverage, Issue16_EveryPresetIsTested) {
  const auto presets = list_sensor_presets({kConfig + "/sensors"});
  EXPECT_EQ(presets.size(), 15u) << "add the new preset to EveryPresetTest";
}

// #16: a configured extrinsic rotation that is not the rig's (here the lidar turned 180 deg about x
// against the IMU, the preset's rotation the identity) gave tens of metres and exit 0. The extrinsic
// rotation check (asuka/lio/extrinsic_check.hpp) makes it an input error that names the rotation to
// set; with that rotation the run is right and the check agrees. Fast hand-held motion, which turns
// about more than one axis, so the whole rotation is determined.
TEST_F(PresetRunTest, Issue16_AnUpsideDownMountIsAnInputErrorThatNamesTheRotation) {
  sim::SimParams p;
  p.lidar = "avia";
  p.duration = 10.0;
  p.seed = 3;
  p.trajectory.profile = "aggressive";
  p.extrinsic_set = true;
  p.T_imu_lidar = sim::make_lidar("avia").T_imu_lidar;
  const Eigen::Matrix3d upside_down = Eigen::Vector3d(1.0, -1.0, -1.0).asDiagonal();
  p.T_imu_lidar.linear() = upside_down;
  const auto sim = sim::run_simulation(p, (dir / "sim").string());
  const Eigen::Vector3d t = p.T_imu_lidar.translation();
  const std::string exact_t = fmt::format("config_odometry.sensor.extrinsic_t=[{},{},{}]", t.x(), t.y(), t.z());

  const auto wrong = run(sim, {kConfig, kConfig, "fastlio", "avia", {exact_t}});
  ASSERT_TRUE(wrong.extrinsic_check.has_value());
  EXPECT_EQ(wrong.extrinsic_check->verdict, ExtrinsicRotationCheck::Verdict::WRONG) << wrong.extrinsic_check->message;
  ASSERT_TRUE(wrong.extrinsic_check->estimated) << wrong.extrinsic_check->message;
  EXPECT_LT(Eigen::AngleAxisd(upside_down.transpose() * wrong.extrinsic_check->R_imu_lidar_estimated).angle() * 180.0 / M_PI, 3.0);
  EXPECT_NE(wrong.input_error.find("the LiDAR-IMU extrinsic rotation is wrong"), std::string::npos) << wrong.input_error;
  EXPECT_NE(wrong.input_error.find("--set config_odometry.sensor.extrinsic_R=[1,0,0,0,-1,0,0,0,-1]"), std::string::npos) << wrong.input_error;
  std::printf("upside-down Avia, preset rotation: verdict after %zu intervals, disagreement %.1f deg, ATE %.3f m\n", wrong.extrinsic_check->pairs,
              wrong.extrinsic_check->disagreement_deg, wrong.ate);

  const auto right = run(sim, {kConfig, kConfig, "fastlio", "avia", {exact_t, "config_odometry.sensor.extrinsic_R=[1,0,0,0,-1,0,0,0,-1]"}});
  ASSERT_TRUE(right.extrinsic_check.has_value());
  EXPECT_EQ(right.extrinsic_check->verdict, ExtrinsicRotationCheck::Verdict::CONSISTENT) << right.extrinsic_check->message;
  EXPECT_TRUE(right.input_error.empty()) << right.input_error;
  EXPECT_LT(right.ate, 0.05);
  std::printf("upside-down Avia, the rotation named: disagreement %.1f deg, ATE %.4f m\n", right.extrinsic_check->disagreement_deg, right.ate);
}

// #12 item 3: gyro_scale 0.0175 given to a gyroscope in rad/s (a config copied from a deg/s driver)
// ran to exit 0 with 34.8 m ATE on a VLP-16 street drive and 12.9 cm hand-held; the host's unit
// checks cannot see it (the rates are small, not large). The extrinsic check's intervals can: the
// gyroscope turns a 57th of the LiDAR's angle. Exit 2 with the setting to change.
TEST_F(PresetRunTest, Issue12_AWrongGyroScaleIsAnInputErrorThatNamesTheSetting) {
  sim::SimParams p;
  p.lidar = "avia";
  p.duration = 10.0;
  const auto sim = sim::run_simulation(p, (dir / "sim").string());
  const auto wrong = run(sim, {kConfig, kConfig, "fastlio", "avia", {"config_ros.gyro_scale=0.017453293"}});
  ASSERT_TRUE(wrong.extrinsic_check.has_value());
  EXPECT_EQ(wrong.extrinsic_check->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE) << wrong.extrinsic_check->message;
  EXPECT_NE(wrong.input_error.find("set config_ros.gyro_scale to 1"), std::string::npos) << wrong.input_error;
  const auto right = run(sim, {kConfig, kConfig, "fastlio", "avia", {"config_ros.gyro_scale=1"}});
  EXPECT_TRUE(right.input_error.empty()) << right.input_error;
  EXPECT_LT(right.ate, 0.05);
}

// #17: the gyroscope-scale rule refused 3 of 40 generated 16-line runs whose gyroscope was right: the
// LiDAR registered alone spun over the first seconds of motion (asuka/lio/extrinsic_check.hpp). This
// one, an RS-16 hand-held in an open field, was refused with exit 2 ("the gyroscope turned 0.166
// times the angle the LiDAR registered"). A factor of 6 is no unit mix-up: warned about, and the run
// goes on to the end, on the ground truth.
TEST_F(PresetRunTest, Issue17_ALidarOnlySpinIsNoReasonToRefuseARightGyroscope) {
  sim::SimParams p;
  p.lidar = "rs16";
  p.scene = "field";
  p.trajectory.profile = "handheld";
  p.duration = 15.0;
  p.seed = 5;
  p.trajectory.motion_seed = p.seed;  // asuka_sim --random-motion
  const auto sim = sim::run_simulation(p, (dir / "sim").string());
  std::ifstream sidecar(sim.sidecar_path);
  const auto t = nlohmann::json::parse(sidecar)["T_imu_lidar"]["translation"];
  const std::string extrinsic_t = fmt::format("config_odometry.sensor.extrinsic_t=[{},{},{}]", t[0].get<double>(), t[1].get<double>(), t[2].get<double>());
  const auto r = run(sim, {kConfig, kConfig, "fastlio", "rs16", {extrinsic_t}});
  EXPECT_TRUE(r.input_error.empty()) << r.input_error;
  if (r.extrinsic_check) {
    EXPECT_NE(r.extrinsic_check->verdict, ExtrinsicRotationCheck::Verdict::GYRO_SCALE) << r.extrinsic_check->message;
  }
  EXPECT_GT(r.poses, 100u);
  EXPECT_LT(r.ate, 0.05);
  std::printf("RS-16 field, LiDAR-only spin: ATE %.4f m, %zu poses\n", r.ate, r.poses);
}

// The doctor's command line, pasted as is (#16): on a recording of a sensor with a built-in IMU, it runs
// within 1.5x of the ATE of the best settings (the exact extrinsic). The Livox bag reports in g and
// stores PointCloud2: the command must carry whatever that needs.
TEST_F(PresetRunTest, Issue16_TheDoctorsCommandRunsAsWellAsTheBestSettings) {
  struct Case {
    std::string model, preset;
    bool acc_in_g, livox_pointcloud2;
  };
  for (const auto& c : {Case{"avia", "avia", true, true}, Case{"mid360", "mid360", false, false}, Case{"os1-64", "os1", false, false}}) {
    SCOPED_TRACE(c.model);
    sim::SimParams p;
    p.lidar = c.model;
    p.duration = 10.0;
    p.trajectory.static_duration = 2.0;
    p.trajectory.ramp_duration = 1.0;
    p.acc_in_g = c.acc_in_g;
    p.livox_pointcloud2 = c.livox_pointcloud2;
    const auto sim = sim::run_simulation(p, (dir / c.model).string());
    doctor::Options options;
    options.preset_dirs = {kConfig + "/sensors"};
    const auto report = doctor::diagnose({sim.bag_path}, options);
    ASSERT_TRUE(report.sensor.has_value());
    EXPECT_EQ(report.sensor->preset, c.preset);
    std::printf("%s\n", report.command.c_str());
    // The command as a user pastes it: asuka_rosbag --bag B --sensor NAME [--set S]... --output O.
    std::istringstream words(report.command);
    std::string word, program;
    words >> program;
    EXPECT_EQ(program, "asuka_rosbag");
    asuka_ros::ConfigurationOptions pasted{kConfig, kConfig, "", "", {}};
    while (words >> word) {
      std::string value;
      words >> value;
      if (word == "--sensor") pasted.sensor = value;
      else if (word == "--set") pasted.overrides.push_back(value);
      else if (word == "--bag") EXPECT_EQ(value, sim.bag_path);
      else EXPECT_EQ(word, "--output");
    }
    const auto from_doctor = run(sim, pasted);
    const Eigen::Vector3d t = sim::make_lidar(c.model).T_imu_lidar.translation();
    const auto best = run(sim, {kConfig, kConfig, "", c.preset, {fmt::format("config_odometry.sensor.extrinsic_t=[{},{},{}]", t.x(), t.y(), t.z())}});
    std::printf("doctor's command %.4f m, best settings %.4f m\n", from_doctor.ate, best.ate);
    EXPECT_LT(best.ate, 0.02);
    EXPECT_LE(from_doctor.ate, 1.5 * best.ate + 0.001);
  }
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A preset of the user's own folder, and the config/ a run saves with it: that folder names the preset
// and holds a copy, so it loads again anywhere (review of #16).
TEST_F(PresetRunTest, Issue16_ASavedConfigCarriesItsPreset) {
  fs::create_directories(dir / "mine" / "sensors");
  write_file(dir / "mine" / "config.json", R"({"sensor": "my_rig", "config_ros": "config_ros.json", "config_odometry": "config_odometry_fastlio.json"})");
  write_file(dir / "mine" / "config_ros.json", "{}");
  write_file(dir / "mine" / "config_odometry_fastlio.json", R"({"so_name": "fastlio"})");
  write_file(dir / "mine" / "sensors" / "my_rig.json", R"({"description": "my rig", "imu": "external", "extrinsic_known": true, "extrinsic_source": "measured",
    "settings": {"config_ros": {"imu_topic": "/rig/imu", "points_topic": "/rig/points", "lidar_type": "velodyne"},
                 "config_odometry": {"sensor": {"extrinsic_t": [0, 0, 0.2], "extrinsic_R": [1, 0, 0, 0, 1, 0, 0, 0, 1]}}}})");
  const auto first = asuka_ros::load_configuration({(dir / "mine").string(), kConfig, "", "", {}});
  ASSERT_TRUE(first.preset.has_value());
  auto& global = GlobalConfig::instance();
  EXPECT_EQ(global.module("config_ros").get<std::string>("imu_topic", ""), "/rig/imu");
  // What write_outputs does: the effective config, then the preset's copy.
  const auto saved = dir / "out" / "config";
  ASSERT_TRUE(global.dump_effective(saved.string()));
  fs::create_directories(saved / "sensors");
  const auto setup = describe_sensor_setup(global, &*first.preset);
  EXPECT_EQ(setup.preset_path, (dir / "mine" / "sensors" / "my_rig.json").string());
  fs::copy_file(setup.preset_path, saved / "sensors" / (setup.preset + ".json"));
  global.clear();
  const auto again = asuka_ros::load_configuration({saved.string(), kConfig, "", "", {}});
  ASSERT_TRUE(again.preset.has_value());
  EXPECT_EQ(again.preset->name, "my_rig");
  EXPECT_EQ(GlobalConfig::instance().module("config_odometry").get<Eigen::Vector3d>("sensor.extrinsic_t", Eigen::Vector3d::Zero()), Eigen::Vector3d(0, 0, 0.2));
}

TEST_F(PresetRunTest, Issue16_ThePresetOfConfigJsonFillsTheFolderAndSetWins) {
  // A folder of the user's: config.json names the preset; config_ros.json sets its own IMU topic.
  write_file(dir / "config.json", R"({"sensor": "mid360", "config_ros": "config_ros.json", "config_odometry": "config_odometry_fastlio.json"})");
  write_file(dir / "config_ros.json", R"({"imu_topic": "/my_imu"})");
  write_file(dir / "config_odometry_fastlio.json", R"({"so_name": "fastlio"})");
  const auto result = asuka_ros::load_configuration({dir.string(), kConfig, "", "", {"config_odometry.preprocess.min_distance=2.0"}});
  ASSERT_TRUE(result.preset.has_value());
  EXPECT_EQ(result.preset->name, "mid360");
  auto& global = GlobalConfig::instance();
  EXPECT_EQ(global.module("config_ros").get<std::string>("imu_topic", ""), "/my_imu");
  EXPECT_EQ(global.module("config_ros").get<std::string>("points_topic", ""), "/livox/lidar");
  EXPECT_EQ(global.module("config_odometry").get<int>("preprocess.scan_line", 0), 4);
  EXPECT_DOUBLE_EQ(global.module("config_odometry").get<double>("preprocess.min_distance", 0.0), 2.0);  // --set over the preset's 0.5
  // The imu_topic differs from the preset's: said once, and the folder's value kept.
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_NE(result.notes[0].find("config_ros.json sets imu_topic to \"/my_imu\", the sensor preset 'mid360' to \"/livox/imu\""), std::string::npos)
      << result.notes[0];
  // --set on a key the folder also sets: the --set value is used and no note claims the file's is.
  GlobalConfig::instance().clear();
  const auto with_set = asuka_ros::load_configuration({dir.string(), kConfig, "", "", {"config_ros.imu_topic=/from_set"}});
  EXPECT_EQ(GlobalConfig::instance().module("config_ros").get<std::string>("imu_topic", ""), "/from_set");
  EXPECT_TRUE(with_set.notes.empty()) << with_set.notes.front();
  // --sensor replaces config.json's choice.
  GlobalConfig::instance().clear();
  EXPECT_EQ(asuka_ros::load_configuration({dir.string(), kConfig, "", "os1", {}}).preset->name, "os1");
  EXPECT_EQ(GlobalConfig::instance().module("config_ros").get<std::string>("points_topic", ""), "/os_cloud_node/points");
}

TEST_F(PresetRunTest, Issue16_ASavedFolderSwitchedToAnotherFrontendKeepsItsSensor) {
  // A run's saved config/ holds only the frontend it ran (fastlio) with the sensor blocks it used.
  write_file(dir / "config.json", R"({"config_ros": "config_ros.json", "config_odometry": "config_odometry_fastlio.json"})");
  write_file(dir / "config_ros.json", R"({"lidar_type": "velodyne", "imu_topic": "/imu", "points_topic": "/points"})");
  write_file(dir / "config_odometry_fastlio.json",
             R"({"so_name": "fastlio", "sensor": {"extrinsic_t": [0, 0, 0.3], "extrinsic_R": [1,0,0,0,1,0,0,0,1]}, "preprocess": {"scan_line": 16}, "mapping": {"max_iterations": 3}})");
  const auto result = asuka_ros::load_configuration({dir.string(), kConfig, "batchlio", "", {}});
  auto& global = GlobalConfig::instance();
  auto& odometry = global.module("config_odometry");
  EXPECT_EQ(odometry.get<std::string>("so_name", ""), "batchlio");
  EXPECT_EQ(odometry.get<Eigen::Vector3d>("sensor.extrinsic_t", Eigen::Vector3d::Zero()), Eigen::Vector3d(0.0, 0.0, 0.3));
  EXPECT_EQ(odometry.get<int>("preprocess.scan_line", 0), 16);
  EXPECT_FALSE(odometry.has("mapping.max_iterations"));  // fastlio's own keys stay behind: no unknown-key warnings
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_NE(result.notes[0].find("has no config_odometry_batchlio.json: using the default one"), std::string::npos) << result.notes[0];
  EXPECT_NE(result.notes[0].find("sensor.extrinsic_t"), std::string::npos);
  // The effective config written after the run names the file it really used.
  const auto saved = dir / "saved";
  ASSERT_TRUE(global.dump_effective(saved.string()));
  EXPECT_TRUE(fs::exists(saved / "config_odometry_batchlio.json"));
  std::ifstream root_file(saved / "config.json");
  EXPECT_EQ(nlohmann::json::parse(root_file)["config_odometry"], "config_odometry_batchlio.json");
}

}  // namespace
}  // namespace asuka
