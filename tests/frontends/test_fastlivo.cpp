// fastlivo (#19): the whole pipeline on short simulated camera bags (asuka_sim with a camera ->
// asuka_rosbag's player and host -> fastlivo -> asuka_eval) against ground truth, next to fastlio on
// the same bag. The long accuracy and speed runs are in benchmarks/run_frontends.sh.

#include <cstdio>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/io/pcd_io.hpp>

#include "support/log_capture.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

using FastlivoTest = test::SimRunTest;

sim::SimParams camera_bag(const std::string& scene, double duration) {
  sim::SimParams p;
  p.scene = scene;
  p.duration = duration;
  p.camera.model = "pinhole";
  return p;
}

TEST_F(FastlivoTest, TexturedCorridorTheCameraCarriesTheDirectionTheLidarCannotSee) {
  const auto p = camera_bag("corridor_textured", 15.0);
  const auto lio = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_GT(livo.eval.coverage, 0.95);
  std::printf("corridor 15 s: fastlivo %.4f m, fastlio %.4f m\n", livo.eval.ate.rmse, lio.eval.ate.rmse);
}

TEST_F(FastlivoTest, CourtyardWithACameraIsAtLeastAsGoodAsFastlio) {
  const auto p = camera_bag("courtyard", 15.0);
  const auto lio = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_GT(livo.eval.coverage, 0.95);
  std::printf("courtyard 15 s: fastlivo %.4f m, fastlio %.4f m\n", livo.eval.ate.rmse, lio.eval.ate.rmse);
}

}  // namespace
}  // namespace asuka
