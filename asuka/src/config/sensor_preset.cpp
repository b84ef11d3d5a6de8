#include <asuka/config/sensor_preset.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <asuka/config/config.hpp>
#include <asuka/math/so3.hpp>

namespace asuka {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The module files a preset may set: the ROS layer's and the frontend's (every frontend reads the
// shared `sensor` and `preprocess` blocks).
const char* const kPresetModules[] = {"config_ros", "config_odometry"};

void flatten(const json& node, const std::string& prefix, std::vector<std::string>& out) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;  // "_comment"
      flatten(it.value(), prefix + "." + it.key(), out);
    }
  } else {
    out.push_back(prefix + "=" + node.dump());
  }
}

std::string split_file_key(const std::string& setting, std::string* value) {
  const auto eq = setting.find('=');
  if (value != nullptr) *value = setting.substr(eq + 1);
  return setting.substr(0, eq);
}

}  // namespace

std::string SensorPreset::setting(const std::string& file_key) const {
  for (const auto& s : settings) {
    std::string value;
    if (split_file_key(s, &value) == file_key) return value;
  }
  return {};
}

std::vector<std::string> sensor_preset_dirs(const std::string& config_dir, const std::string& defaults_dir) {
  std::vector<std::string> dirs;
  for (const auto& base : {config_dir, defaults_dir}) {
    if (base.empty()) continue;
    const auto dir = (fs::path(base) / "sensors").lexically_normal().string();
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

SensorPreset read_sensor_preset(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot open the sensor preset (missing or unreadable)");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {
    throw ConfigError(path + ": invalid JSON: " + e.what());
  }
  const auto fail = [&](const std::string& what) -> ConfigError { return ConfigError(path + ": " + what); };
  if (!doc.is_object()) throw fail("expected a JSON object");
  SensorPreset p;
  p.path = path;
  p.name = fs::path(path).stem().string();
  try {
    p.description = doc.value("description", std::string());
    const std::string imu = doc.value("imu", std::string());
    if (imu != "built-in" && imu != "external") throw fail("'imu' must be \"built-in\" or \"external\", got '" + imu + "'");
    p.imu_builtin = imu == "built-in";
    if (!doc.contains("extrinsic_known") || !doc["extrinsic_known"].is_boolean()) throw fail("'extrinsic_known' must be true or false");
    p.extrinsic_known = doc["extrinsic_known"].get<bool>();
    p.extrinsic_source = doc.value("extrinsic_source", std::string());
    p.notes = doc.value("notes", std::string());
    const json match = doc.value("match", json::object());
    p.lines = match.value("lines", 0);
    const auto elevation = match.value("elevation_deg", std::vector<double>{});
    if (elevation.size() == 2) {
      p.elevation_min_deg = elevation[0];
      p.elevation_max_deg = elevation[1];
    }
    const json settings = doc.value("settings", json::object());
    if (!settings.is_object()) throw fail("'settings' must be an object of module files");
    for (auto it = settings.begin(); it != settings.end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;
      if (std::find(std::begin(kPresetModules), std::end(kPresetModules), it.key()) == std::end(kPresetModules)) {
        throw fail("'settings." + it.key() + "': a preset sets only config_ros and config_odometry");
      }
      flatten(it.value(), it.key(), p.settings);
    }
    std::sort(p.settings.begin(), p.settings.end());
    // lidar_type and the extrinsic, validated as the host and the frontends will read them.
    auto ros = Config::parse(settings.value("config_ros", json::object()).dump(), path + " (settings.config_ros)");
    p.lidar_type = ros.get<std::string>("lidar_type", "");
    if (p.lidar_type.empty()) throw fail("settings.config_ros.lidar_type is missing");
    const json odometry = settings.value("config_odometry", json::object());
    const auto t = odometry.value("/sensor/extrinsic_t"_json_pointer, std::vector<double>{});
    const auto R = odometry.value("/sensor/extrinsic_R"_json_pointer, std::vector<double>{});
    if (t.size() != 3 || R.size() != 9) throw fail("settings.config_odometry.sensor needs extrinsic_t (3 numbers) and extrinsic_R (9 numbers)");
    Eigen::Matrix3d rotation;
    rotation << R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8];
    if ((rotation * rotation.transpose() - Eigen::Matrix3d::Identity()).norm() > 1e-3 || rotation.determinant() < 0.0) {
      throw fail("settings.config_odometry.sensor.extrinsic_R is not a rotation matrix");
    }
    p.T_imu_lidar.linear() = rotation;
    p.T_imu_lidar.translation() = Eigen::Vector3d(t[0], t[1], t[2]);
  } catch (const json::exception& e) {
    throw fail(std::string("malformed preset: ") + e.what());
  }
  return p;
}

std::vector<SensorPreset> list_sensor_presets(const std::vector<std::string>& dirs) {
  std::map<std::string, SensorPreset> by_name;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    for (const auto& file : files) {
      const auto name = file.stem().string();
      if (by_name.count(name) == 0) by_name.emplace(name, read_sensor_preset(file.string()));
    }
  }
  std::vector<SensorPreset> out;
  for (auto& [name, preset] : by_name) out.push_back(std::move(preset));
  return out;
}

