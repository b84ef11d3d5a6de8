#pragma once
// The binary contract between the host and its plugins (frontends and extensions).
//
// A plugin is a shared library that exports, with C linkage:
//   int asuka_plugin_abi_version();                      // via ASUKA_PLUGIN_EXPORT_ABI_VERSION()
//   asuka::OdometryEstimation* create_odometry_estimation();   // frontends
//   asuka::ExtensionModule*    create_extension_module();      // extensions
// The loader checks the version before it calls the factory: a plugin built against other
// headers would otherwise crash on its first virtual call. Bump ASUKA_PLUGIN_ABI_VERSION whenever a
// class that crosses the boundary (OdometryEstimation, ExtensionModule, CloudPreprocessor,
// ImuInitialization, the types in types.hpp, the callback slots) changes layout or virtual methods.

#define ASUKA_PLUGIN_ABI_VERSION 9  // 2: EstimationFrame::T_imu_lidar; 3: LidarFrame, StreamId, CloudPreprocessor, ImuInitialization;
                                    // 4: Image, OdometryEstimation::insert_image, on_insert_image; 5: EstimationFrame::point_colours;
                                    // 6: EstimationFrame::points_dense_imu; 7: OdometryEstimation::map_points;
                                    // 8: EstimationFrame::map_points, processing_cpu_seconds;
                                    // 9: EstimationFrame::extrinsic_check

#define ASUKA_PLUGIN_ABI_SYMBOL "asuka_plugin_abi_version"

/// Put once in a plugin's create.cpp.
#define ASUKA_PLUGIN_EXPORT_ABI_VERSION()                                          \
  extern "C" __attribute__((visibility("default"))) int asuka_plugin_abi_version() { \
    return ASUKA_PLUGIN_ABI_VERSION;                                                \
  }
