// Test-only: a factory that returns null.
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/core/plugin_abi.hpp>

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::OdometryEstimation* create_odometry_estimation() { return nullptr; }
