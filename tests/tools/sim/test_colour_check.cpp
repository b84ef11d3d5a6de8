// #20: the colour check of coloured maps (asuka_sim/colour_check.hpp, asuka_colour_check). Maps are
// made here by casting rays from camera positions into a scene and colouring each hit with what the
// camera sees there (surface_radiance, the renderer's own function) in some gauge; the checker must
// find that gauge, report the errors put in (none, an offset, random colours), and leave out points
// that lie on no surface. The program is run on a simulation folder written here (sim.json, ground
// truth) with the map in another world frame, as a frontend writes it, and on broken inputs.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka/io/pcd_io.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_sim/camera_sim.hpp>
#include <asuka_sim/colour_check.hpp>
#include <asuka_sim/scene.hpp>

#include "support/process.hpp"

namespace asuka::sim {
namespace {

namespace fs = std::filesystem;
using Colour = std::array<std::uint8_t, 3>;

constexpr double kFullScale = 255.0 * 0.9;  // [grey levels] radiance 1 at gain 1

/// Map points on the scene's surfaces: the hits of rays cast in every direction from `origins`, with
/// the radiance the camera sees there and the ray that found them.
struct SurfaceSamples {
  std::vector<Eigen::Vector3f> points;
  std::vector<Eigen::Vector3d> radiance;    ///< per channel, surface_radiance
  std::vector<Eigen::Vector3d> origins;     ///< the camera position of each point
  std::vector<Eigen::Vector3d> directions;  ///< unit ray from that position
  std::vector<Eigen::Vector3d> normals;     ///< of the surface, facing that position
};

SurfaceSamples sample_surfaces(const Scene& scene, const std::vector<Eigen::Vector3d>& origins, bool rgb, double max_range = 40.0) {
  SurfaceSamples s;
  constexpr double kDeg = 3.14159265358979323846 / 180.0;
  for (const auto& o : origins) {
    for (double elevation = -40.0; elevation <= 30.0; elevation += 5.0) {
      for (double azimuth = 0.0; azimuth < 360.0; azimuth += 3.0) {
        const Eigen::Vector3d d(std::cos(elevation * kDeg) * std::cos(azimuth * kDeg), std::cos(elevation * kDeg) * std::sin(azimuth * kDeg),
                                std::sin(elevation * kDeg));
        const auto hit = scene.cast(o, d, 0.02, max_range);
        if (!hit) continue;
        const Eigen::Vector3d p = o + hit->range * d;
        s.points.push_back(p.cast<float>());
        s.radiance.push_back(surface_radiance(scene, *hit, p, o, rgb));
        s.origins.push_back(o);
        s.directions.push_back(d);
        s.normals.push_back(scene.normal(*hit, p, o));
      }
    }
  }
  return s;
}

Colour quantize(const Eigen::Vector3d& grey_levels) {
  Colour c;
  for (int k = 0; k < 3; ++k) c[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(std::clamp(std::lround(grey_levels[k]), 0L, 255L));
  return c;
}

/// colour = 255 * 0.9 * gain * radiance + offset, rounded and clamped as an 8-bit map stores it.
std::vector<Colour> colours(const SurfaceSamples& s, double gain, double offset = 0.0) {
  std::vector<Colour> out;
  for (const auto& r : s.radiance) out.push_back(quantize(kFullScale * gain * r + Eigen::Vector3d::Constant(offset)));
  return out;
}

class ColourCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    scene_ = make_scene("courtyard", 1);
    // Camera positions in the open square at the sensor's height, away from every obstacle.
    for (double x = -12.0; x <= 12.0; x += 6.0) {
      for (double y = -12.0; y <= 12.0; y += 12.0) {
        const Eigen::Vector3d o(x, y, scene_->sensor_height);
        if (scene_->distance(o) > 1.0) origins_.push_back(o);
      }
    }
    ASSERT_GE(origins_.size(), 8u);
    samples_ = sample_surfaces(*scene_, origins_, true);
    ASSERT_GT(samples_.points.size(), 10000u);
  }

