#include <asuka/util/logging.hpp>

#include <map>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <asuka/config/config.hpp>

namespace asuka {

namespace {

struct LogLevels {
  std::mutex mutex;
  spdlog::level::level_enum default_level = spdlog::level::info;
  std::map<std::string, spdlog::level::level_enum> per_module;
};

LogLevels& levels() {
  static LogLevels* l = new LogLevels();  // outlives plugins that log from static destructors
  return *l;
}

spdlog::level::level_enum parse_level(const std::string& name, const std::string& where) {
  static const std::map<std::string, spdlog::level::level_enum> names = {
    {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
    {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
    {"off", spdlog::level::off},
  };
  const auto found = names.find(name);
  if (found == names.end()) {
    throw ConfigError(where + ": unknown log level '" + name + "'; expected one of trace, debug, info, warn, error, critical, off");
  }
  return found->second;
}

}  // namespace

std::shared_ptr<spdlog::logger> module_logger(const std::string& module) {
  auto& l = levels();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (auto existing = spdlog::get(module)) return existing;

  auto logger = spdlog::stderr_color_mt(module);
  const auto found = l.per_module.find(module);
  logger->set_level(found != l.per_module.end() ? found->second : l.default_level);
  logger->set_pattern("[%H:%M:%S.%e] [%n] [%^%l%$] %v");
  return logger;
}

void set_module_log_level(const std::string& module, spdlog::level::level_enum level) {
  auto& l = levels();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.per_module[module] = level;
  if (auto existing = spdlog::get(module)) existing->set_level(level);
}

void configure_logging(const Config& root) {
  const auto default_level = parse_level(root.get<std::string>("log_level", "info"), root.name() + ": key 'log_level'");
  std::map<std::string, spdlog::level::level_enum> per_module;
  root.mark_known("log_levels");  // an empty object is valid: no per-module levels
  for (const auto& module : root.keys("log_levels")) {
    const std::string key = "log_levels." + module;
    per_module[module] = parse_level(root.get_required<std::string>(key), root.name() + ": key '" + key + "'");
  }

  auto& l = levels();
  {
    std::lock_guard<std::mutex> lock(l.mutex);
    l.default_level = default_level;
    for (const auto& [module, level] : per_module) l.per_module[module] = level;
    per_module = l.per_module;
  }
  // Not under l.mutex: apply_all holds spdlog's registry lock, which module_logger takes after ours.
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& logger) {
    const auto found = per_module.find(logger->name());
    logger->set_level(found != per_module.end() ? found->second : default_level);
  });
}

}  // namespace asuka
