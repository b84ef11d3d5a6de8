#include <asuka/core/odometry_estimation.hpp>

#include <exception>

#include <asuka/core/plugin_loader.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {

OdometryEstimation::Ptr OdometryEstimation::load_module(const std::string& so_name, std::string* error) {
  auto logger = module_logger("odom");
  std::string message;
  auto* factory = reinterpret_cast<AsukaCreateOdometryEstimationFn>(load_plugin_factory(so_name, "odometry", "create_odometry_estimation", &message));

  OdometryEstimation* instance = nullptr;
  if (factory) {
    // A frontend constructor reads its config and may throw (ConfigError); that is a load failure
    // with the constructor's message, not a crash.
    try {
      instance = factory();
      if (instance == nullptr) message = "create_odometry_estimation() of '" + so_name + "' returned null";
    } catch (const std::exception& e) {
      message = "creating frontend '" + so_name + "' failed: " + e.what();
    } catch (...) {
      message = "creating frontend '" + so_name + "' failed with a non-standard exception";
    }
  }

  if (instance == nullptr) {
    logger->error("{}", message);
    if (error) *error = message;
    return nullptr;
  }
  logger->info("frontend loaded from '{}'", so_name);
  return Ptr(instance);
}

}  // namespace asuka