  std::shared_ptr<Scene> scene_;
  std::vector<Eigen::Vector3d> origins_;
  SurfaceSamples samples_;
};

// The exact colours in the gauge of an image with gain 1.3 while the first image had gain 1: the fit
// finds 1.3 and nothing is left; in the first image's gauge every colour is 30 % off. Colours the map
// clamped at 255 (expected above it at 1.3) must not be checked, or they would show as errors.
TEST_F(ColourCheckTest, ExactColoursInAnotherGaugeGiveTheGainAndNoError) {
  ColourCheckParams params;
  params.reference_gain = 1.0;
  const auto r = check_colours(*scene_, origins_, samples_.points, colours(samples_, 1.3), params);
  std::printf("%s; %zu on surfaces, %zu saturated\n", format_colour_check(r).c_str(), r.on_surface, r.saturated);
  EXPECT_EQ(r.points, samples_.points.size());
  EXPECT_GE(r.on_surface, r.points * 98 / 100);
  EXPECT_GT(r.saturated, 0u);  // the brightest surfaces clip at gain 1.3
  EXPECT_EQ(r.checked, r.on_surface - r.saturated);
  EXPECT_GE(r.checked, r.points / 2);
  EXPECT_NEAR(r.gain, 1.3, 0.005);
  EXPECT_LT(r.mean_error, 0.5);  // 8-bit rounding: 0.25 on average
  EXPECT_LT(r.median_error, 0.5);
  EXPECT_DOUBLE_EQ(r.reference_gain, 1.0);
  EXPECT_GT(r.reference_mean_error, 15.0);  // 0.3 of colours around 100 grey levels
  EXPECT_NE(format_colour_check(r).find("after a global gain of 1.30"), std::string::npos) << format_colour_check(r);

  // In the gauge it was made in, the map is right before any fit.
  params.reference_gain = 1.3;
  const auto same = check_colours(*scene_, origins_, samples_.points, colours(samples_, 1.3), params);
  EXPECT_LT(same.reference_mean_error, 0.5);
}

// +10 grey levels on every colour in the first image's gauge: 10 there; a gain cannot take an offset
// away over colours from 20 to 220 grey levels, so most of it stays after the fit.
TEST_F(ColourCheckTest, AnOffsetIsMeasured) {
  ColourCheckParams params;
  params.reference_gain = 1.0;
  const auto r = check_colours(*scene_, origins_, samples_.points, colours(samples_, 1.0, 10.0), params);
  std::printf("%s\n", format_colour_check(r).c_str());
  EXPECT_GE(r.checked, r.points * 9 / 10);
  EXPECT_NEAR(r.reference_mean_error, 10.0, 0.3);
  EXPECT_NEAR(r.reference_median_error, 10.0, 0.5);
  EXPECT_LE(r.mean_error, r.reference_mean_error);  // the fitted gain minimizes the mean error
  EXPECT_GT(r.mean_error, 3.0);
  EXPECT_GT(r.gain, 1.0);
}

// Points floating 1 m off every surface (moved along its normal) are not checked (alone: none; mixed into a right map: they do
// not change its error). Points 0.5 m off their surface are outside the default tolerance (5 cm + 1 %
// of the range: below 0.35 m from the nearest camera positions, all within 30 m) and mostly inside 1 m
// when seen head-on.
TEST_F(ColourCheckTest, PointsOffTheSurfacesAreNotChecked) {
  std::vector<Eigen::Vector3f> floating;
  for (std::size_t i = 0; i < samples_.points.size(); i += 7) {
    const Eigen::Vector3d p = samples_.points[i].cast<double>() + 1.0 * samples_.normals[i];
    if (scene_->distance(p) >= 0.99) floating.push_back(p.cast<float>());
  }
  for (double x = -20.0; x <= 20.0; x += 2.0) floating.emplace_back(static_cast<float>(x), 3.0f, 4.0f);  // in the air over the square
  ASSERT_GT(floating.size(), 1000u);
  std::vector<Colour> grey(floating.size(), Colour{100, 100, 100});
  const auto alone = check_colours(*scene_, origins_, floating, grey, {});
  EXPECT_EQ(alone.points, floating.size());
  EXPECT_EQ(alone.on_surface, 0u);
  EXPECT_EQ(alone.checked, 0u);

  auto points = samples_.points;
  auto rgb = colours(samples_, 1.0);
  points.insert(points.end(), floating.begin(), floating.end());
  rgb.insert(rgb.end(), grey.begin(), grey.end());
  const auto mixed = check_colours(*scene_, origins_, points, rgb, {});
  EXPECT_LE(mixed.on_surface, samples_.points.size());
  EXPECT_GE(mixed.on_surface, samples_.points.size() * 98 / 100);
  EXPECT_LT(mixed.mean_error, 0.5);
  EXPECT_NEAR(mixed.gain, 1.0, 0.005);

  std::vector<Eigen::Vector3f> near;
  std::vector<Colour> near_rgb;
  const auto exact = colours(samples_, 1.0);
  for (std::size_t i = 0; i < samples_.points.size(); ++i) {
    // Surfaces seen within 15 m and within 45 deg of their normal (not the ground at a grazing angle,
    // where 0.5 m above it is metres from it along a ray).
    if ((samples_.points[i].cast<double>() - samples_.origins[i]).norm() > 15.0 || -samples_.normals[i].dot(samples_.directions[i]) < 0.7) continue;
    const Eigen::Vector3d p = samples_.points[i].cast<double>() + 0.5 * samples_.normals[i];
    if (scene_->distance(p) < 0.49) continue;
    near.push_back(p.cast<float>());
    near_rgb.push_back(exact[i]);
  }
  ASSERT_GT(near.size(), 200u);
  EXPECT_EQ(check_colours(*scene_, origins_, near, near_rgb, {}).on_surface, 0u);
  ColourCheckParams wide;
  wide.tolerance = 1.0;
  EXPECT_GT(check_colours(*scene_, origins_, near, near_rgb, wide).on_surface, near.size() / 2);
}

// A map whose colours have nothing to do with the scene: the error is large whatever the gain.
TEST_F(ColourCheckTest, RandomColoursGiveALargeError) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> level(0, 255);
  std::vector<Colour> rgb(samples_.points.size());
  for (auto& c : rgb) c = {static_cast<std::uint8_t>(level(rng)), static_cast<std::uint8_t>(level(rng)), static_cast<std::uint8_t>(level(rng))};
  const auto r = check_colours(*scene_, origins_, samples_.points, rgb, {});
  std::printf("%s\n", format_colour_check(r).c_str());
  EXPECT_GE(r.checked, r.points / 2);
  EXPECT_GT(r.mean_error, 30.0);
  EXPECT_GT(r.median_error, 25.0);
  EXPECT_GT(r.reference_mean_error, 30.0);
}

