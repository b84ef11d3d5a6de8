#pragma once
// What asuka_rosbag and asuka_rosnode share: loading the configuration with command-line
// overrides, and writing the outputs of a run.

#include <string>
#include <vector>

#include <asuka_ros/asuka_ros.hpp>

namespace asuka_ros {

/// Loads `<config_dir>/config.json` and its module files into GlobalConfig, then applies:
///  - `frontend` (if not empty): config_odometry_<frontend>.json (when present) and so_name <frontend>;
///  - each override "FILE.KEY=VALUE": FILE is "config" (the root) or a module ("config_ros",
///    "config_odometry", ...), KEY a dotted path, VALUE JSON or a bare string;
/// and configures logging. Throws asuka::ConfigError naming what is wrong.
void load_configuration(const std::string& config_dir, const std::string& frontend, const std::vector<std::string>& overrides);

/// Applies one "FILE.KEY=VALUE" override to GlobalConfig (see load_configuration).
void apply_override(const std::string& text);

struct RunSummary {
  std::vector<std::string> inputs;  ///< bags, or topics for the live node
  double data_seconds = 0.0;        ///< span of the input data [s]
  double wall_seconds = 0.0;
  bool interrupted = false;         ///< stopped by Ctrl-C before the end of the input (report.json "interrupted")
  std::string damage;               ///< a truncated or corrupt input that ended reading early (report.json input.error)
};

/// Before any input is read: creates `output_dir` and checks that a file can be written in it.
/// Returns an empty string, or what is wrong (the directory, the reason) for an exit 2, so that an
/// unwritable --output is found before a long bag is processed, not after.
std::string check_output_dir(const std::string& output_dir);

/// After host.save(): writes trajectory.tum, config/ (effective) and report.json into `output_dir`
/// (created if needed), lets every extension save() there, and prints where the files are. `map_saved` says whether map.pcd was written.
/// Throws std::runtime_error when a file cannot be written.
void write_outputs(const AsukaROS& host, const std::string& output_dir, bool map_saved, const RunSummary& summary);

}  // namespace asuka_ros
