#include <asuka/visual/photometric.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <asuka/math/so3.hpp>

namespace asuka::visual {

bool project_point(const camera::CameraModel& camera, const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera,
                   const Eigen::Vector3d& point_world, Eigen::Vector2d& uv, Eigen::Matrix<double, 2, 6>* J) {
  const Eigen::Matrix3d R_ci = T_imu_camera.linear().transpose();
  const Eigen::Vector3d q = R.transpose() * (point_world - p);  // IMU frame
  const Eigen::Vector3d pc = R_ci * (q - T_imu_camera.translation());
  Eigen::Matrix<double, 2, 3> J_proj;
  if (!camera.project(pc, uv, J != nullptr ? &J_proj : nullptr)) return false;
  if (J != nullptr) {
    // q(dtheta, dp) = Exp(-dtheta) R^T (P - p - dp) ~ q + [q]x dtheta - R^T dp
    J->leftCols<3>() = J_proj * R_ci * so3::hat(q);
    J->rightCols<3>() = -J_proj * R_ci * R.transpose();
  }
  return true;
}

bool photometric_residuals(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                           const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, double tau, int level, int half,
                           const PhotometricTarget& target, std::vector<double>& residuals, Eigen::Matrix<double, Eigen::Dynamic, 7>* H) {
  const auto& reference = target.reference[static_cast<std::size_t>(level)];
  const int n = 2 * half;
  if (level < 0 || level >= static_cast<int>(pyramid.size()) || reference.size() != static_cast<std::size_t>(n * n)) return false;
  Eigen::Vector2d uv0;
  Eigen::Matrix<double, 2, 6> J;
  if (!project_point(camera, R, p, T_imu_camera, target.point_world, uv0, H != nullptr ? &J : nullptr)) return false;
  const Eigen::Vector2d uv = camera::to_pyramid_level(uv0, level);
  const double scale = 1.0 / static_cast<double>(1 << level);
  const auto& img = pyramid[static_cast<std::size_t>(level)];
  residuals.resize(static_cast<std::size_t>(n * n));
  if (H != nullptr) H->resize(n * n, 7);
  std::size_t i = 0;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x, ++i) {
      float value = 0.0f;
      Eigen::Vector2f g;
      if (!camera::sample(img, uv.x() + patch_offset(x, half), uv.y() + patch_offset(y, half), value, H != nullptr ? &g : nullptr)) return false;
      residuals[i] = tau * static_cast<double>(value) - static_cast<double>(reference[i]);
      if (H != nullptr) {
        H->row(static_cast<Eigen::Index>(i)).head<6>() = (tau * scale) * (g.cast<double>().transpose() * J);
        (*H)(static_cast<Eigen::Index>(i), 6) = static_cast<double>(value);
      }
    }
  }
  return true;
}

