#include <asuka/config/config.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include <asuka/util/logging.hpp>

namespace asuka {

using json = nlohmann::json;

namespace {

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::string part;
  std::stringstream ss(key);
  while (std::getline(ss, part, '.')) parts.push_back(part);
  return parts;
}

std::string short_value(const json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

bool is_internal_key(const std::string& key) {
  // "_comment", "_doc": documentation inside config files, never unknown.
  const auto last = key.find_last_of('.');
  const std::string leaf = last == std::string::npos ? key : key.substr(last + 1);
  return !leaf.empty() && leaf[0] == '_';
}

void collect_leaves(const json& node, const std::string& prefix, std::vector<std::string>& out) {
  if (node.is_object() && !node.empty()) {
    for (auto it = node.begin(); it != node.end(); ++it) collect_leaves(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (!prefix.empty()) {
    out.push_back(prefix);
  }
}

}  // namespace

struct Config::Impl {
  std::string name;
  json doc = json::object();
  mutable std::mutex mutex;
  mutable json effective = json::object();
  mutable std::set<std::string> known;

  const json* find(const std::string& key) const {
    const json* node = &doc;
    for (const auto& part : split_key(key)) {
      if (!node->is_object()) return nullptr;
      const auto it = node->find(part);
      if (it == node->end()) return nullptr;
      node = &it.value();
    }
    return node;
  }

  void record(const std::string& key, const json& value) const {
    std::lock_guard<std::mutex> lock(mutex);
    known.insert(key);
    json* node = &effective;
    const auto parts = split_key(key);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      json& child = (*node)[parts[i]];
      if (!child.is_object()) child = json::object();
      node = &child;
    }
    (*node)[parts.back()] = value;
  }

  [[noreturn]] void fail(const std::string& key, const json& value, const std::string& expected) const {
    throw ConfigError(name + ": key '" + key + "' has value " + short_value(value) + " but expected " + expected);
  }
};

// ---- conversions: one per supported type ---------------------------------------------------------

namespace {

double to_number(const Config::Impl& impl, const std::string& key, const json& v, const std::string& expected) {
  if (!v.is_number()) impl.fail(key, v, expected);
  const double d = v.get<double>();
  if (!std::isfinite(d)) impl.fail(key, v, expected + " (finite)");
  return d;
}

template <typename T>
struct Convert;

template <>
struct Convert<bool> {
  static bool from(const Config::Impl& impl, const std::string& key, const json& v) {
    if (!v.is_boolean()) impl.fail(key, v, "a boolean (true or false)");
    return v.get<bool>();
  }
  static json to(bool v) { return v; }
};

template <>
struct Convert<std::int64_t> {
  static std::int64_t from(const Config::Impl& impl, const std::string& key, const json& v) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
    }
    impl.fail(key, v, "an integer");
  }
  static json to(std::int64_t v) { return v; }
};

template <>
struct Convert<int> {
  static int from(const Config::Impl& impl, const std::string& key, const json& v) {
    const std::int64_t i = Convert<std::int64_t>::from(impl, key, v);
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max()) impl.fail(key, v, "a 32-bit integer");
    return static_cast<int>(i);
  }
  static json to(int v) { return v; }
};

template <>
struct Convert<double> {
  static double from(const Config::Impl& impl, const std::string& key, const json& v) { return to_number(impl, key, v, "a number"); }
  static json to(double v) { return v; }
};

template <>
struct Convert<float> {
  static float from(const Config::Impl& impl, const std::string& key, const json& v) { return static_cast<float>(to_number(impl, key, v, "a number")); }
  static json to(float v) { return static_cast<double>(v); }
};

template <>
struct Convert<std::string> {
  static std::string from(const Config::Impl& impl, const std::string& key, const json& v) {
    if (!v.is_string()) impl.fail(key, v, "a string");
    return v.get<std::string>();
  }
  static json to(const std::string& v) { return v; }
};

