// Test-only: a plugin built for another ABI version. The loader must refuse it before calling the
// factory (which would crash a real host if layouts differed).
#include <cstdlib>

#include <asuka/core/odometry_estimation.hpp>

extern "C" __attribute__((visibility("default"))) int asuka_plugin_abi_version() { return ASUKA_PLUGIN_ABI_VERSION_FOR_TEST; }
extern "C" asuka::OdometryEstimation* create_odometry_estimation() { std::abort(); }
