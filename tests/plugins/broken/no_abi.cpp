// Test-only: a plugin without the ABI version symbol. Its factory must never be called.
#include <cstdlib>

#include <asuka/core/odometry_estimation.hpp>

extern "C" asuka::OdometryEstimation* create_odometry_estimation() { std::abort(); }
