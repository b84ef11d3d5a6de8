#pragma once
// Optional modules loaded by name from the root config (R-CB-2): trajectory writers, publishers,
// imu_prediction... An extension subscribes to callback slots in its constructor and must
// disconnect in its destructor (hold ScopedConnection members). Disconnecting does not wait for a
// callback that is running right now, so a host destroys its extensions only after the executor
// has stopped (AsukaROS does). Its callbacks run on the thread
// that fires the slot (see callbacks.hpp), so state they share with ok() or with the host's
// thread needs its own synchronization.
//
// Plugins export, with C linkage:
//   ASUKA_PLUGIN_EXPORT_ABI_VERSION()
//   extern "C" asuka::ExtensionModule* create_extension_module();

#include <memory>
#include <string>
#include <vector>

namespace asuka {

class ExtensionModule {
public:
  using Ptr = std::shared_ptr<ExtensionModule>;

  virtual ~ExtensionModule() = default;

  /// Health of the module (R-EXEC-11): false once it has failed (e.g. cannot write its output).
  virtual bool ok() const { return true; }

  /// Called by the host after the executor has stopped, before the process ends: write outputs
  /// into `output_dir`. Returns false on failure.
  virtual bool save(const std::string& output_dir) {
    (void)output_dir;
    return true;
  }

  /// Loads one extension ("trajectory_writer", "libasuka_extension_trajectory_writer.so" or a
  /// path), with the same registry and ABI rules as frontends. nullptr and `error` set on failure.
  static Ptr load_module(const std::string& so_name, std::string* error = nullptr);

  /// Loads every extension listed in the root config's "extensions" array. Throws
  /// std::runtime_error naming the first one that cannot be loaded: a configured extension that is
  /// silently missing would be worse than not starting.
  static std::vector<Ptr> load_from_config();
};

}  // namespace asuka

extern "C" {
typedef asuka::ExtensionModule* (*AsukaCreateExtensionModuleFn)();
}