void accumulate_photometric(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                            const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, double tau, int level, const PhotometricParams& params,
                            std::vector<PhotometricTarget>& targets, PhotometricSystem& system) {
  system = PhotometricSystem{};
  if (level < 0 || level >= static_cast<int>(pyramid.size())) return;
  const double inv_var = 1.0 / (params.sigma * params.sigma);
  const int half = params.half;
  const int n = 2 * half;
  const double scale = 1.0 / static_cast<double>(1 << level);
  const auto& img = pyramid[static_cast<std::size_t>(level)];
  // The same residuals and rows as photometric_residuals(), accumulated without storing them: per
  // target, the samples' image gradients are summed into a 3 x 3 block over (du, dv, dI) first, and
  // that block is mapped through the target's 2 x 6 projection Jacobian once.
  double abs_sum = 0.0;
  for (auto& target : targets) {
    if (!target.inlier) continue;
    const auto& reference = target.reference[static_cast<std::size_t>(level)];
    Eigen::Vector2d uv0;
    Eigen::Matrix<double, 2, 6> J;
    if (reference.size() != static_cast<std::size_t>(n * n) || !project_point(camera, R, p, T_imu_camera, target.point_world, uv0, &J)) {
      target.error = std::numeric_limits<double>::infinity();
      continue;
    }
    const Eigen::Vector2d uv = camera::to_pyramid_level(uv0, level);
    // Per sample the row is [tau scale g^T J, I] = [g^T, I] * blockdiag(tau scale J, 1): accumulate
    // G = sum w [g; I][g; I]^T and h = sum w r [g; I] over the samples, then map them.
    Eigen::Matrix3d G = Eigen::Matrix3d::Zero();
    Eigen::Vector3d h = Eigen::Vector3d::Zero();
    double target_abs = 0.0;
    bool inside = true;
    std::size_t i = 0;
    for (int y = 0; y < n && inside; ++y) {
      for (int x = 0; x < n; ++x, ++i) {
        float value = 0.0f;
        Eigen::Vector2f g;
        if (!camera::sample(img, uv.x() + patch_offset(x, half), uv.y() + patch_offset(y, half), value, &g)) {
          inside = false;
          break;
        }
        const double r = tau * static_cast<double>(value) - static_cast<double>(reference[i]);
        const double a = std::abs(r);
        target_abs += a;
        const double w = inv_var * (a <= params.huber ? 1.0 : params.huber / a);
        const Eigen::Vector3d v(g.x(), g.y(), value);
        G.noalias() += w * v * v.transpose();
        h.noalias() += (w * r) * v;
      }
    }
    if (!inside) {
      target.error = std::numeric_limits<double>::infinity();
      continue;
    }
    Eigen::Matrix<double, 3, 7> M = Eigen::Matrix<double, 3, 7>::Zero();
    M.topLeftCorner<2, 6>() = (tau * scale) * J;
    M(2, 6) = 1.0;
    system.HtWH.noalias() += M.transpose() * G * M;
    system.HtWr.noalias() += M.transpose() * h;
    const std::size_t samples = static_cast<std::size_t>(n * n);
    target.error = target_abs / static_cast<double>(samples);
    abs_sum += target_abs;
    system.samples += samples;
    ++system.targets;
  }
  system.mean_abs_residual = system.samples > 0 ? abs_sum / static_cast<double>(system.samples) : 0.0;
}

bool estimate_inverse_exposure(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                               const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, int level, int half,
                               const std::vector<PhotometricTarget>& targets, double& tau, double& variance) {
  if (level < 0 || level >= static_cast<int>(pyramid.size())) return false;
  const int n = 2 * half;
  const auto& img = pyramid[static_cast<std::size_t>(level)];
  std::vector<double> ratios;
  ratios.reserve(targets.size());
  for (const auto& target : targets) {
    if (!target.inlier) continue;
    const auto& reference = target.reference[static_cast<std::size_t>(level)];
    Eigen::Vector2d uv0;
    if (reference.size() != static_cast<std::size_t>(n * n) || !project_point(camera, R, p, T_imu_camera, target.point_world, uv0)) continue;
    const Eigen::Vector2d uv = camera::to_pyramid_level(uv0, level);
    double sum_current = 0.0, sum_reference = 0.0;
    bool inside = true;
    std::size_t i = 0;
    for (int y = 0; y < n && inside; ++y) {
      for (int x = 0; x < n; ++x, ++i) {
        float value = 0.0f;
        if (!camera::sample(img, uv.x() + patch_offset(x, half), uv.y() + patch_offset(y, half), value)) {
          inside = false;
          break;
        }
        sum_current += static_cast<double>(value);
        sum_reference += static_cast<double>(reference[i]);
      }
    }
    // A black patch says nothing about the exposure (and would divide by zero).
    if (inside && sum_current > 5.0 * static_cast<double>(n * n)) ratios.push_back(sum_reference / sum_current);
  }
  return median_ratio(ratios, tau, variance);
}

bool median_ratio(std::vector<double>& ratios, double& median, double& variance) {
  if (ratios.size() < 3) return false;
  const auto mid = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
  std::nth_element(ratios.begin(), mid, ratios.end());
  median = *mid;
  for (auto& r : ratios) r = std::abs(r - median);
  std::nth_element(ratios.begin(), mid, ratios.end());
  const double sigma = 1.4826 * *mid;
  variance = sigma * sigma * M_PI / (2.0 * static_cast<double>(ratios.size()));
  return true;
}

}  // namespace asuka::visual
