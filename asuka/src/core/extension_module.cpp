#include <asuka/core/extension_module.hpp>

#include <exception>
#include <stdexcept>

#include <asuka/config/config.hpp>
#include <asuka/core/plugin_loader.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {

ExtensionModule::Ptr ExtensionModule::load_module(const std::string& so_name, std::string* error) {
  auto logger = module_logger("extension");
  std::string message;
  auto* factory = reinterpret_cast<AsukaCreateExtensionModuleFn>(load_plugin_factory(so_name, "extension", "create_extension_module", &message));

  ExtensionModule* instance = nullptr;
  if (factory) {
    try {
      instance = factory();
      if (instance == nullptr) message = "create_extension_module() of '" + so_name + "' returned null";
    } catch (const std::exception& e) {
      message = "creating extension '" + so_name + "' failed: " + e.what();
    } catch (...) {
      message = "creating extension '" + so_name + "' failed with a non-standard exception";
    }
  }

  if (instance == nullptr) {
    logger->error("{}", message);
    if (error) *error = message;
    return nullptr;
  }
  logger->info("extension loaded from '{}'", so_name);
  return Ptr(instance);
}

std::vector<ExtensionModule::Ptr> ExtensionModule::load_from_config() {
  const auto names = GlobalConfig::instance().root().get<std::vector<std::string>>("extensions", {});
  std::vector<Ptr> modules;
  for (const auto& name : names) {
    std::string error;
    auto module = load_module(name, &error);
    // The list may come from the file or from --set config.extensions=[...] (a ROS parameter ~config/extensions).
    if (!module) {
      throw std::runtime_error("extension '" + name + "' (config.extensions, from " + GlobalConfig::instance().root().name() +
                               " or --set) cannot be loaded: " + error + ". An installed extension is named without a path, e.g. \"imu_prediction\"");
    }
    modules.push_back(std::move(module));
  }
  return modules;
}

}  // namespace asuka
