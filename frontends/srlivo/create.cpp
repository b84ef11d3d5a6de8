// The srlivo plugin's single entry point (R-PLUG-3).
#include <asuka/config/config.hpp>
#include <asuka/core/plugin_abi.hpp>

#include "srlivo.hpp"

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::OdometryEstimation* create_odometry_estimation() {
  const auto& config = asuka::GlobalConfig::instance().module("config_odometry");
  return new asuka::srlivo::SrLivo(asuka::srlivo::SrlivoParams::from_config(config));
}
