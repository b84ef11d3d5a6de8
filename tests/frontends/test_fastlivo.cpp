// fastlivo (#19): the whole pipeline on short simulated camera bags (asuka_sim with a camera ->
// asuka_rosbag's player and host -> fastlivo -> asuka_eval) against ground truth, next to fastlio on
// the same bag: the degenerate textured corridor, accuracy with a camera, the exposure estimate, a
// free-running camera at another rate, and each camera fault with its named warning. The unit tests
// of the visual blocks are in tests/visual; the long accuracy and speed runs in
// benchmarks/run_visual.sh.

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/io/pcd_io.hpp>

#include "support/log_capture.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

using FastlivoTest = test::SimRunTest;

sim::SimParams camera_bag(const std::string& scene, double duration, std::uint64_t seed = 1) {
  sim::SimParams p;
  p.scene = scene;
  p.duration = duration;
  p.seed = seed;
  p.camera.model = "pinhole";
  return p;
}

std::size_t warnings(const test::SimRun& run, const std::string& kind) {
  const auto it = run.stats.warnings.find(kind);
  return it == run.stats.warnings.end() ? 0u : it->second;
}

TEST_F(FastlivoTest, TexturedCorridorTheCameraCarriesTheDirectionTheLidarCannotSee) {
  const auto p = camera_bag("corridor_textured", 15.0);
  const auto lio = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  std::printf("textured corridor 15 s: fastlivo %.2f cm, fastlio %.2f cm\n", livo.eval.ate.rmse * 100, lio.eval.ate.rmse * 100);
  // The bag is degenerate for the LiDAR (otherwise this test shows nothing) ...
  EXPECT_GT(lio.eval.ate.rmse, 0.10);
  // ... and the images constrain the direction along the corridor (#19: at most 2 cm).
  EXPECT_TRUE(livo.ok);
  EXPECT_GT(livo.eval.coverage, 0.95);
  EXPECT_LT(livo.eval.ate.rmse, 0.02);
}

TEST_F(FastlivoTest, CourtyardTheCameraAddsAccuracyAndTheExposureIsEstimated) {
  const auto p = camera_bag("courtyard", 15.0);
  const auto lio = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  // The frames of a moving camera carry their points' colours (what asuka_rosnode publishes on
  // /asuka/cloud_coloured): one per point, most of them seen by the camera ahead.
  std::atomic<std::size_t> frames{0}, coloured_frames{0}, seen{0}, scan_points{0};
  ScopedConnection connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) {
    ++frames;
    if (!f->point_colours || !f->points_imu || f->point_colours->size() != f->points_imu->size()) return;
    ++coloured_frames;
    scan_points += f->points_imu->size();
    for (const auto& c : *f->point_colours) seen += c[3] == 255 ? 1u : 0u;
  });
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  connection.disconnect();
  // A frame is coloured when the camera moved 0.25 m or turned 5 deg since the last coloured one:
  // dozens of times on a 15 s walk.
  EXPECT_GE(coloured_frames.load(), 20u);
  EXPECT_LT(coloured_frames.load(), frames.load());
  EXPECT_GT(seen.load(), scan_points.load() / 3);
  std::printf("courtyard 15 s: fastlivo %.2f cm, fastlio %.2f cm\n", livo.eval.ate.rmse * 100, lio.eval.ate.rmse * 100);
  EXPECT_TRUE(livo.ok);
  EXPECT_GT(livo.eval.coverage, 0.95);
  EXPECT_LT(livo.eval.ate.rmse, 0.8 * lio.eval.ate.rmse);  // #19: the camera must add accuracy

  // The inverse exposure of every image against the simulator's auto-exposure (+-40 %), relative to
  // the first image (the gauge).
  std::ifstream sim_json(dir / "sim" / "sim.json");
  const auto sim = nlohmann::json::parse(sim_json);
  std::map<long long, double> exposure;  // by image time in 0.1 ms
  for (const auto& image : sim["camera"]["images"]) exposure[std::llround(image["time_s"].get<double>() * 1e4)] = image["exposure_s"].get<double>();
  std::ifstream csv(dir / "exposure.csv");
  ASSERT_TRUE(csv.good());
  std::string line;
  double first_exposure = 0.0, error_sum = 0.0, error_max = 0.0, true_min = 1e9, true_max = 0.0;
  std::size_t n = 0;
  while (std::getline(csv, line)) {
    if (line.empty() || line[0] == '#') continue;
    double t = 0.0, tau = 0.0;
    char comma = 0;
    std::istringstream(line) >> t >> comma >> tau;
    const auto it = exposure.find(std::llround(t * 1e4));
    ASSERT_NE(it, exposure.end()) << "no simulated image at " << line;
    if (n == 0) first_exposure = it->second;
    const double relative_exposure = it->second / first_exposure;  // the true tau is its inverse
    const double error = std::abs(tau * relative_exposure - 1.0);
    error_sum += error;
    error_max = std::max(error_max, error);
    true_min = std::min(true_min, relative_exposure);
    true_max = std::max(true_max, relative_exposure);
    ++n;
  }
  ASSERT_GT(n, 100u);
  std::printf("inverse exposure: mean relative error %.2f %%, max %.2f %% (the exposure varied %.2f-%.2f)\n", 100 * error_sum / n, 100 * error_max,
              true_min, true_max);
  EXPECT_GT(true_max / true_min, 1.5);  // it did vary
  EXPECT_LT(error_sum / static_cast<double>(n), 0.04);
  EXPECT_LT(error_max, 0.08);

  // The coloured map: x y z rgb.
  std::ifstream pcd(dir / "map.pcd");
  bool rgb = false;
  for (std::string header_line; std::getline(pcd, header_line) && header_line.rfind("DATA", 0) != 0;) rgb = rgb || header_line == "FIELDS x y z rgb";
  EXPECT_TRUE(rgb);
  std::vector<Eigen::Vector3f> points;
  ASSERT_TRUE(read_pcd((dir / "map.pcd").string(), points));
  EXPECT_GT(points.size(), 1000u);
}

