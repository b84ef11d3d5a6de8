// Module loggers (R-OUT-2): one named logger per module, level from config.

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {
namespace {

TEST(LoggingTest, R_OUT_2_OneNamedLoggerPerModule) {
  auto odom = module_logger("odom");
  auto ros = module_logger("ros");
  EXPECT_EQ(odom->name(), "odom");
  EXPECT_EQ(ros->name(), "ros");
  EXPECT_EQ(module_logger("odom").get(), odom.get());  // created once, then shared
}

TEST(LoggingTest, R_OUT_2_LevelsFromConfig) {
  auto exec = module_logger("exec");
  const auto root = Config::parse(R"({"log_level": "warn", "log_levels": {"exec": "debug", "later_module": "error"}})", "config.json");
  configure_logging(root);
  EXPECT_EQ(exec->level(), spdlog::level::debug);
  EXPECT_EQ(module_logger("ros")->level(), spdlog::level::warn);
  EXPECT_EQ(module_logger("later_module")->level(), spdlog::level::err);  // applies to future loggers
  EXPECT_TRUE(root.unknown_keys().empty());

  const auto bad = Config::parse(R"({"log_level": "verbose"})", "config.json");
  try {
    configure_logging(bad);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown log level 'verbose'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asuka
