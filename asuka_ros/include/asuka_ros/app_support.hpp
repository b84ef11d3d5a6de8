#pragma once
// What asuka_rosbag and asuka_rosnode share: loading the configuration with command-line
// overrides, and writing the outputs of a run.

#include <optional>
#include <string>
#include <vector>

#include <asuka/config/sensor_preset.hpp>
#include <asuka_ros/asuka_ros.hpp>

namespace asuka_ros {

struct ConfigurationOptions {
  std::string config_dir;    ///< the folder holding config.json
  std::string defaults_dir;  ///< the installed default config folder: presets and frontend files the folder lacks
  std::string frontend;      ///< --frontend (empty: the folder's)
  std::string sensor;        ///< --sensor: a preset name or a preset file (empty: config.json's "sensor", if any)
  std::vector<std::string> overrides;  ///< --set FILE.KEY=VALUE, in order
};

struct ConfigurationResult {
  std::optional<asuka::SensorPreset> preset;  ///< the sensor preset applied, if any
  std::vector<std::string> notes;             ///< what the user should know (log them once logging is set up)
};

/// Loads `<config_dir>/config.json` and its module files into GlobalConfig, then:
///  - `frontend`: the folder's config_odometry_<frontend>.json, or the defaults' one with the folder's
///    sensor blocks carried over; so_name <frontend>;
///  - root overrides (`config.KEY=VALUE`);
///  - the sensor preset (`sensor`, or config.json's "sensor"): fills every key the folder leaves out;
///  - the module overrides, which win over everything;
/// and configures logging. Throws asuka::ConfigError naming what is wrong.
ConfigurationResult load_configuration(const ConfigurationOptions& options);


struct RunSummary {
  std::vector<std::string> inputs;  ///< bags, or topics for the live node
  double data_seconds = 0.0;        ///< span of the input data [s]
  double wall_seconds = 0.0;
  bool interrupted = false;         ///< stopped by Ctrl-C before the end of the input (report.json "interrupted")
  std::string damage;               ///< input that ended reading early or gave nothing: a truncated or corrupt bag, silent live topics (report.json input.error)
  std::optional<asuka::SensorSetup> sensor;  ///< report.json "sensor": preset, extrinsic and its source, warnings
};

/// After load_configuration: logs its notes, the sensor setup (preset, lidar type, extrinsic and where
/// it comes from) and every warning about it; returns the setup for the report.
asuka::SensorSetup log_sensor_setup(const ConfigurationResult& configuration);

/// Prints every sensor preset of the folders (name, description, lidar type, IMU, extrinsic) to stdout.
void print_sensor_presets(const std::string& config_dir, const std::string& defaults_dir);

/// Before any input is read: creates `output_dir` and checks that a file can be written in it.
/// Returns an empty string, or what is wrong (the directory, the reason) for an exit 2, so that an
/// unwritable --output is found before a long bag is processed, not after.
std::string check_output_dir(const std::string& output_dir);

/// After host.save(): closes the run record's files (trajectory.tum, scans.csv, ... streamed into
/// `output_dir` when host_params().record_dir is it; written here from memory otherwise), writes
/// config/ (effective) and report.json into `output_dir` (created if needed), lets every extension
/// save() there, and prints where the files are. `map_saved` says whether map.pcd was written.
/// Throws std::runtime_error when a file cannot be written.
void write_outputs(AsukaROS& host, const std::string& output_dir, bool map_saved, const RunSummary& summary);

}  // namespace asuka_ros