SensorPreset load_sensor_preset(const std::string& name, const std::vector<std::string>& dirs) {
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) return read_sensor_preset(name);
  for (const auto& dir : dirs) {
    const auto path = fs::path(dir) / (name + ".json");
    std::error_code ec;
    if (fs::exists(path, ec)) return read_sensor_preset(path.string());
  }
  std::string known;
  for (const auto& p : list_sensor_presets(dirs)) known += (known.empty() ? "" : ", ") + p.name;
  std::string searched;
  for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
  throw ConfigError(fmt::format("no sensor preset '{}' (known: {}; searched {}). A preset of your own: --sensor path/to/my_sensor.json", name,
                                known.empty() ? "none" : known, searched.empty() ? "no folder" : searched));
}

std::vector<std::string> apply_sensor_preset(GlobalConfig& global, const SensorPreset& preset, const std::vector<std::string>& overridden) {
  std::vector<std::string> conflicts;
  for (const auto& setting : preset.settings) {
    std::string value;
    const std::string file_key = split_file_key(setting, &value);
    const auto dot = file_key.find('.');
    const std::string module = file_key.substr(0, dot), key = file_key.substr(dot + 1);
    Config& config = global.module(module);
    const std::string existing = config.value_json(key);
    if (existing.empty()) {
      config.set(key, value);
    } else if (json::parse(existing) != json::parse(value) && std::find(overridden.begin(), overridden.end(), file_key) == overridden.end()) {
      conflicts.push_back(fmt::format("{} sets {} to {}, the sensor preset '{}' to {}: the file's value is used", config.name(), key, existing,
                                      preset.name, value));
    }
  }
  return conflicts;
}

namespace {

}  // namespace

Eigen::Isometry3d default_extrinsic() {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.translation() = Eigen::Vector3d(0.04165, 0.02326, -0.0284);
  return T;
}

namespace {

bool same_transform(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
  return (a.translation() - b.translation()).norm() < 1e-6 && (a.linear() - b.linear()).norm() < 1e-6;
}

Eigen::Isometry3d read_extrinsic(const Config& odometry, bool* present) {
  *present = odometry.has("sensor.extrinsic_t") || odometry.has("sensor.extrinsic_R");
  // Read from a copy: a getter marks its key as read, and a frontend that does not read these keys
  // must still get its unknown-key warning. A malformed value is the frontend's to report, with the key.
  const Config copy(odometry);
  Eigen::Isometry3d T = default_extrinsic();
  try {
    T.translation() = copy.get<Eigen::Vector3d>("sensor.extrinsic_t", T.translation());
    const auto r = copy.get<std::vector<double>>("sensor.extrinsic_R", {});
    if (r.size() == 9) T.linear() << r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8];
  } catch (const ConfigError&) {
  }
  return T;
}

}  // namespace

std::string SensorSetup::summary() const {
  const Eigen::Vector3d t = T_imu_lidar.translation();
  const Eigen::Vector3d rpy = so3::roll_pitch_yaw(T_imu_lidar.linear()) * (180.0 / 3.14159265358979323846);
  return fmt::format("sensor: {}lidar_type {}; extrinsic T_imu_lidar t = ({:.4f}, {:.4f}, {:.4f}) m, roll {:.1f} pitch {:.1f} yaw {:.1f} deg, from {}",
                     preset.empty() ? "no preset (--sensor NAME, see --list-sensors), " : fmt::format("preset '{}' ({}), ", preset, description),
                     lidar_type, t.x(), t.y(), t.z(), rpy.x(), rpy.y(), rpy.z(), extrinsic_source);
}

SensorSetup describe_sensor_setup(GlobalConfig& global, const SensorPreset* preset) {
  SensorSetup s;
  const Config& ros = global.module("config_ros");
  const Config& odometry = global.module("config_odometry");
  const auto lidar_text = ros.value_json("lidar_type");
  const json lidar = lidar_text.empty() ? json("livox") : json::parse(lidar_text);
  s.lidar_type = lidar.is_string() ? lidar.get<std::string>() : lidar.dump();  // a wrong type: AsukaROSParams reports it
  bool present = false;
  s.T_imu_lidar = read_extrinsic(odometry, &present);
  if (preset != nullptr) {
    s.preset = preset->name;
    s.preset_path = preset->path;
    s.description = preset->description;
  }
  if (preset != nullptr && same_transform(s.T_imu_lidar, preset->T_imu_lidar)) {
    s.extrinsic_source = fmt::format("the sensor preset '{}' ({})", preset->name, preset->extrinsic_source);
    if (!preset->extrinsic_known) {
      s.warnings.push_back(fmt::format("the extrinsic of sensor preset '{}' is a placeholder ({}): {}. An extrinsic off by centimetres costs "
                                       "accuracy; off by a rotation, the trajectory. Set config_odometry.sensor.extrinsic_t and extrinsic_R "
                                       "(T_imu_lidar: the lidar origin and axes in the IMU frame)",
                                       preset->name, preset->extrinsic_source, preset->imu_builtin ? "the manufacturer does not publish it" : "the IMU is external, so it is your rig's"));
    }
  } else if (present) {
    s.extrinsic_source = odometry.name() + " or --set";
  } else {
    s.extrinsic_source = "the built-in default (a Livox Avia's)";
  }
  if (s.lidar_type != "livox" && same_transform(s.T_imu_lidar, default_extrinsic())) {
    s.warnings.push_back(fmt::format("lidar_type is '{}' but the lidar-IMU extrinsic is a Livox Avia's (from {}): nobody chose it for this sensor. "
                                     "Pass --sensor NAME (asuka_rosbag --list-sensors) or set config_odometry.sensor.extrinsic_t and extrinsic_R "
                                     "to your rig's T_imu_lidar",
                                     s.lidar_type, s.extrinsic_source));
  }
  return s;
}

}  // namespace asuka
