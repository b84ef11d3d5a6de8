#pragma once
// Sensor presets (#16): one JSON file per sensor model in `<config dir>/sensors/NAME.json`, shared by
// every frontend. A preset holds what a user would otherwise assemble by hand for a sensor: the
// driver's default topics, the lidar type, the scan lines and blind distance, and the lidar-IMU
// extrinsic (the manufacturer's where the IMU is built in). File format and every preset:
// docs/sensors.md.
//
// Precedence, lowest first: the in-code defaults, the preset, the module files of the config folder,
// `--set`. A preset therefore fills the keys a config folder leaves out; a key the folder sets and the
// preset sets differently is reported (apply_sensor_preset's `conflicts`).

#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace asuka {

class GlobalConfig;

struct SensorPreset {
  std::string name;         ///< file stem, e.g. "mid360"
  std::string path;         ///< the file it was read from
  std::string description;  ///< "Livox Mid-360 (livox_ros_driver2, CustomMsg)"
  bool imu_builtin = false; ///< the IMU is part of the lidar ("imu": "built-in")
  bool extrinsic_known = false;  ///< the extrinsic is the manufacturer's; false: a placeholder to replace
  std::string extrinsic_source;  ///< where the extrinsic comes from, in words
  std::string notes;        ///< driver variants and what to change for them
  // What the doctor compares against a recording (match block).
  std::string lidar_type;   ///< config_ros.lidar_type
  int lines = 0;            ///< rings of a spinning lidar, lines of a Livox; 0: any
  double elevation_min_deg = 0.0, elevation_max_deg = 0.0;  ///< vertical field of view
  /// The settings as "FILE.KEY=VALUE" (FILE: config_ros or config_odometry; VALUE JSON), sorted.
  std::vector<std::string> settings;
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();

  /// The value of setting `file_key` ("config_ros.imu_topic") as JSON text, or "" when not set.
  std::string setting(const std::string& file_key) const;
};

/// The folders searched for presets, first match wins: `<config_dir>/sensors`, then
/// `<defaults_dir>/sensors` (either may be empty; duplicates are dropped).
std::vector<std::string> sensor_preset_dirs(const std::string& config_dir, const std::string& defaults_dir);

/// Reads one preset file. Throws ConfigError naming the file and what is wrong.
SensorPreset read_sensor_preset(const std::string& path);

/// The preset `name` from the first folder that has `<name>.json`; a name ending in ".json" is a path.
/// Throws ConfigError listing the presets that exist when there is none of that name.
SensorPreset load_sensor_preset(const std::string& name, const std::vector<std::string>& dirs);

/// Every preset in `dirs` (first folder wins for a name), sorted by name.
std::vector<SensorPreset> list_sensor_presets(const std::vector<std::string>& dirs);

/// Sets every key of the preset that the loaded module configs do not hold. Returns, for each key that
/// a module file sets to another value than the preset, a sentence naming both (the file's value is
/// kept: the folder is more specific than the preset). Keys in `overridden` ("config_ros.imu_topic":
/// set by --set afterwards) are not reported.
std::vector<std::string> apply_sensor_preset(GlobalConfig& global, const SensorPreset& preset, const std::vector<std::string>& overridden = {});

/// The lidar-IMU extrinsic the frontends use when nothing sets it: a Livox Avia's lidar in its built-in
/// IMU's frame, t = (0.04165, 0.02326, -0.0284) m, R = I (asuka/lio/extrinsic.hpp).
Eigen::Isometry3d default_extrinsic();

/// The sensor setup a run uses, in words (#16: the extrinsic must be visible), and what is suspicious
/// about it. Read from the loaded configs after the preset and --set.
struct SensorSetup {
  std::string preset;       ///< preset name, "" without one
  std::string preset_path;  ///< the file it was read from (a run copies it into its saved config/sensors/)
  std::string description;  ///< the preset's
  std::string lidar_type;   ///< config_ros.lidar_type
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  std::string extrinsic_source;  ///< "sensor preset 'mid360' (...)", "config_odometry_fastlio.json or --set", "the built-in default (a Livox Avia's)"
  std::vector<std::string> warnings;  ///< each names the cause and the setting to change

  /// One line for the log: the preset, the lidar type, the extrinsic (t in m, roll/pitch/yaw in deg) and its source.
  std::string summary() const;
};

/// Describes the loaded configuration's sensor setup. Warns when a non-Livox lidar runs with a Livox
/// Avia's extrinsic (the default that no one chose), and when a preset's extrinsic is only a
/// placeholder (an external IMU) and was not replaced.
SensorSetup describe_sensor_setup(GlobalConfig& global, const SensorPreset* preset);

}  // namespace asuka
