// The superlio plugin's single entry point (R-PLUG-3).
#include <asuka/config/config.hpp>
#include <asuka/core/plugin_abi.hpp>

#include "superlio.hpp"

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::OdometryEstimation* create_odometry_estimation() {
  const auto& config = asuka::GlobalConfig::instance().module("config_odometry");
  return new asuka::superlio::SuperLio(asuka::superlio::SuperlioParams::from_config(config));
}
