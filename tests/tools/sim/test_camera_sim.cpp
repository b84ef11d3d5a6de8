// #13: the simulated camera checked end to end with no estimator. LiDAR points of a scan, placed in
// the world with the ground truth, are projected into the image taken at the scan's end with the
// camera model, T_imu_camera and the image stamp the simulation reports; the pixel intensities there
// must follow the texture at those world points, and stop following it when the extrinsic or the
// time is perturbed. Also: images are deterministic, formats and faults reach the messages.

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/camera/image_pyramid.hpp>
#include <asuka/messages/image_decoder.hpp>
#include <asuka_sim/memory_feed.hpp>
#include <asuka_sim/scene.hpp>
#include <asuka_sim/sim_messages.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {
namespace {

struct Recording {
  std::vector<LidarFrame::Ptr> frames;
  std::vector<Image::Ptr> images;
  SimOutput output;
};

SimParams camera_params(const std::string& camera, const std::string& scene = "courtyard") {
  SimParams p;
  p.duration = 2.0;
  p.scene = scene;
  p.trajectory.static_duration = 0.5;
  p.trajectory.ramp_duration = 0.5;
  p.camera.model = camera;
  p.camera.noise = 1.0;
  p.lidar_noise.range_noise = 0.0;  // each point exactly on the surface it samples
  return p;
}

Recording record(const SimParams& p) {
  Recording r;
  MemoryFeed feed;
  feed.frame = [&](LidarFrame::Ptr f) { r.frames.push_back(std::move(f)); };
  feed.image = [&](Image::Ptr i) { r.images.push_back(std::move(i)); };
  r.output = simulate_in_memory(p, feed);
  return r;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  double ma = 0.0, mb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += a[i] / n;
    mb += b[i] / n;
  }
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

/// Projects the ground points of scan `k` into image `k` (taken at that scan's end) and correlates
/// the sampled intensities with the texture albedo at the points. `extrinsic_error` rotates
/// T_imu_camera about the camera's y axis [rad]; `time_error` shifts the pose used for the image [s].
double scan_image_correlation(const SimParams& p, const Recording& r, std::size_t k, double extrinsic_error, double time_error, std::size_t* used = nullptr) {
  const auto scene = make_scene(p.scene, p.seed);
  const Trajectory trajectory(p.trajectory, *scene);
  const auto& cam = *r.output.camera;
  const camera::CameraModel model(cam.intrinsics);
  Eigen::Isometry3d T_imu_camera = cam.T_imu_camera;
  T_imu_camera.linear() = T_imu_camera.linear() * Eigen::AngleAxisd(extrinsic_error, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const auto& image = *r.images.at(k);
  const double t_image = image.stamp - static_cast<double>(p.start_time) + time_error;
  const Eigen::Isometry3d T_camera_world = (trajectory.pose(t_image) * T_imu_camera).inverse();
  const auto gray = camera::to_gray(image);
  const auto& frame = *r.frames.at(k);
  std::vector<double> pixels, albedo;
  for (const auto& pt : frame.points) {
    const double t_point = frame.stamp - static_cast<double>(p.start_time) + static_cast<double>(pt.offset_ms) * 1e-3;
    const Eigen::Vector3d p_world = trajectory.pose(t_point) * r.output.T_imu_lidar * pt.position().cast<double>();
    if (std::fabs(p_world.z()) > 0.05) continue;  // the ground only: one normal, one shade
    // Near points only: farther away a pixel spans several cells of the finest texture octave.
    const Eigen::Vector3d p_camera = T_camera_world * p_world;
    if (p_camera.norm() > 6.0) continue;
    Eigen::Vector2d uv;
    float value = 0.0f;
    if (!model.project(p_camera, uv) || !camera::sample(gray, uv.x(), uv.y(), value)) continue;
    pixels.push_back(value);
    albedo.push_back(texture_albedo(p_world));
  }
  if (used) *used = pixels.size();
  return pixels.size() < 50 ? 0.0 : correlation(pixels, albedo);
}

TEST(CameraSimTest, LidarPointsProjectOntoTheTextureTheyHit) {
  for (const std::string camera : {"pinhole", "fisheye"}) {
    const auto p = camera_params(camera);
    const auto r = record(p);
    ASSERT_TRUE(r.output.camera);
    ASSERT_EQ(r.images.size(), r.frames.size()) << "triggered: one image per scan";
    for (std::size_t k : {5u, 15u}) {
      std::size_t used = 0;
      const double good = scan_image_correlation(p, r, k, 0.0, 0.0, &used);
      const double rotated = scan_image_correlation(p, r, k, 0.03, 0.0);  // 1.7 deg
      const double late = scan_image_correlation(p, r, k, 0.0, 0.08);     // 80 ms
      std::printf("%s scan %zu: %zu ground points, correlation %.3f (extrinsic off %.3f, time off %.3f)\n", camera.c_str(), k, used, good, rotated, late);
      EXPECT_GT(used, 2000u) << camera;
      EXPECT_GT(good, 0.93) << camera << " scan " << k;
      EXPECT_LT(rotated, good - 0.2) << camera << " scan " << k;
      if (k == 15u) {
        EXPECT_LT(late, good - 0.3) << camera << " scan " << k;  // moving by then (scan 5 is still at rest)
      }
    }
  }
}

TEST(CameraSimTest, ImagesAreDeterministicAndStampedAtMidExposure) {
  auto p = camera_params("pinhole");
  p.duration = 0.5;
  const auto a = record(p);
  const auto b = record(p);
  ASSERT_EQ(a.images.size(), 5u);
  for (std::size_t i = 0; i < a.images.size(); ++i) {
    EXPECT_EQ(std::memcmp(a.images[i]->pixels.get(), b.images[i]->pixels.get(), 640u * 512u), 0) << i;
    EXPECT_NEAR(a.images[i]->stamp, static_cast<double>(p.start_time) + a.output.image_times[i], 1e-9);
    EXPECT_NEAR(a.images[i]->exposure_seconds, a.output.image_exposures[i], 1e-12);
  }
  p.camera.free_running = true;
  p.camera.rate = 15.0;
  p.camera.phase = 0.01;
  const auto free = record(p);
  EXPECT_EQ(free.images.size(), 8u);  // 0.01, 0.077, ..., 0.477
  EXPECT_NEAR(free.output.image_times[1] - free.output.image_times[0], 1.0 / 15.0, 1e-12);
}

TEST(CameraSimTest, FormatsAndFaultsReachTheMessages) {
  auto p = camera_params("pinhole");
  p.duration = 0.5;
  p.camera.format = "jpeg";
  p.camera.corrupt_jpeg_every = 2;
  p.camera.drop_every = 5;
  struct Sink : SimSink {
    const SimParams& params;
    std::vector<CameraMessage> messages;
    explicit Sink(const SimParams& p) : params(p) {}
    void imu(double, const ImuSample&) override {}
    void frame(double, const SimFrame&) override {}
    void image(double, const SimImage& image) override { messages.push_back(camera_message(params, image)); }
  } sink(p);
  const auto out = simulate(p, sink);
  ASSERT_EQ(sink.messages.size(), 4u);  // the 5th image is dropped
  EXPECT_EQ(out.dropped_images, std::vector<int>({4}));
  int corrupt = 0;
  for (const auto& m : sink.messages) {
    ASSERT_TRUE(m.compressed);
    const auto decoded = msg::decode_compressed_image(m.compressed_image);
    corrupt += decoded.image ? 0 : 1;
  }
  EXPECT_EQ(corrupt, 2);  // images 2 and 4 (1-based) were cut short

  p.camera.format = "rgb8";
  p.camera.corrupt_jpeg_every = 0;
  p.camera.wrong_encoding = true;
  Sink raw(p);
  simulate(p, raw);
  ASSERT_FALSE(raw.messages.empty());
  EXPECT_EQ(raw.messages[0].image.encoding, "yuv422");
  EXPECT_EQ(msg::decode_image(raw.messages[0].image).error->kind, "image_encoding");
}

TEST(CameraSimTest, BadCameraParametersAreRefused) {
  auto p = camera_params("pinhole");
  p.camera.rate = 15.0;  // triggered by a 10 Hz lidar
  struct Null : SimSink {
    void imu(double, const ImuSample&) override {}
    void frame(double, const SimFrame&) override {}
  } sink;
  try {
    simulate(p, sink);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--camera-free-running"), std::string::npos) << e.what();
  }
  p.camera.rate = 10.0;
  p.camera.model = "stereo";
  EXPECT_THROW(simulate(p, sink), std::invalid_argument);
}

}  // namespace
}  // namespace asuka::sim

