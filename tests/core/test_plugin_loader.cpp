// Plugin loading (R-PLUG-1..5): registry, ABI check, clear errors, never a crash.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/core/plugin_abi.hpp>
#include <asuka/core/plugin_loader.hpp>

#include "test_support.hpp"

namespace asuka::test {
namespace {

std::string load_error(const std::string& so_name) {
  std::string error;
  auto odometry = OdometryEstimation::load_module(so_name, &error);
  EXPECT_FALSE(odometry) << so_name << " should not load";
  return error;
}

TEST(PluginLoaderTest, R_PLUG_2_LoadsAFrontendThroughItsFactory) {
  std::string error;
  auto odometry = OdometryEstimation::load_module(fake_frontend_path(), &error);
  ASSERT_TRUE(odometry) << error;
  EXPECT_TRUE(error.empty());
  // R-PLUG-1: the base contract with defaults the fake does not override would still hold.
  EXPECT_TRUE(odometry->ok());
  EXPECT_EQ(odometry->workload(), 0);
  EXPECT_FALSE(odometry->process_once());
  // R-PLUG-4: the host can take the frontend's cloud preprocessor.
  ASSERT_TRUE(odometry->cloud_preprocessor());
  LidarFrame raw;
  raw.stamp = 1.0;
  EXPECT_TRUE(odometry->cloud_preprocessor()->preprocess(raw)->points.empty());
}

TEST(PluginLoaderTest, R_PLUG_2_LibraryIsOpenedOnceAndNeverClosed) {
  auto a = OdometryEstimation::load_module(fake_frontend_path());
  auto* probe_a = fake_probe();
  auto b = OdometryEstimation::load_module(fake_frontend_path());
  auto* probe_b = fake_probe();
  ASSERT_TRUE(a && b);
  EXPECT_NE(a.get(), b.get());      // each load creates a new instance
  EXPECT_NE(probe_a, probe_b);
  std::string error;
  void* h1 = PluginRegistry::instance().open(fake_frontend_path(), "odometry", &error);
  void* h2 = PluginRegistry::instance().open(fake_frontend_path(), "odometry", &error);
  EXPECT_EQ(h1, h2);
  a.reset();
  b.reset();
  // Instances are gone but the library stays: its code can still be called.
  EXPECT_NE(fake_probe(), nullptr);
  const auto loaded = PluginRegistry::instance().loaded();
  EXPECT_EQ(std::count(loaded.begin(), loaded.end(), fake_frontend_path()), 1);
}

TEST(PluginLoaderTest, R_PLUG_5_ShortNameIsFoundThroughPluginPath) {
  ::setenv("ASUKA_PLUGIN_PATH", ASUKA_TEST_PLUGIN_DIR, 1);
  const auto candidates = PluginRegistry::instance().candidates("fake", "odometry");
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), plugin_path("libasuka_odometry_fake.so"));
  std::string error;
  auto odometry = OdometryEstimation::load_module("fake", &error);
  EXPECT_TRUE(odometry) << error;
  ::unsetenv("ASUKA_PLUGIN_PATH");
}

TEST(PluginLoaderTest, R_PLUG_2_MissingFileIsAClearError) {
  const auto error = load_error(plugin_path("libasuka_odometry_does_not_exist.so"));
  EXPECT_NE(error.find("cannot load odometry plugin"), std::string::npos) << error;
  EXPECT_NE(error.find("libasuka_odometry_does_not_exist.so"), std::string::npos) << error;

  const auto short_error = load_error("nonexistent_frontend");
  EXPECT_NE(short_error.find("libasuka_odometry_nonexistent_frontend.so"), std::string::npos) << short_error;
  EXPECT_NE(short_error.find("ASUKA_PLUGIN_PATH"), std::string::npos) << short_error;

  EXPECT_NE(load_error("").find("empty plugin name"), std::string::npos);
}

TEST(PluginLoaderTest, R_PLUG_2_FileThatIsNotALibraryIsAClearError) {
  const auto path = std::filesystem::temp_directory_path() / ("asuka_not_a_library_" + std::to_string(::getpid()) + ".so");
  std::ofstream(path) << "this is not an ELF file";
  const auto error = load_error(path.string());
  std::filesystem::remove(path);
  EXPECT_NE(error.find(path.string()), std::string::npos) << error;
  EXPECT_NE(error.find("reason:"), std::string::npos) << error;
}

TEST(PluginLoaderTest, R_PLUG_2_MissingAbiSymbolIsRefusedBeforeTheFactoryRuns) {
  // The factory of this plugin aborts: reaching it would kill the test.
  const auto error = load_error(plugin_path("libasuka_odometry_no_abi.so"));
  EXPECT_NE(error.find("asuka_plugin_abi_version"), std::string::npos) << error;
}

TEST(PluginLoaderTest, R_PLUG_2_WrongAbiVersionIsRefusedBeforeTheFactoryRuns) {
  const auto error = load_error(plugin_path("libasuka_odometry_wrong_abi.so"));
  EXPECT_NE(error.find("ABI version 999"), std::string::npos) << error;
  EXPECT_NE(error.find("expects version " + std::to_string(ASUKA_PLUGIN_ABI_VERSION)), std::string::npos) << error;
}

TEST(PluginLoaderTest, R_PLUG_3_MissingFactorySymbolIsAClearError) {
  const auto error = load_error(plugin_path("libasuka_odometry_no_factory.so"));
  EXPECT_NE(error.find("does not export symbol 'create_odometry_estimation'"), std::string::npos) << error;
}

TEST(PluginLoaderTest, R_PLUG_3_NullFromFactoryIsAClearError) {
  const auto error = load_error(plugin_path("libasuka_odometry_null_factory.so"));
  EXPECT_NE(error.find("returned null"), std::string::npos) << error;
}

TEST(PluginLoaderTest, R_PLUG_3_ConstructorReadsConfigAndItsErrorsAreReported) {
  auto& global = GlobalConfig::instance();
  global.set_module("config_odometry", Config::parse(R"({"fake": {"process_steps_per_event": 4}})", "config_odometry_fake.json"));
  auto odometry = OdometryEstimation::load_module(fake_frontend_path());
  ASSERT_TRUE(odometry);
  {
    auto* probe = fake_probe();
    std::lock_guard<std::mutex> lock(probe->mutex);
    EXPECT_EQ(probe->process_steps_per_event, 4);
  }

  global.set_module("config_odometry", Config::parse(R"({"fake": {"fail_in_constructor": true}})", "config_odometry_fake.json"));
  const auto error = load_error(fake_frontend_path());
  EXPECT_NE(error.find("creating frontend"), std::string::npos) << error;
  EXPECT_NE(error.find("config_odometry_fake.json: fake.fail_in_constructor"), std::string::npos) << error;
  global.clear();
}

}  // namespace
}  // namespace asuka::test
