#pragma once
// A synthetic scene for the visual tests (#19): the world plane z = 0 with a smooth analytic texture,
// rendered by casting the ray of every pixel of a pinhole camera onto it (point sampling at the pixel
// centres, the convention of camera_model.hpp). The texture's wavelengths (0.23 - 0.34 m) span tens
// of pixels at the test distances, so bilinear interpolation is close to the texture itself and the
// coarse pyramid levels do not alias.

#include <cmath>
#include <cstddef>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/visual/patch.hpp>

namespace asuka::visual::test_scene {

constexpr double kPi = 3.14159265358979323846;

/// 640 x 480, fx = fy = 400, principal point at the image centre, no distortion.
inline camera::CameraModel pinhole_camera() {
  camera::CameraIntrinsics in;
  in.width = 640;
  in.height = 480;
  in.fx = 400.0;
  in.fy = 400.0;
  in.cx = 319.5;
  in.cy = 239.5;
  in.distortion = camera::Distortion::NONE;
  return camera::CameraModel(in);
}

/// [grey] the texture at plane coordinates (x, y) [m]: within [55, 185].
inline double texture(double x, double y) {
  return 120.0 + 45.0 * std::sin(2.0 * kPi * x / 0.34) * std::cos(2.0 * kPi * y / 0.29) +
         20.0 * std::sin(2.0 * kPi * (0.8 * x + 0.6 * y) / 0.23 + 0.7);
}

/// The world normal of the plane z = 0.
inline Eigen::Vector3d plane_normal() { return Eigen::Vector3d::UnitZ(); }

/// A camera at `centre` whose optical axis points at `target`, rolled by `roll` [rad] about that axis.
/// Without roll its x axis is horizontal (world z = 0 plane); `target - centre` must not be along world y.
inline CameraPose look_at(const Eigen::Vector3d& centre, const Eigen::Vector3d& target, double roll = 0.0) {
  const Eigen::Vector3d z = (target - centre).normalized();
  const Eigen::Vector3d x = z.cross(Eigen::Vector3d::UnitY()).normalized();
  const Eigen::Vector3d y = z.cross(x);
  Eigen::Matrix3d R_wc;
  R_wc.col(0) = x;
  R_wc.col(1) = y;
  R_wc.col(2) = z;
  R_wc = R_wc * Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  CameraPose pose;
  pose.R_cw = R_wc.transpose();
  pose.t_cw = -pose.R_cw * centre;
  return pose;
}

/// The IMU pose (R, p) [T_world_imu] that puts the camera mounted at `T_imu_camera` at `pose`
/// (the inverse of CameraPose::from_imu).
inline void imu_pose(const CameraPose& pose, const Eigen::Isometry3d& T_imu_camera, Eigen::Matrix3d& R, Eigen::Vector3d& p) {
  const Eigen::Matrix3d R_wc = pose.R_cw.transpose();
  R = R_wc * T_imu_camera.linear().transpose();
  p = pose.centre() - R * T_imu_camera.translation();
}

/// The point of the plane seen by pixel `uv` (level 0); false when the ray misses it.
inline bool plane_point(const camera::CameraModel& camera, const CameraPose& pose, const Eigen::Vector2d& uv, Eigen::Vector3d& X) {
  const auto& in = camera.intrinsics();
  const Eigen::Vector3d ray_world = pose.R_cw.transpose() * Eigen::Vector3d((uv.x() - in.cx) / in.fx, (uv.y() - in.cy) / in.fy, 1.0);
  const Eigen::Vector3d c = pose.centre();
  if (std::abs(ray_world.z()) < 1e-12) return false;
  const double s = -c.z() / ray_world.z();
  if (!(s > 0.0)) return false;
  X = c + s * ray_world;
  return true;
}

/// The image of the plane seen from `pose` (0 where a ray misses it); `quantize` rounds to integer
/// grey levels as an 8-bit camera would.
inline camera::GrayImage render(const camera::CameraModel& camera, const CameraPose& pose, bool quantize = false) {
  camera::GrayImage img(camera.width(), camera.height(), 0.0f);
  for (int v = 0; v < img.height; ++v) {
    for (int u = 0; u < img.width; ++u) {
      Eigen::Vector3d X;
      if (!plane_point(camera, pose, Eigen::Vector2d(static_cast<double>(u), static_cast<double>(v)), X)) continue;
      const double value = texture(X.x(), X.y());
      img.at(u, v) = static_cast<float>(quantize ? std::round(value) : value);
    }
  }
  return img;
}

/// The projection of `X` [world] by `camera` at `pose` (level 0); false when it does not project.
inline bool project(const camera::CameraModel& camera, const CameraPose& pose, const Eigen::Vector3d& X, Eigen::Vector2d& uv) {
  return camera.project(pose.to_camera(X), uv);
}

/// The 2h x 2h bilinear samples of `img` at offsets patch_offset() around `uv` [px of img], row-major;
/// false when one leaves the image.
inline bool sample_patch(const camera::GrayImage& img, const Eigen::Vector2d& uv, int half, std::vector<float>& out) {
  const int n = 2 * half;
  out.assign(static_cast<std::size_t>(n * n), 0.0f);
  std::size_t i = 0;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      if (!camera::sample(img, uv.x() + patch_offset(x, half), uv.y() + patch_offset(y, half), out[i++])) return false;
    }
  }
  return true;
}

}  // namespace asuka::visual::test_scene
