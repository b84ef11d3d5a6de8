// Extension modules (R-CB-2, R-EXEC-11): loaded by name like frontends, subscribe to slots, ok().

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/async_odometry_estimation.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/core/extension_module.hpp>

#include "test_support.hpp"

namespace asuka::test {
namespace {

using ReadCountsFn = void (*)(int*);
using SetOkFn = void (*)(bool);

std::string counter_path() { return plugin_path("libasuka_extension_fake_counter.so"); }

TEST(ExtensionModuleTest, R_CB_2_ExtensionSubscribesToSlotsAndReportsHealth) {
  std::string error;
  auto extension = ExtensionModule::load_module(counter_path(), &error);
  ASSERT_TRUE(extension) << error;
  auto read = plugin_function<ReadCountsFn>(counter_path(), "asuka_fake_counter_read");
  auto set_ok = plugin_function<SetOkFn>(counter_path(), "asuka_fake_counter_set_ok");

  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"fake": {"process_steps_per_event": 1}})", "c.json"));
  FakeProbe* probe = nullptr;
  auto odometry = load_fake(&probe);
  {
    AsyncOdometryEstimation async(odometry);
    ImuData imu;
    imu.stamp = 0.1;
    async.insert_imu(imu);
    auto frame = std::make_shared<LidarFrame>();
    frame->stamp = 0.2;
    async.insert_frame(frame);
    ASSERT_TRUE(async.wait_for(std::chrono::seconds(10)));
  }
  int counts[3] = {0, 0, 0};
  read(counts);
  EXPECT_EQ(counts[0], 1);  // on_insert_imu
  EXPECT_EQ(counts[1], 1);  // on_insert_frame
  EXPECT_EQ(counts[2], 1);  // on_new_frame, emitted by the frontend

  EXPECT_TRUE(extension->ok());
  set_ok(false);
  EXPECT_FALSE(extension->ok());
  set_ok(true);

  extension.reset();  // disconnects: no more counting
  OdometryCallbacks::on_insert_imu(ImuData());
  read(counts);
  EXPECT_EQ(counts[0], 1);
  GlobalConfig::instance().clear();
}

TEST(ExtensionModuleTest, R_CB_2_LoadErrorsAreClear) {
  std::string error;
  EXPECT_FALSE(ExtensionModule::load_module(plugin_path("libasuka_extension_missing.so"), &error));
  EXPECT_NE(error.find("cannot load extension plugin"), std::string::npos) << error;

  // A frontend library is not an extension: it lacks the extension factory.
  EXPECT_FALSE(ExtensionModule::load_module(fake_frontend_path(), &error));
  EXPECT_NE(error.find("create_extension_module"), std::string::npos) << error;

  EXPECT_FALSE(ExtensionModule::load_module(plugin_path("libasuka_odometry_wrong_abi.so"), &error));
  EXPECT_NE(error.find("ABI version 999"), std::string::npos) << error;
}

TEST(ExtensionModuleTest, R_CB_2_LoadFromConfigByName) {
  ::setenv("ASUKA_PLUGIN_PATH", ASUKA_TEST_PLUGIN_DIR, 1);
  auto& global = GlobalConfig::instance();
  global.set_root(Config::parse(R"({"extensions": ["fake_counter"]})", "config.json"), ".");
  auto modules = ExtensionModule::load_from_config();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_TRUE(modules[0]->ok());

  global.set_root(Config::parse(R"({"extensions": ["fake_counter", "no_such_extension"]})", "config.json"), ".");
  try {
    ExtensionModule::load_from_config();
    FAIL() << "expected an error for the missing extension";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    // #16: the list may come from --set as well as from the file; an installed one is named without a path.
    EXPECT_NE(what.find("extension 'no_such_extension' (config.extensions, from config.json or --set) cannot be loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("named without a path"), std::string::npos) << what;
    EXPECT_NE(what.find("libasuka_extension_no_such_extension.so"), std::string::npos) << what;
  }
  global.clear();
  ::unsetenv("ASUKA_PLUGIN_PATH");
}

}  // namespace
}  // namespace asuka::test