// A grey camera (mono8, JPEG) sees shade x albedo in every channel: a grey map is right when checked
// as grey, and off by the texture's tint when checked as colour.
TEST_F(ColourCheckTest, GreyMapsAreCheckedAgainstGrey) {
  const auto grey = sample_surfaces(*scene_, origins_, false);
  ASSERT_EQ(grey.points.size(), samples_.points.size());
  ColourCheckParams params;
  params.rgb = false;
  const auto r = check_colours(*scene_, origins_, grey.points, colours(grey, 1.3), params);
  EXPECT_NEAR(r.gain, 1.3, 0.005);
  EXPECT_LT(r.mean_error, 0.5);
  params.rgb = true;
  EXPECT_GT(check_colours(*scene_, origins_, grey.points, colours(grey, 1.3), params).mean_error, 3.0);
}

// The same map gives the same numbers whatever the number of threads.
TEST_F(ColourCheckTest, ResultDoesNotDependOnThreads) {
  const auto rgb = colours(samples_, 1.1, 3.0);
  ColourCheckParams one;
  one.threads = 1;
  ColourCheckParams three;
  three.threads = 3;
  const auto a = check_colours(*scene_, origins_, samples_.points, rgb, one);
  const auto b = check_colours(*scene_, origins_, samples_.points, rgb, three);
  EXPECT_EQ(a.checked, b.checked);
  EXPECT_EQ(a.gain, b.gain);
  EXPECT_EQ(a.mean_error, b.mean_error);
}

#ifdef ASUKA_COLOUR_CHECK_PROGRAM

// ---- The program ---------------------------------------------------------------------------------

using asuka::test::run_command;

class ColourCheckProgram : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("asuka_colour_check_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sim");
    fs::create_directories(dir_ / "run");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string run(const std::string& args, int* exit_code) {
    const auto r = run_command(std::string(ASUKA_COLOUR_CHECK_PROGRAM) + " " + args + " 2>&1");
    *exit_code = r.exit_code;
    return r.output;
  }

  fs::path dir_;
};

