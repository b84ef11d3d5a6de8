#include <asuka/visual/patch.hpp>

#include <algorithm>
#include <cmath>

namespace asuka::visual {

CameraPose CameraPose::from_imu(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera) {
  // p_world = R (R_ic p_c + t_ic) + p  =>  p_c = R_ic^T R^T (p_world - p) - R_ic^T t_ic
  const Eigen::Matrix3d R_ic = T_imu_camera.linear();
  CameraPose pose;
  pose.R_cw = R_ic.transpose() * R.transpose();
  pose.t_cw = -pose.R_cw * p - R_ic.transpose() * T_imu_camera.translation();
  return pose;
}

namespace {

/// The pixel of the reference image that sees the plane point seen by pixel `uv_cur` of the current
/// image.
bool transfer(const camera::CameraModel& camera, const CameraPose& ref, const CameraPose& cur, const Eigen::Vector3d& n_cur, double d_cur,
              const Eigen::Vector2d& uv_cur, Eigen::Vector2d& uv_ref) {
  Eigen::Vector3d ray;
  if (!camera.unproject(uv_cur, ray)) return false;
  const double denominator = n_cur.dot(ray);
  // The plane n . X = d in the current camera; a ray within about 3 deg of it is edge-on.
  if (std::abs(denominator) < 0.05) return false;
  const double s = d_cur / denominator;
  if (!(s > 0.0)) return false;
  const Eigen::Vector3d X_world = cur.R_cw.transpose() * (s * ray - cur.t_cw);
  return camera.project(ref.to_camera(X_world), uv_ref);
}

}  // namespace

bool affine_warp(const camera::CameraModel& camera, const CameraPose& ref, const CameraPose& cur, const Eigen::Vector3d& point_world,
                 const Eigen::Vector3d& normal_world, Eigen::Matrix2d& A_ref_cur, double step) {
  const Eigen::Vector3d X_cur = cur.to_camera(point_world);
  Eigen::Vector2d uv;
  if (!camera.project(X_cur, uv)) return false;
  const Eigen::Vector3d n_cur = cur.R_cw * normal_world;
  const double d_cur = n_cur.dot(X_cur);
  // Edge-on from the reference camera as well: the warp would be singular.
  const Eigen::Vector3d X_ref = ref.to_camera(point_world);
  if (std::abs((ref.R_cw * normal_world).dot(X_ref.normalized())) < 0.05) return false;
  Eigen::Vector2d plus_u, minus_u, plus_v, minus_v;
  const Eigen::Vector2d du(step, 0.0), dv(0.0, step);
  if (!transfer(camera, ref, cur, n_cur, d_cur, uv + du, plus_u) || !transfer(camera, ref, cur, n_cur, d_cur, uv - du, minus_u) ||
      !transfer(camera, ref, cur, n_cur, d_cur, uv + dv, plus_v) || !transfer(camera, ref, cur, n_cur, d_cur, uv - dv, minus_v)) {
    return false;
  }
  A_ref_cur.col(0) = (plus_u - minus_u) / (2.0 * step);
  A_ref_cur.col(1) = (plus_v - minus_v) / (2.0 * step);
  return A_ref_cur.allFinite();
}

bool RefPatch::cut(const std::vector<camera::GrayImage>& pyramid, const Eigen::Vector2d& uv0, int levels_wanted, int half, int margin) {
  if (levels_wanted < 1 || levels_wanted > kMaxLevels || static_cast<int>(pyramid.size()) < levels_wanted || half < 1 || margin < 0) return false;
  levels = levels_wanted;
  size = 2 * (half + margin);
  samples.resize(static_cast<std::size_t>(levels) * static_cast<std::size_t>(size * size));
  const double first = -(size - 1) / 2.0;
  std::size_t i = 0;
  for (int level = 0; level < levels; ++level) {
    const Eigen::Vector2d c = camera::to_pyramid_level(uv0, level);
    const auto& img = pyramid[static_cast<std::size_t>(level)];
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        float value = 0.0f;
        if (!camera::sample(img, c.x() + first + x, c.y() + first + y, value)) return false;
        samples[i++] = static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0f, 255.0f)));
      }
    }
  }
  return true;
}

bool RefPatch::radiance(int level, const Eigen::Vector2d& q, float& value) const {
  if (level < 0 || level >= levels) return false;
  const double centre = (size - 1) / 2.0;
  const double u = q.x() + centre, v = q.y() + centre;
  if (!(u >= 0.0 && u < size - 1 && v >= 0.0 && v < size - 1)) return false;
  const int x = static_cast<int>(u), y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x), ay = static_cast<float>(v - y);
  const std::uint8_t* s = samples.data() + static_cast<std::size_t>(level) * static_cast<std::size_t>(size * size);
  auto at = [&](int xx, int yy) { return static_cast<float>(s[yy * size + xx]); };
  const float top = at(x, y) + ax * (at(x + 1, y) - at(x, y));
  const float bottom = at(x, y + 1) + ax * (at(x + 1, y + 1) - at(x, y + 1));
  value = inverse_exposure * (top + ay * (bottom - top));
  return true;
}

bool RefPatch::warp(int level, int half, const Eigen::Matrix2d& A_ref_cur, std::vector<float>& out) const {
  const int n = 2 * half;
  out.resize(static_cast<std::size_t>(n * n));
  std::size_t i = 0;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const Eigen::Vector2d q = A_ref_cur * Eigen::Vector2d(patch_offset(x, half), patch_offset(y, half));
      if (!radiance(level, q, out[i++])) return false;
    }
  }
  return true;
}

double corner_score(const camera::GrayImage& img, const Eigen::Vector2d& uv) {
  double gxx = 0.0, gxy = 0.0, gyy = 0.0;
  int n = 0;
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -2; dx <= 2; ++dx) {
      float value = 0.0f;
      Eigen::Vector2f g;
      if (!camera::sample(img, uv.x() + dx, uv.y() + dy, value, &g)) return 0.0;
      const double gx = g.x(), gy = g.y();
      gxx += gx * gx;
      gxy += gx * gy;
      gyy += gy * gy;
      ++n;
    }
  }
  gxx /= n;
  gxy /= n;
  gyy /= n;
  // The smaller eigenvalue of [[gxx, gxy], [gxy, gyy]].
  const double mean = 0.5 * (gxx + gyy);
  const double diff = 0.5 * (gxx - gyy);
  return mean - std::sqrt(diff * diff + gxy * gxy);
}

}  // namespace asuka::visual
