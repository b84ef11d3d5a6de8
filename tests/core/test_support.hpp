#pragma once
// Helpers shared by the core tests: loading the fake frontend and reaching its probe.

#include <string>

#include <gtest/gtest.h>

#include <asuka/core/odometry_estimation.hpp>
#include <asuka/core/plugin_loader.hpp>

#include "plugins/fake_frontend/fake_probe.hpp"

namespace asuka::test {

inline std::string plugin_path(const std::string& file) { return std::string(ASUKA_TEST_PLUGIN_DIR) + "/" + file; }

inline std::string fake_frontend_path() { return plugin_path("libasuka_odometry_fake.so"); }

/// Looks up a C function exported by a test plugin (through the same registry load_module uses).
template <typename Fn>
Fn plugin_function(const std::string& library, const std::string& name) {
  std::string error;
  void* handle = PluginRegistry::instance().open(library, "", &error);
  EXPECT_NE(handle, nullptr) << error;
  if (!handle) return nullptr;
  void* sym = PluginRegistry::instance().symbol(handle, library, name, &error);
  EXPECT_NE(sym, nullptr) << error;
  return reinterpret_cast<Fn>(sym);
}

/// The probe of the most recently loaded fake frontend.
inline FakeProbe* fake_probe() { return plugin_function<AsukaFakeFrontendProbeFn>(fake_frontend_path(), "asuka_fake_frontend_probe")(); }

/// Loads a new fake frontend through load_module (R-PLUG-2) and returns it with its probe.
inline OdometryEstimation::Ptr load_fake(FakeProbe** probe) {
  std::string error;
  auto odometry = OdometryEstimation::load_module(fake_frontend_path(), &error);
  EXPECT_TRUE(odometry) << error;
  *probe = fake_probe();
  return odometry;
}

}  // namespace asuka::test
