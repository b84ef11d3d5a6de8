// Test-only: a plugin with the ABI symbol but no create_odometry_estimation / create_extension_module.
#include <asuka/core/plugin_abi.hpp>

ASUKA_PLUGIN_EXPORT_ABI_VERSION()
