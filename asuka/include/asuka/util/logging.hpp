#pragma once
// One spdlog logger per module (R-OUT-2): "ros", "odom", "exec", "config", "plugin", one per
// frontend and extension. Messages go to stderr with the module name, so each layer is identifiable;
// library code never prints to stdout.

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace asuka {

class Config;

/// The logger of `module`, created on first use with the level configured for it.
std::shared_ptr<spdlog::logger> module_logger(const std::string& module);

/// Applies "log_level" (default level) and "log_levels" ({module: level}) from a root config to
/// existing and future module loggers. Levels: trace, debug, info, warn, error, critical, off.
/// Throws ConfigError for an unknown level name.
void configure_logging(const Config& root);

/// Sets the level of one module (and of future loggers with that name).
void set_module_log_level(const std::string& module, spdlog::level::level_enum level);

}  // namespace asuka
