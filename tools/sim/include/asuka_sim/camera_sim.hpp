#pragma once
// The simulated camera (#13): global-shutter images of the scene by ray casting every pixel, through
// the same camera model the frontends use (asuka/camera/camera_model.hpp), so that the intrinsics and
// T_imu_camera written into sim.json are the ground truth. Surfaces carry a procedural texture that
// depends only on world coordinates (value noise at four scales from 1.6 m to 2.5 cm, so gradients
// exist at every pyramid level of a 640x512 image); shading is Lambertian under a fixed sun plus
// ambient light; each image has its own exposure (auto-exposure) and pixel noise. No ROS.

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>
#include <asuka_sim/scene.hpp>

namespace asuka::sim {

/// The camera of a simulation and its faults. model "" = no camera.
struct CameraSimParams {
  std::string model;             ///< "", "pinhole" (640x512, radtan) or "fisheye" (640x512, equidistant, 190 deg)
  double rate = 10.0;            ///< [Hz]
  bool free_running = false;     ///< false: triggered at each lidar scan's end (needs rate = lidar rate); true: its own clock
  double phase = 0.037;          ///< [s] free-running: time of the first image after the start
  std::string format = "mono8";  ///< mono8 | rgb8 (sensor_msgs/Image) | jpeg (sensor_msgs/CompressedImage)
  int jpeg_quality = 90;
  double noise = 2.0;            ///< [grey levels] pixel noise standard deviation
  bool auto_exposure = true;     ///< the exposure changes from image to image
  // faults (docs/simulator.md)
  int drop_every = 0;            ///< every Nth image is not written
  double time_offset = 0.0;      ///< [s] added to every image stamp (a camera-IMU clock offset)
  bool wrong_encoding = false;   ///< raw images declare "yuv422" (an encoding asuka does not read)
  int corrupt_jpeg_every = 0;    ///< every Nth JPEG is cut to half its bytes
};

/// A camera model by name, with its mounting.
struct SimCamera {
  std::string name;
  camera::CameraIntrinsics intrinsics;
  Eigen::Isometry3d T_imu_camera = Eigen::Isometry3d::Identity();  ///< p_imu = T_imu_camera p_camera; camera z forward, x right, y down
};

std::vector<std::string> camera_names();
/// Throws std::invalid_argument for an unknown name.
SimCamera make_camera(const std::string& name);

/// One image as the simulation hands it out.
struct SimImage {
  std::int64_t clock0 = 0;   ///< [s] SimParams::start_time
  double true_time = 0.0;    ///< [s] mid-exposure on the true clock, relative to clock0
  double stamp = 0.0;        ///< [s] written stamp (faults applied), relative to clock0
  double exposure = 0.0;     ///< [s]
  int index = 0;
  int width = 0;
  int height = 0;
  int channels = 1;          ///< 1 (mono8) or 3 (rgb8)
  std::vector<std::uint8_t> pixels;  ///< row-major, width * channels bytes per row
};

/// Exposure gain of the image at `t` [s] (1 without auto-exposure): slow and faster swings, +-40 %.
double exposure_gain(double t, bool auto_exposure);
constexpr double kNominalExposure = 0.004;  ///< [s] at gain 1

/// The procedural albedo of the world at `p` [0.05, 0.95] and its colour (rgb, mean = albedo).
double texture_albedo(const Eigen::Vector3d& p);
Eigen::Vector3d texture_rgb(const Eigen::Vector3d& p);

/// The radiance the camera sees at the surface point p = origin + hit.range * d of a ray cast from
/// `origin` [m, world]: Lambertian shade (0.45 ambient + 0.55 under the fixed sun, the normal facing
/// `origin`) times the albedo (a decal, or the texture: its colour when `rgb`), per channel in [0, 1]
/// (all three equal when !rgb). A pixel is 255 * 0.9 * gain * radiance + noise; CameraRenderer uses
/// exactly this, and so does the colour check of maps (colour_check.hpp).
Eigen::Vector3d surface_radiance(const Scene& scene, const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& origin, bool rgb);

/// Renders images of one scene with one camera. Thread-safe (const after construction); render()
/// uses `threads` threads and is deterministic whatever their number.
class CameraRenderer {
public:
  CameraRenderer(const SimCamera& camera, const Scene& scene, std::uint64_t seed);

  /// Renders the image seen from T_world_camera with exposure gain `gain` (1 = nominal) and pixel
  /// noise `noise` [grey levels] into `image` (width, height, channels and pixels set; the noise
  /// depends on the seed and image.index only).
  void render(const Eigen::Isometry3d& T_world_camera, double gain, bool rgb, double noise, SimImage& image, int threads = 2) const;

  const camera::CameraModel& model() const { return model_; }

private:
  camera::CameraModel model_;
  const Scene& scene_;
  std::uint64_t seed_;
  std::vector<Eigen::Vector3f> rays_;  ///< per pixel, the unit bearing in the camera frame (zero: no ray)
};

}  // namespace asuka::sim