// A simulation folder as asuka_sim writes it (the parts the check reads): the courtyard, a walk on an
// arc, images at 10 Hz whose first one is dropped, and a map coloured in the gauge of a later image,
// written in a frontend's world frame together with its trajectory. The program aligns it, fits that
// gauge and finds no error; then broken inputs exit 2 and say why.
TEST_F(ColourCheckProgram, ChecksAMapInAFrontendsFrameAndRejectsBrokenInputs) {
  const auto scene = make_scene("courtyard", 1);
  const SimCamera camera = make_camera("pinhole");
  const double t0 = 1700000000.0;
  auto pose_at = [&](double t) {  // an arc of radius 8 m around the square's centre, heading along it
    const double a = 0.25 * t;
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = Eigen::AngleAxisd(a + 1.5707963267948966, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    T.translation() = Eigen::Vector3d(8.0 * std::cos(a), 8.0 * std::sin(a), scene->sensor_height);
    return T;
  };
  std::vector<StampedPose> gt;
  for (int i = 0; i <= 800; ++i) gt.push_back({t0 + i / 200.0, pose_at(i / 200.0)});  // 4 s at 200 Hz
  for (const auto& p : gt) ASSERT_GT(scene->distance(p.T_world_imu.translation()), 0.5);
  ASSERT_TRUE(write_tum((dir_ / "sim" / "ground_truth.tum").string(), gt));

  nlohmann::json images = nlohmann::json::array();
  std::vector<Eigen::Vector3d> origins;
  for (int k = 0; k < 40; ++k) {
    const double t = 0.05 + 0.1 * k;
    images.push_back({{"time_s", t0 + t}, {"exposure_s", kNominalExposure * (1.1 + 0.1 * k)}});
    if (k % 4 == 0) origins.push_back((pose_at(t) * camera.T_imu_camera).translation());
  }
  const Eigen::Quaterniond q(camera.T_imu_camera.linear());
  const Eigen::Vector3d t_ic = camera.T_imu_camera.translation();
  nlohmann::json sim = {{"tool", "asuka_sim"},
                        {"seed", 1},
                        {"scene", "courtyard"},
                        {"camera",
                         {{"model", "pinhole"},
                          {"format", "rgb8"},
                          {"T_imu_camera", {{"translation", {t_ic.x(), t_ic.y(), t_ic.z()}}, {"rotation_xyzw", {q.x(), q.y(), q.z(), q.w()}}}},
                          {"faults", {{"dropped_indices", {0}}}},
                          {"images", images}}}};
  std::ofstream((dir_ / "sim" / "sim.json").string()) << sim.dump(2);

  // The map in the gauge of an image with gain 1.45; the first written image (index 1) has 1.2.
  const auto samples = sample_surfaces(*scene, origins, true, 30.0);
  Eigen::Isometry3d T_odom_sim = Eigen::Isometry3d::Identity();
  T_odom_sim.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  T_odom_sim.translation() = Eigen::Vector3d(-3.0, 2.0, 0.5);
  std::vector<Eigen::Vector3f> points;
  for (const auto& p : samples.points) points.push_back((T_odom_sim * p.cast<double>()).cast<float>());
  const auto map = (dir_ / "run" / "map.pcd").string();
  ASSERT_TRUE(write_pcd_rgb(map, points, colours(samples, 1.45)));
  std::vector<StampedPose> trajectory;
  for (std::size_t i = 0; i < gt.size(); i += 20) trajectory.push_back({gt[i].stamp, T_odom_sim * gt[i].T_world_imu});
  ASSERT_TRUE(write_tum((dir_ / "run" / "trajectory.tum").string(), trajectory));

  int code = -1;
  const auto json_path = (dir_ / "run" / "colour.json").string();
  auto out = run("--sim " + (dir_ / "sim").string() + " --map " + map + " --json " + json_path, &code);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("colour check: " + std::to_string(points.size()) + " points"), std::string::npos) << out;
  std::ifstream json_in(json_path);
  const auto j = nlohmann::json::parse(json_in);
  EXPECT_NEAR(j["gain"]["fitted"].get<double>(), 1.45, 0.01);
  EXPECT_NEAR(j["gain"]["first_image"].get<double>(), 1.2, 1e-9);  // image 0 was dropped
  EXPECT_LT(j["mean_abs_error_grey_levels"]["fitted_gain"].get<double>(), 0.5);
  EXPECT_GT(j["mean_abs_error_grey_levels"]["first_image_gain"].get<double>(), 10.0);
  EXPECT_GT(j["checked_percent"].get<double>(), 60.0);
  EXPECT_LT(j["alignment"]["ate_rmse_m"].get<double>(), 1e-6);

  // Taken as if it were in the simulator's frame, the map lies on no surface.
  out = run("--sim " + (dir_ / "sim").string() + " --map " + map + " --map-in-sim-world --json " + json_path, &code);
  ASSERT_EQ(code, 0) << out;
  std::ifstream json_unaligned(json_path);
  EXPECT_LT(nlohmann::json::parse(json_unaligned)["checked_percent"].get<double>(), 10.0);

  // Broken inputs: exit 2 with the reason.
  out = run("--sim " + (dir_ / "sim").string() + " --map " + (dir_ / "run" / "missing.pcd").string(), &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("no such file"), std::string::npos) << out;

  const auto plain = (dir_ / "run" / "plain.pcd").string();
  ASSERT_TRUE(write_pcd(plain, points));
  out = run("--sim " + (dir_ / "sim").string() + " --map " + plain, &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("no rgb field"), std::string::npos) << out;

  out = run("--sim " + (dir_ / "nowhere").string() + " --map " + map, &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("sim.json"), std::string::npos) << out;

  fs::create_directories(dir_ / "lonely");
  fs::copy_file(map, dir_ / "lonely" / "map.pcd");
  out = run("--sim " + (dir_ / "sim").string() + " --map " + (dir_ / "lonely" / "map.pcd").string(), &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("trajectory"), std::string::npos) << out;

  sim.erase("camera");
  std::ofstream((dir_ / "sim" / "sim.json").string()) << sim.dump(2);
  out = run("--sim " + (dir_ / "sim").string() + " --map " + map, &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("has no camera"), std::string::npos) << out;
}

#endif  // ASUKA_COLOUR_CHECK_PROGRAM

}  // namespace
}  // namespace asuka::sim
