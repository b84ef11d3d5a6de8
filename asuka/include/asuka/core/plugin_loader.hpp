#pragma once
// The process-wide registry of plugin libraries (R-PLUG-2). Every library is opened once and never
// closed: objects, vtables and callbacks created by a plugin may outlive any owner we could track,
// and unloading code that a std::function or a thread still refers to is a crash.

#include <string>
#include <vector>

namespace asuka {

class PluginRegistry {
public:
  static PluginRegistry& instance();

  /// Resolves `so_name` to a library file. A name with a '/' is a path and used as is; otherwise it
  /// is looked up, in order, in the directories of $ASUKA_PLUGIN_PATH (':'-separated), the directory
  /// that holds libasuka.so, and then by the dynamic linker's own rules. A short name without
  /// "lib" prefix and ".so" suffix is tried with them too ("fastlio" ->
  /// "libasuka_odometry_fastlio.so" when `kind` is "odometry").
  std::vector<std::string> candidates(const std::string& so_name, const std::string& kind) const;

  /// Opens (or returns the already open) library. On failure returns nullptr and sets `error` to
  /// a message naming the file, the places searched and the dynamic linker's reason.
  void* open(const std::string& so_name, const std::string& kind, std::string* error);

  /// Looks up a symbol in an open library; nullptr and `error` set when missing.
  void* symbol(void* handle, const std::string& library, const std::string& name, std::string* error);

  /// Checks the plugin's ABI version symbol. False with `error` set when it is missing or differs.
  bool check_abi(void* handle, const std::string& library, std::string* error);

  /// Libraries opened so far (resolved file names), in the order they were opened.
  std::vector<std::string> loaded() const;

private:
  PluginRegistry() = default;
};

/// Opens a plugin, checks its ABI version and returns its factory symbol, or nullptr with
/// `error` set. Shared by OdometryEstimation::load_module and ExtensionModule::load_module.
void* load_plugin_factory(const std::string& so_name, const std::string& kind, const std::string& factory, std::string* error);

}  // namespace asuka
