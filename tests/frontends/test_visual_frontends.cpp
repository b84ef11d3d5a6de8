// The camera faults for every visual frontend (fastlivo #19, srlivo #20): each on a short simulated
// camera bag, with its named warning, no crash and the trajectory kept on track by the LiDAR-inertial
// update. Dropped images (image_gap), images stamped on another clock (visual_inconsistent, naming
// the setting), corrupt JPEGs (image_data), scans missing under the images, no camera configured, and
// a calibration of another resolution (image_size). The LiDAR fault suite runs on every frontend in
// test_bags.cpp.

#include <string>

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>

#include "support/log_capture.hpp"
#include "support/sim_run.hpp"
#include "support/visual_checks.hpp"

namespace asuka {
namespace {

class VisualFrontendFaultTest : public test::SimRunTest, public ::testing::WithParamInterface<std::string> {
protected:
  std::string odometry() const { return R"({"so_name": ")" + GetParam() + R"("})"; }
};

std::size_t warnings(const test::SimRun& run, const std::string& kind) {
  const auto it = run.stats.warnings.find(kind);
  return it == run.stats.warnings.end() ? 0u : it->second;
}

TEST_P(VisualFrontendFaultTest, DroppedImagesAreNamedAndCostNothing) {
  auto p = test::camera_bag("courtyard", 10.0, 3);
  p.camera.drop_every = 3;
  test::LogCapture log(GetParam());
  const auto livo = simulate_and_run(p, "livox", odometry());
  EXPECT_TRUE(livo.ok);
  EXPECT_LT(livo.eval.ate.rmse, 0.01);
  EXPECT_TRUE(log.contains("image_gap: no image for 0.200 s")) << log.text();
}

TEST_P(VisualFrontendFaultTest, ImagesOnAnotherClockAreNamedWithTheSettingToChange) {
  auto p = test::camera_bag("courtyard", 10.0, 3);
  p.camera.time_offset = 0.04;  // the images are stamped 40 ms late
  test::LogCapture log(GetParam());
  const auto livo = simulate_and_run(p, "livox", odometry());
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("visual_inconsistent")) << log.text();
  EXPECT_TRUE(log.contains("time_offset_camera_to_imu")) << log.text();
}

TEST_P(VisualFrontendFaultTest, CorruptJpegsAreSkippedWithAWarningAndTheRunGoesOn) {
  auto p = test::camera_bag("courtyard", 10.0, 3);
  p.camera.format = "jpeg";
  p.camera.corrupt_jpeg_every = 5;
  const auto livo = simulate_and_run(p, "livox", odometry());
  EXPECT_TRUE(livo.ok);
  EXPECT_GE(warnings(livo, "image_data"), 15u);
  EXPECT_LT(livo.eval.ate.rmse, 0.01);
}

TEST_P(VisualFrontendFaultTest, ImagesWithoutLidarForAWhileKeepTheStateOnTrack) {
  auto p = test::camera_bag("courtyard", 10.0, 3);
  p.faults.drop_frame_every = 4;  // every 4th scan is missing: images with no LiDAR points before them
  const auto livo = simulate_and_run(p, "livox", odometry());
  EXPECT_TRUE(livo.ok);
  EXPECT_LT(livo.eval.ate.rmse, 0.02);
}

TEST_P(VisualFrontendFaultTest, WithoutACameraItIsTheLidarInertialFilterAndSaysSo) {
  sim::SimParams p;
  p.duration = 10.0;
  p.seed = 3;
  const auto bag = simulate(p);
  const auto lio = run(bag, p, "livox", R"({"so_name": "fastlio"})");
  test::LogCapture log(GetParam());
  const auto livo = run(bag, p, "livox", odometry());
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("no sensor.camera block in the configuration")) << log.text();
  EXPECT_LT(livo.eval.ate.rmse, 1.2 * lio.eval.ate.rmse + 0.001);
}

TEST_P(VisualFrontendFaultTest, ImagesOfTheWrongSizeAreNamedAndSkipped) {
  auto p = test::camera_bag("courtyard", 8.0, 3);
  test::LogCapture log(GetParam());
  const std::string camera = sim::camera_block_json(sim::make_camera("pinhole"));
  // The calibration of a 1280 x 1024 camera for 640 x 512 images: a wrong topic or calibration.
  std::string wrong = camera;
  wrong.replace(wrong.find("\"height\":512"), 12, "\"height\":1024");
  wrong.replace(wrong.find("\"width\":640"), 11, "\"width\":1280");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": ")" + GetParam() + R"(", "sensor": {"camera": )" + wrong + "}}");
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("image_size: the image at")) << log.text();
  EXPECT_TRUE(log.contains("is 640x512 but sensor.camera says 1280x1024")) << log.text();
  EXPECT_LT(livo.eval.ate.rmse, 0.02);
}

INSTANTIATE_TEST_SUITE_P(VisualFrontends, VisualFrontendFaultTest, ::testing::Values("fastlivo", "srlivo"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

}  // namespace
}  // namespace asuka
