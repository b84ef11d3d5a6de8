#pragma once
// JSON configuration with typed getters (nlohmann_json stays inside the .cpp).
//
// Keys are dotted paths into the document ("preprocess.min_distance"). Every getter records the key
// as known and the value it returned (the file's or the default) into the effective config, so that
// (1) keys in the file that no module ever read can be warned as unknown (a typo such as
// "min_distnace" must not silently fall back to a default), and (2) the values a run really used can
// be saved beside its outputs. Errors throw ConfigError with a message naming the file, the key, the
// value found and what was expected.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace spdlog {
class logger;
}

namespace asuka {

class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Config {
public:
  /// An empty config named `name` (every getter returns its default).
  explicit Config(const std::string& name = "<empty>");
  ~Config();
  Config(const Config& other);
  Config& operator=(const Config& other);
  Config(Config&&) noexcept;
  Config& operator=(Config&&) noexcept;

  /// Reads a JSON file. Throws ConfigError for a missing or unreadable file, a parse error (with its
  /// byte position) or a top level that is not an object.
  static Config load(const std::string& path);
  /// Parses JSON text; `name` stands for the file name in messages.
  static Config parse(const std::string& json_text, const std::string& name);

  /// The file path (or name) used in messages.
  const std::string& name() const;

  bool has(const std::string& key) const;

  /// The value at `key` as compact JSON text, or "" when the key is absent. Does not mark it known.
  std::string value_json(const std::string& key) const;

  /// Member names of the object at `key` ("" = top level), sorted; empty when it is not an object.
  /// Does not mark anything as known.
  std::vector<std::string> keys(const std::string& key) const;

  /// Typed getter. Supported T: bool, int, std::int64_t, double, float, std::string,
  /// std::vector<double>, std::vector<std::string>, Eigen::Vector3d, Eigen::Matrix4d (a 4x4 row-major
  /// array of 16 numbers or an array of 4 rows). A missing key gives `default_value`; a value of the
  /// wrong type throws ConfigError. Integers accept only integral numbers, doubles accept any
  /// number; NaN and infinity are rejected.
  template <typename T>
  T get(const std::string& key, const T& default_value) const;

  /// Like get() but a missing key throws ConfigError.
  template <typename T>
  T get_required(const std::string& key) const;

  /// A number in [lo, hi]; outside throws ConfigError that states the range.
  double get_in_range(const std::string& key, double default_value, double lo, double hi) const;
  int get_in_range(const std::string& key, int default_value, int lo, int hi) const;

  /// A string that must be one of `allowed`; otherwise ConfigError listing the valid values.
  std::string get_enum(const std::string& key, const std::string& default_value, const std::vector<std::string>& allowed) const;

  /// Sets `key` to the JSON value `json_value` (or to the plain string when it is not valid JSON),
  /// creating intermediate objects. Used by command-line overrides (--set FILE.KEY=VALUE).
  void set(const std::string& key, const std::string& json_value);

  /// Marks a key (and everything below it) as known without reading it, for sections that another
  /// module reads or that are documentation ("_comment" keys are always known).
  void mark_known(const std::string& key) const;

  /// Leaf keys present in the file that no getter has read and that are not marked known.
  std::vector<std::string> unknown_keys() const;
  /// Logs each unknown key once on `logger` (warn) and returns how many there were.
  std::size_t warn_unknown_keys(spdlog::logger& logger) const;

  /// The values returned so far (file values and defaults), as indented JSON text.
  std::string effective_json() const;
  /// The whole document as read (plus overrides), as indented JSON text.
  std::string document_json() const;

  struct Impl;  ///< implementation detail (holds the JSON document)

private:
  std::unique_ptr<Impl> impl_;
};

/// The process-wide set of configs: a root config.json that names one file per module, e.g.
///   { "config_ros": "config_ros.json", "config_odometry": "config_odometry_fastlio.json",
///     "extensions": ["trajectory_writer"], "log_level": "info", "log_levels": {"exec": "debug"} }
/// Frontends read theirs from here in their constructor (their factory takes no arguments).
class GlobalConfig {
public:
  static GlobalConfig& instance();

  /// Loads `<dir>/config.json` and every "config_*" file it names (paths relative to `dir`).
  /// Throws ConfigError. Replaces what was loaded before.
  void load(const std::string& dir);
  /// Uses the given root config; module files it names are resolved relative to `dir`.
  void set_root(const Config& root, const std::string& dir);
  /// Adds or replaces a module config (tests, tools that build configs in code); `file` is the name
  /// dump_effective() writes it under (default `<module>.json`).
  void set_module(const std::string& module, const Config& config, const std::string& file = "");

  const std::string& directory() const;
  Config& root();
  /// The config of a module ("config_odometry", "config_ros", ...). A module the root does not name
  /// gives an empty config named after it (every getter returns its default).
  Config& module(const std::string& module);
  bool has_module(const std::string& module) const;
  std::vector<std::string> module_names() const;

  /// Writes the effective config of the root and of every module into `dir` (created if needed),
  /// each module under the file name the root gave it (`<module>.json` for modules set in code), so
  /// that the written folder can be loaded again. Returns false and sets `error` on failure.
  bool dump_effective(const std::string& dir, std::string* error = nullptr) const;
  /// Warns about unknown keys in every loaded config; returns their total count.
  std::size_t warn_unknown_keys() const;

  /// Applies one command-line override "FILE.KEY=VALUE": FILE is "config" (the root) or a loaded
  /// module ("config_ros", "config_odometry", ...), KEY a dotted path, VALUE JSON or a bare string.
  /// Throws ConfigError for a malformed text or an unknown FILE (listing the known ones).
  void apply_override(const std::string& text);

  /// Forgets everything (tests).
  void clear();

private:
  GlobalConfig();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asuka