template <>
struct Convert<std::vector<double>> {
  static std::vector<double> from(const Config::Impl& impl, const std::string& key, const json& v) {
    if (!v.is_array()) impl.fail(key, v, "an array of numbers");
    std::vector<double> out;
    for (const auto& e : v) out.push_back(to_number(impl, key, e, "an array of numbers"));
    return out;
  }
  static json to(const std::vector<double>& v) { return v; }
};

template <>
struct Convert<std::vector<std::string>> {
  static std::vector<std::string> from(const Config::Impl& impl, const std::string& key, const json& v) {
    if (!v.is_array()) impl.fail(key, v, "an array of strings");
    std::vector<std::string> out;
    for (const auto& e : v) {
      if (!e.is_string()) impl.fail(key, v, "an array of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  static json to(const std::vector<std::string>& v) { return v; }
};

template <>
struct Convert<Eigen::Vector3d> {
  static Eigen::Vector3d from(const Config::Impl& impl, const std::string& key, const json& v) {
    const auto values = Convert<std::vector<double>>::from(impl, key, v);
    if (values.size() != 3) impl.fail(key, v, "an array of 3 numbers");
    return Eigen::Vector3d(values[0], values[1], values[2]);
  }
  static json to(const Eigen::Vector3d& v) { return json::array({v.x(), v.y(), v.z()}); }
};

template <>
struct Convert<Eigen::Matrix4d> {
  static Eigen::Matrix4d from(const Config::Impl& impl, const std::string& key, const json& v) {
    const std::string expected = "a 4x4 matrix (16 numbers row-major, or 4 rows of 4)";
    std::vector<double> values;
    if (v.is_array() && v.size() == 4 && v[0].is_array()) {
      for (const auto& row : v) {
        const auto r = Convert<std::vector<double>>::from(impl, key, row);
        if (r.size() != 4) impl.fail(key, v, expected);
        values.insert(values.end(), r.begin(), r.end());
      }
    } else {
      values = Convert<std::vector<double>>::from(impl, key, v);
    }
    if (values.size() != 16) impl.fail(key, v, expected);
    Eigen::Matrix4d m;
    for (int i = 0; i < 16; ++i) m(i / 4, i % 4) = values[static_cast<std::size_t>(i)];
    return m;
  }
  static json to(const Eigen::Matrix4d& m) {
    json rows = json::array();
    for (int r = 0; r < 4; ++r) rows.push_back(json::array({m(r, 0), m(r, 1), m(r, 2), m(r, 3)}));
    return rows;
  }
};

}  // namespace

// ---- Config ----------------------------------------------------------------------------------

Config::Config(const std::string& name) : impl_(std::make_unique<Impl>()) { impl_->name = name; }
Config::~Config() = default;
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;

Config::Config(const Config& other) : impl_(std::make_unique<Impl>()) {
  std::lock_guard<std::mutex> lock(other.impl_->mutex);
  impl_->name = other.impl_->name;
  impl_->doc = other.impl_->doc;
  impl_->effective = other.impl_->effective;
  impl_->known = other.impl_->known;
}

Config& Config::operator=(const Config& other) {
  if (this != &other) *this = Config(other);
  return *this;
}

Config Config::parse(const std::string& json_text, const std::string& name) {
  Config config(name);
  try {
    config.impl_->doc = json::parse(json_text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number overflow
    throw ConfigError(name + ": invalid JSON: " + e.what());
  }
  if (!config.impl_->doc.is_object()) throw ConfigError(name + ": expected a JSON object at the top level, found " + short_value(config.impl_->doc));
  return config;
}

Config Config::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot open config file (missing or unreadable)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

const std::string& Config::name() const { return impl_->name; }

bool Config::has(const std::string& key) const { return impl_->find(key) != nullptr; }

std::vector<std::string> Config::keys(const std::string& key) const {
  const json* node = key.empty() ? &impl_->doc : impl_->find(key);
  std::vector<std::string> out;
  if (node && node->is_object()) {
    for (auto it = node->begin(); it != node->end(); ++it) out.push_back(it.key());
  }
  return out;
}

template <typename T>
T Config::get(const std::string& key, const T& default_value) const {
  const json* value = impl_->find(key);
  if (value == nullptr || value->is_null()) {
    impl_->record(key, Convert<T>::to(default_value));
    return default_value;
  }
  T result = Convert<T>::from(*impl_, key, *value);
  impl_->record(key, Convert<T>::to(result));
  return result;
}

template <typename T>
T Config::get_required(const std::string& key) const {
  const json* value = impl_->find(key);
  if (value == nullptr || value->is_null()) throw ConfigError(impl_->name + ": required key '" + key + "' is missing");
  T result = Convert<T>::from(*impl_, key, *value);
  impl_->record(key, Convert<T>::to(result));
  return result;
}

#define ASUKA_CONFIG_INSTANTIATE(T)                                         \
  template T Config::get<T>(const std::string&, const T&) const; \
  template T Config::get_required<T>(const std::string&) const;

ASUKA_CONFIG_INSTANTIATE(bool)
ASUKA_CONFIG_INSTANTIATE(int)
ASUKA_CONFIG_INSTANTIATE(std::int64_t)
ASUKA_CONFIG_INSTANTIATE(double)
ASUKA_CONFIG_INSTANTIATE(float)
ASUKA_CONFIG_INSTANTIATE(std::string)
ASUKA_CONFIG_INSTANTIATE(std::vector<double>)
ASUKA_CONFIG_INSTANTIATE(std::vector<std::string>)
ASUKA_CONFIG_INSTANTIATE(Eigen::Vector3d)
ASUKA_CONFIG_INSTANTIATE(Eigen::Matrix4d)
#undef ASUKA_CONFIG_INSTANTIATE

double Config::get_in_range(const std::string& key, double default_value, double lo, double hi) const {
  const double value = get<double>(key, default_value);
  if (value < lo || value > hi) {
    std::ostringstream expected;
    expected << "a number in [" << lo << ", " << hi << "]";
    impl_->fail(key, value, expected.str());
  }
  return value;
}

int Config::get_in_range(const std::string& key, int default_value, int lo, int hi) const {
  const int value = get<int>(key, default_value);
  if (value < lo || value > hi) impl_->fail(key, value, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return value;
}

std::string Config::get_enum(const std::string& key, const std::string& default_value, const std::vector<std::string>& allowed) const {
  const std::string value = get<std::string>(key, default_value);
  for (const auto& a : allowed) {
    if (a == value) return value;
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  impl_->fail(key, value, "one of: " + list);
}

void Config::set(const std::string& key, const std::string& json_value) {
  if (key.empty()) throw ConfigError(impl_->name + ": cannot set an empty key");
  json value;
  try {
    value = json::parse(json_value);
  } catch (const json::exception&) {
    value = json_value;  // a bare word such as  lidar_type=livox  means the string
  }
  json* node = &impl_->doc;
  const auto parts = split_key(key);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    json& child = (*node)[parts[i]];
    if (!child.is_object()) {
      if (!child.is_null()) throw ConfigError(impl_->name + ": cannot set '" + key + "': '" + parts[i] + "' is not an object");
      child = json::object();
    }
    node = &child;
  }
  (*node)[parts.back()] = value;
}

std::string Config::value_json(const std::string& key) const {
  const json* value = impl_->find(key);
  return value == nullptr ? std::string() : value->dump();
}

void Config::mark_known(const std::string& key) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->known.insert(key);
}

std::vector<std::string> Config::unknown_keys() const {
  std::vector<std::string> leaves;
  collect_leaves(impl_->doc, "", leaves);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<std::string> unknown;
  for (const auto& leaf : leaves) {
    if (is_internal_key(leaf)) continue;
    bool known = false;
    // Known if the leaf itself, or any object above it, was read or marked known.
    for (std::string prefix = leaf;; ) {
      if (impl_->known.count(prefix)) {
        known = true;
        break;
      }
      const auto dot = prefix.find_last_of('.');
      if (dot == std::string::npos) break;
      prefix.resize(dot);
    }
    if (!known) unknown.push_back(leaf);
  }
  return unknown;
}

namespace {

// FAST-LIO's configuration keys (its YAML files' leaf names) and where the same setting lives here
// (#16): a FAST-LIO user's key is named with its asuka equivalent instead of only "unknown".
struct KeyHint {
  const char* fast_lio;
  const char* asuka;
};
constexpr KeyHint kFastLioKeys[] = {
  {"extrinsic_T", "config_odometry.sensor.extrinsic_t"},
  {"extrinsic_R", "config_odometry.sensor.extrinsic_R (9 numbers, row-major)"},
  {"extrinsic_est_en", "config_odometry.mapping.extrinsic_est_en"},
  {"lid_topic", "config_ros.points_topic"},
  {"blind", "config_odometry.preprocess.min_distance"},
  {"timestamp_unit", "config_ros.point_time.unit"},
  {"time_offset_lidar_to_imu", "config_ros.time_offset_lidar_to_imu"},
  {"time_sync_en", "config_ros.time_offset_lidar_to_imu (asuka estimates the offset and reports it)"},
  {"filter_size_surf", "config_odometry.mapping.scan_voxel_size"},
  {"filter_size_map", "config_odometry.mapping.map_voxel_size"},
  {"cube_side_length", "config_odometry.mapping.local_map_half_size (half the side)"},
  {"det_range", "config_odometry.preprocess.max_distance"},
  {"max_iteration", "config_odometry.mapping.max_iterations"},
  {"acc_cov", "config_odometry.mapping.acc_cov"},
  {"gyr_cov", "config_odometry.mapping.gyr_cov"},
  {"b_acc_cov", "config_odometry.mapping.b_acc_cov"},
  {"b_gyr_cov", "config_odometry.mapping.b_gyr_cov"},
  {"fov_degree", "nothing: asuka uses every point in range"},
  {"feature_extract_enable", "nothing: asuka registers raw points, as FAST-LIO2 does by default"},
  {"pcd_save_en", "asuka_rosbag --output (map.pcd) and config_ros.map_saving_path"},
};

std::string hint_for(const std::string& key) {
  const auto dot = key.find_last_of('.');
  const std::string leaf = dot == std::string::npos ? key : key.substr(dot + 1);
  for (const auto& h : kFastLioKeys) {
    if (leaf != h.fast_lio) continue;
    // A suggestion that is the rejected key itself (a frontend that does not read it) would mislead.
    const std::string suggestion = std::string(h.asuka).substr(0, std::string(h.asuka).find(' '));
    if (suggestion.size() >= key.size() && suggestion.compare(suggestion.size() - key.size(), key.size(), key) == 0) break;
    return std::string(" (FAST-LIO's '") + h.fast_lio + "' is " + h.asuka + " here)";
  }
  if (leaf == "lidar_type" && key != "lidar_type") return " (FAST-LIO's numeric 'lidar_type' is config_ros.lidar_type here, a name: livox, velodyne, ouster, robosense, hesai)";
  return " (a typo? see docs for the valid keys)";
}

}  // namespace

std::size_t Config::warn_unknown_keys(spdlog::logger& logger) const {
  const auto unknown = unknown_keys();
  for (const auto& key : unknown) logger.warn("{}: unknown key '{}' is ignored{}", impl_->name, key, hint_for(key));
  return unknown.size();
}

std::string Config::effective_json() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->effective.dump(2);
}

std::string Config::document_json() const { return impl_->doc.dump(2); }

// ---- GlobalConfig ------------------------------------------------------------------------------

struct GlobalConfig::Impl {
  std::string directory;
  Config root{"config.json"};
  std::map<std::string, Config> modules;
  std::map<std::string, std::string> files;  ///< module -> file name relative to `directory`
};

GlobalConfig::GlobalConfig() : impl_(std::make_unique<Impl>()) {}

GlobalConfig& GlobalConfig::instance() {
  static GlobalConfig* g = new GlobalConfig();  // used by plugins until exit; never destroyed
  return *g;
}

void GlobalConfig::load(const std::string& dir) {
  const auto root_path = (std::filesystem::path(dir) / "config.json").string();
  set_root(Config::load(root_path), dir);
}

void GlobalConfig::set_root(const Config& root, const std::string& dir) {
  auto next = std::make_unique<Impl>();
  next->directory = dir;
  next->root = root;
  // Every "config_*" key names a module file relative to the root's directory.
  for (const auto& key : root.keys("")) {
    if (key.rfind("config_", 0) != 0) continue;
    const auto file = next->root.get_required<std::string>(key);
    const auto path = std::filesystem::path(dir) / file;
    next->modules.emplace(key, Config::load(path.string()));
    next->files[key] = path.filename().string();
  }
  impl_ = std::move(next);
}

void GlobalConfig::set_module(const std::string& module, const Config& config, const std::string& file) {
  impl_->modules.erase(module);
  impl_->files.erase(module);
  impl_->modules.emplace(module, config);
  if (!file.empty()) impl_->files[module] = file;
}

const std::string& GlobalConfig::directory() const { return impl_->directory; }

Config& GlobalConfig::root() { return impl_->root; }

Config& GlobalConfig::module(const std::string& module) {
  auto found = impl_->modules.find(module);
  if (found == impl_->modules.end()) found = impl_->modules.emplace(module, Config(module + " (not configured)")).first;
  return found->second;
}

bool GlobalConfig::has_module(const std::string& module) const { return impl_->modules.count(module) > 0; }

std::vector<std::string> GlobalConfig::module_names() const {
  std::vector<std::string> names;
  for (const auto& [name, config] : impl_->modules) names.push_back(name);
  return names;
}

bool GlobalConfig::dump_effective(const std::string& dir, std::string* error) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    if (error) *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream out(std::filesystem::path(dir) / file);
    out << text << "\n";
    if (!out) {
      if (error) *error = "cannot write " + (std::filesystem::path(dir) / file).string();
      return false;
    }
    return true;
  };
  if (!write("config.json", impl_->root.effective_json())) return false;
  for (const auto& [name, config] : impl_->modules) {
    const auto file = impl_->files.find(name);
    if (!write(file != impl_->files.end() ? file->second : name + ".json", config.effective_json())) return false;
  }
  return true;
}

std::size_t GlobalConfig::warn_unknown_keys() const {
  auto logger = module_logger("config");
  std::size_t count = impl_->root.warn_unknown_keys(*logger);
  for (const auto& [name, config] : impl_->modules) count += config.warn_unknown_keys(*logger);
  return count;
}

void GlobalConfig::apply_override(const std::string& text) {
  const auto eq = text.find('=');
  const auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    throw ConfigError("--set '" + text + "': expected FILE.KEY=VALUE, e.g. config_ros.imu_topic=/imu or config_odometry.preprocess.min_distance=1.0");
  }
  const std::string module_name = text.substr(0, dot);
  const std::string key = text.substr(dot + 1, eq - dot - 1);
  const std::string value = text.substr(eq + 1);
  if (module_name == "config") {
    impl_->root.set(key, value);
    return;
  }
  if (!has_module(module_name)) {
    std::string known;
    for (const auto& m : module_names()) known += " " + m;
    throw ConfigError("--set '" + text + "': no config file '" + module_name + "' (known: config" + known + ")");
  }
  module(module_name).set(key, value);
}

void GlobalConfig::clear() { impl_ = std::make_unique<Impl>(); }

}  // namespace asuka