TEST_F(FastlivoTest, AFreeRunningCameraAtAnotherRateGivesPosesAtItsRate) {
  auto p = camera_bag("courtyard", 12.0, 3);
  p.camera.free_running = true;
  p.camera.rate = 15.0;
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_LT(livo.eval.ate.rmse, 0.01);
  ASSERT_GT(livo.trajectory.size(), 2u);
  // The state is estimated at every image time: 15 poses per second, not the lidar's 10.
  const double span = livo.trajectory.back().stamp - livo.trajectory.front().stamp;
  const double rate = static_cast<double>(livo.trajectory.size() - 1) / span;
  std::printf("free-running 15 Hz camera: %.1f poses/s\n", rate);
  EXPECT_NEAR(rate, 15.0, 0.5);
}

TEST_F(FastlivoTest, DroppedImagesAreNamedAndCostNothing) {
  auto p = camera_bag("courtyard", 10.0, 3);
  p.camera.drop_every = 3;
  test::LogCapture log("fastlivo");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_LT(livo.eval.ate.rmse, 0.01);
  EXPECT_TRUE(log.contains("image_gap: no image for 0.200 s")) << log.text();
}

TEST_F(FastlivoTest, ImagesOnAnotherClockAreNamedWithTheSettingToChange) {
  auto p = camera_bag("courtyard", 10.0, 3);
  p.camera.time_offset = 0.04;  // the images are stamped 40 ms late
  test::LogCapture log("fastlivo");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("visual_inconsistent")) << log.text();
  EXPECT_TRUE(log.contains("time_offset_camera_to_imu")) << log.text();
}

TEST_F(FastlivoTest, CorruptJpegsAreSkippedWithAWarningAndTheRunGoesOn) {
  auto p = camera_bag("courtyard", 10.0, 3);
  p.camera.format = "jpeg";
  p.camera.corrupt_jpeg_every = 5;
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_GE(warnings(livo, "image_data"), 15u);
  EXPECT_LT(livo.eval.ate.rmse, 0.01);
}

TEST_F(FastlivoTest, ImagesWithoutLidarForAWhileKeepTheStateOnTrack) {
  auto p = camera_bag("courtyard", 10.0, 3);
  p.faults.drop_frame_every = 4;  // every 4th scan is missing: images with no LiDAR points before them
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_LT(livo.eval.ate.rmse, 0.02);
}

TEST_F(FastlivoTest, WithoutACameraItIsTheLidarInertialFilterAndSaysSo) {
  sim::SimParams p;
  p.duration = 10.0;
  p.seed = 3;
  const auto lio = simulate_and_run(p, "livox", R"({"so_name": "fastlio"})");
  test::LogCapture log("fastlivo");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo"})");
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("no sensor.camera block in the configuration")) << log.text();
  EXPECT_LT(livo.eval.ate.rmse, 1.2 * lio.eval.ate.rmse + 0.001);
}

TEST_F(FastlivoTest, ImagesOfTheWrongSizeAreNamedAndSkipped) {
  auto p = camera_bag("courtyard", 8.0, 3);
  test::LogCapture log("fastlivo");
  const std::string camera = sim::camera_block_json(sim::make_camera("pinhole"));
  // The calibration of a 1280 x 1024 camera for 640 x 512 images: a wrong topic or calibration.
  std::string wrong = camera;
  wrong.replace(wrong.find("\"height\":512"), 12, "\"height\":1024");
  wrong.replace(wrong.find("\"width\":640"), 11, "\"width\":1280");
  const auto livo = simulate_and_run(p, "livox", R"({"so_name": "fastlivo", "sensor": {"camera": )" + wrong + "}}");
  EXPECT_TRUE(livo.ok);
  EXPECT_TRUE(log.contains("image_size: the image at")) << log.text();
  EXPECT_TRUE(log.contains("is 640x512 but sensor.camera says 1280x1024")) << log.text();
  EXPECT_LT(livo.eval.ate.rmse, 0.02);
}

}  // namespace
}  // namespace asuka