namespace asuka::sim {
namespace {

/// The textured corridor: the LiDAR sees exactly the plain corridor (as degenerate along it), the
/// camera sees posters, door frames and floor markings.
TEST(CameraSimTest, TheTexturedCorridorChangesTheImagesNotTheLidar) {
  auto plain = camera_params("pinhole", "corridor");
  plain.duration = 0.5;
  plain.trajectory.static_duration = 0.1;
  plain.trajectory.ramp_duration = 0.1;
  auto textured = plain;
  textured.scene = "corridor_textured";
  const auto a = record(plain);
  const auto b = record(textured);
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (std::size_t k = 0; k < a.frames.size(); ++k) {
    ASSERT_EQ(a.frames[k]->points.size(), b.frames[k]->points.size());
    for (std::size_t i = 0; i < a.frames[k]->points.size(); ++i) ASSERT_EQ(a.frames[k]->points[i].x, b.frames[k]->points[i].x);
  }
  ASSERT_EQ(a.images.size(), b.images.size());
  std::size_t differing = 0, total = 0;
  for (std::size_t k = 0; k < a.images.size(); ++k) {
    for (std::size_t i = 0; i < 640u * 512u; ++i) {
      differing += a.images[k]->pixels.get()[i] != b.images[k]->pixels.get()[i] ? 1 : 0;
      ++total;
    }
  }
  EXPECT_GT(static_cast<double>(differing) / static_cast<double>(total), 0.02);  // marks in view in every run
  EXPECT_FALSE(make_scene("corridor_textured", 1)->decals.empty());
}

}  // namespace
}  // namespace asuka::sim
