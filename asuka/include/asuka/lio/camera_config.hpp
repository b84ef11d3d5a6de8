#pragma once
// The camera of a visual frontend (#13), in the frontend's `sensor.camera` block next to the lidar
// extrinsic (docs/camera.md):
//
//   "sensor": { "camera": {
//       "width": 640, "height": 512,                 [px]
//       "fx": 420, "fy": 420, "cx": 319.5, "cy": 255.5,   [px], pixel-centre convention
//       "distortion": "radtan",                      none | radtan (plumb_bob) | equidistant (fisheye)
//       "coeffs": [-0.12, 0.03, 2e-4, -1e-4],        radtan k1 k2 p1 p2 [k3]; equidistant k1 k2 k3 k4
//       "extrinsic_t": [0.06, 0.0, 0.03],            T_imu_camera: the camera origin in the IMU frame [m]
//       "extrinsic_R": [0,0,1, -1,0,0, 0,-1,0] } }   and its axes (row-major R_imu_camera; camera z ahead, x right, y down)
//
// p_imu = R p_camera + t, the same convention as the lidar's T_imu_lidar. The camera-to-IMU time
// offset is an input correction and lives with the other offsets in config_ros
// (`time_offset_camera_to_imu`), applied by the host to every image stamp.

#include <optional>

#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>

namespace asuka {
class Config;
}

namespace asuka::lio {

struct CameraConfig {
  camera::CameraIntrinsics intrinsics;
  Eigen::Isometry3d T_imu_camera = Eigen::Isometry3d::Identity();

  /// Reads `key` (default "sensor.camera") of `config`: nullopt when the block is absent. Throws
  /// ConfigError naming the file, the key, the value and what was expected: a missing or non-positive
  /// size or focal length, a principal point outside the image, an unknown distortion model, the wrong
  /// number of coefficients, a rotation that is not one.
  static std::optional<CameraConfig> from_config(const Config& config, const std::string& key = "sensor.camera");
};

}  // namespace asuka::lio
