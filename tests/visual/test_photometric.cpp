// The photometric measurement of the direct visual frontends (asuka/visual/photometric.hpp; #19):
// project_point's Jacobian and photometric_residuals' H (pose and inverse exposure) against numeric
// differences of the right perturbation R Exp(dtheta), p + dp, and Gauss-Newton on
// accumulate_photometric's normal equations recovering a known exposure change and, coarse to fine,
// a perturbed pose, on images of a textured plane rendered by ray casting (plane_scene.hpp).

#include <cmath>
#include <cstdint>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/visual/patch.hpp>
#include <asuka/visual/photometric.hpp>

#include "visual/plane_scene.hpp"

namespace asuka::visual {
namespace {

using camera::GrayImage;
namespace ts = test_scene;

constexpr int kHalf = 4;
constexpr double kDeg = ts::kPi / 180.0;

/// A camera looking forward along the IMU's x axis, turned by a few degrees and offset by a few cm.
Eigen::Isometry3d imu_camera() {
  Eigen::Matrix3d forward;
  forward << 0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 0.0, -1.0, 0.0;  // camera x = -IMU y, y = -IMU z, z = IMU x
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = so3::exp(Eigen::Vector3d(0.03, -0.05, 0.02)) * forward;
  T.translation() = Eigen::Vector3d(0.05, -0.02, 0.03);
  return T;
}

/// The camera about 2.2 m from the plane, its optical axis 26 deg off the plane's normal (depths
/// from about 1.7 m to 3 m over the targets), the image of the plane quantized to 8 bits.
struct Scene {
  camera::CameraModel cam = ts::pinhole_camera();
  Eigen::Isometry3d T_imu_camera = imu_camera();
  CameraPose pose = ts::look_at(Eigen::Vector3d(-0.8, -0.2, 2.0), Eigen::Vector3d(0.15, 0.05, 0.0), 0.1);
  Eigen::Matrix3d R;  ///< the true IMU pose
  Eigen::Vector3d p;
  GrayImage image = ts::render(cam, pose, true);
  std::vector<GrayImage> pyramid = camera::build_pyramid(image, 3);

  Scene() { ts::imu_pose(pose, T_imu_camera, R, p); }
};

/// 20 targets on a 5 x 4 grid of pixels, their references cut from `ref_pyramid` at the true pose
/// (tau_ref = 1) for `levels` levels.
bool make_targets(const Scene& s, const std::vector<GrayImage>& ref_pyramid, int levels, std::vector<PhotometricTarget>& targets) {
  targets.clear();
  for (const double v : {130.0, 210.0, 290.0, 360.0}) {
    for (const double u : {160.0, 240.0, 320.0, 400.0, 480.0}) {
      PhotometricTarget target;
      target.id = targets.size();
      Eigen::Vector2d uv0;
      if (!ts::plane_point(s.cam, s.pose, Eigen::Vector2d(u + 0.3, v + 0.7), target.point_world)) return false;
      if (!ts::project(s.cam, s.pose, target.point_world, uv0)) return false;
      for (int level = 0; level < levels; ++level) {
        auto& reference = target.reference[static_cast<std::size_t>(level)];
        if (!ts::sample_patch(ref_pyramid[static_cast<std::size_t>(level)], camera::to_pyramid_level(uv0, level), kHalf, reference)) return false;
      }
      targets.push_back(target);
    }
  }
  return true;
}

/// `img` times `gain`, rounded to integer grey levels (an 8-bit camera with a longer exposure).
GrayImage brighter(const GrayImage& img, double gain) {
  GrayImage out = img;
  for (float& value : out.data) value = static_cast<float>(std::round(gain * static_cast<double>(value)));
  return out;
}

/// The perturbation k of (dtheta, dp) by h: R Exp(h e_k) for k < 3, p + h e_(k-3) otherwise.
void perturb(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, int k, double h, Eigen::Matrix3d& R_out, Eigen::Vector3d& p_out) {
  R_out = R;
  p_out = p;
  if (k < 3) {
    R_out = R * so3::exp(h * Eigen::Vector3d::Unit(k));
  } else {
    p_out += h * Eigen::Vector3d::Unit(k - 3);
  }
}

TEST(PhotometricTest, ProjectPointJacobianMatchesNumericRightPerturbation) {
  const camera::CameraModel cam = ts::pinhole_camera();
  const Eigen::Isometry3d T_ic = imu_camera();
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.3, -0.2, 0.5));
  const Eigen::Vector3d p(1.0, 2.0, 0.5);
  const Eigen::Vector3d p_cam(0.4, -0.3, 3.0);
  const Eigen::Vector3d P = R * (T_ic * p_cam) + p;
  // The same camera frame as CameraPose::from_imu's.
  EXPECT_LT((CameraPose::from_imu(R, p, T_ic).to_camera(P) - p_cam).norm(), 1e-12);

  Eigen::Vector2d uv, uv_expected, uv_plain;
  Eigen::Matrix<double, 2, 6> J;
  ASSERT_TRUE(project_point(cam, R, p, T_ic, P, uv, &J));
  ASSERT_TRUE(cam.project(p_cam, uv_expected));
  EXPECT_LT((uv - uv_expected).norm(), 1e-9);
  ASSERT_TRUE(project_point(cam, R, p, T_ic, P, uv_plain));
  EXPECT_LT((uv_plain - uv).norm(), 1e-12);

  constexpr double h = 1e-5;
  Eigen::Matrix<double, 2, 6> numeric;
  for (int k = 0; k < 6; ++k) {
    Eigen::Matrix3d Rp, Rm;
    Eigen::Vector3d pp, pm;
    perturb(R, p, k, h, Rp, pp);
    perturb(R, p, k, -h, Rm, pm);
    Eigen::Vector2d up, um;
    ASSERT_TRUE(project_point(cam, Rp, pp, T_ic, P, up));
    ASSERT_TRUE(project_point(cam, Rm, pm, T_ic, P, um));
    numeric.col(k) = (up - um) / (2.0 * h);
  }
  EXPECT_LT((J - numeric).cwiseAbs().maxCoeff(), 1e-5 * J.cwiseAbs().maxCoeff()) << "analytic\n" << J << "\nnumeric\n" << numeric;

  // Behind the camera: no projection.
  EXPECT_FALSE(project_point(cam, R, p, T_ic, R * (T_ic * Eigen::Vector3d(0.1, 0.0, -2.0)) + p, uv, &J));
}

TEST(PhotometricTest, ResidualJacobianMatchesNumericDifferencesWithinABilinearCell) {
  const Scene s;
  std::vector<PhotometricTarget> targets;
  ASSERT_TRUE(make_targets(s, s.pyramid, 2, targets));
  // Off the truth and at another exposure: H must hold anywhere, not only at the solution.
  const Eigen::Matrix3d R = s.R * so3::exp(Eigen::Vector3d(0.002, -0.001, 0.0015));
  const Eigen::Vector3d p = s.p + Eigen::Vector3d(0.003, -0.002, 0.001);
  const double tau = 0.9;
  // The bilinear gradient is constant along u within a cell and jumps across cells: steps move a
  // sample by a few hundredths of a pixel, and pairs (sample, direction) whose three positions do
  // not share a cell are skipped. Smaller steps would drown the difference in float rounding of
  // the interpolated values (~1e-5 grey).
  constexpr double h = 1e-4;
  std::size_t checked = 0, total = 0;
  for (int level = 0; level < 2; ++level) {
    for (std::size_t t = 0; t < targets.size(); t += 3) {
      const PhotometricTarget& target = targets[t];
      std::vector<double> r, rp, rm;
      Eigen::Matrix<double, Eigen::Dynamic, 7> H;
      ASSERT_TRUE(photometric_residuals(s.pyramid, s.cam, R, p, s.T_imu_camera, tau, level, kHalf, target, r, &H));
      ASSERT_EQ(H.rows(), 4 * kHalf * kHalf);
      ASSERT_EQ(r.size(), static_cast<std::size_t>(H.rows()));

      // d r / d tau: the current image's value, exactly (r is linear in tau).
      ASSERT_TRUE(photometric_residuals(s.pyramid, s.cam, R, p, s.T_imu_camera, tau + h, level, kHalf, target, rp));
      ASSERT_TRUE(photometric_residuals(s.pyramid, s.cam, R, p, s.T_imu_camera, tau - h, level, kHalf, target, rm));
      for (Eigen::Index i = 0; i < H.rows(); ++i) {
        const auto k = static_cast<std::size_t>(i);
        EXPECT_NEAR(H(i, 6), (rp[k] - rm[k]) / (2.0 * h), 1e-6 * std::abs(H(i, 6)) + 1e-6);
        EXPECT_NEAR(r[k], tau * H(i, 6) - static_cast<double>(target.reference[static_cast<std::size_t>(level)][k]), 1e-9);
      }

      Eigen::Vector2d uv0;
      ASSERT_TRUE(project_point(s.cam, R, p, s.T_imu_camera, target.point_world, uv0));
      const Eigen::Vector2d uv = camera::to_pyramid_level(uv0, level);
      for (int j = 0; j < 6; ++j) {
        Eigen::Matrix3d Rp, Rm;
        Eigen::Vector3d pp, pm;
        perturb(R, p, j, h, Rp, pp);
        perturb(R, p, j, -h, Rm, pm);
        Eigen::Vector2d uvp0, uvm0;
        ASSERT_TRUE(project_point(s.cam, Rp, pp, s.T_imu_camera, target.point_world, uvp0));
        ASSERT_TRUE(project_point(s.cam, Rm, pm, s.T_imu_camera, target.point_world, uvm0));
        const Eigen::Vector2d uvp = camera::to_pyramid_level(uvp0, level), uvm = camera::to_pyramid_level(uvm0, level);
        ASSERT_TRUE(photometric_residuals(s.pyramid, s.cam, Rp, pp, s.T_imu_camera, tau, level, kHalf, target, rp));
        ASSERT_TRUE(photometric_residuals(s.pyramid, s.cam, Rm, pm, s.T_imu_camera, tau, level, kHalf, target, rm));
        for (int y = 0; y < 2 * kHalf; ++y) {
          for (int x = 0; x < 2 * kHalf; ++x) {
            const int i = y * 2 * kHalf + x;
            ++total;
            const double ox = patch_offset(x, kHalf), oy = patch_offset(y, kHalf);
            const auto cell = [&](const Eigen::Vector2d& c) { return Eigen::Vector2d(std::floor(c.x() + ox), std::floor(c.y() + oy)); };
            if (cell(uvp) != cell(uv) || cell(uvm) != cell(uv)) continue;
            ++checked;
            const auto k = static_cast<std::size_t>(i);
            const double numeric = (rp[k] - rm[k]) / (2.0 * h);
            const double row_scale = H.row(i).head<6>().cwiseAbs().maxCoeff();
            EXPECT_NEAR(H(i, j), numeric, 2e-3 * row_scale + 1.0) << "level " << level << " target " << t << " sample " << i << " column " << j;
          }
        }
      }
    }
  }
  // Most pairs share a cell: the comparison is not vacuous.
  EXPECT_GT(checked, total / 2) << checked << " of " << total;
}

TEST(PhotometricTest, GaussNewtonOnTauRecoversAKnownExposureChange) {
  const Scene s;
  const std::vector<GrayImage> current = camera::build_pyramid(brighter(s.image, 1.25), 3);
  std::vector<PhotometricTarget> targets;
  ASSERT_TRUE(make_targets(s, s.pyramid, 3, targets));
  const PhotometricParams params;
  for (const int level : {0, 2}) {
    double tau = 1.0;
    PhotometricSystem system;
    for (int iteration = 0; iteration < 5; ++iteration) {
      accumulate_photometric(current, s.cam, s.R, s.p, s.T_imu_camera, tau, level, params, targets, system);
      ASSERT_EQ(system.targets, targets.size());
      ASSERT_EQ(system.samples, targets.size() * 4 * kHalf * kHalf);
      ASSERT_GT(system.HtWH(6, 6), 0.0);
      tau -= system.HtWr(6) / system.HtWH(6, 6);
    }
    EXPECT_NEAR(tau, 1.0 / 1.25, 1e-3) << "level " << level;
    // The residuals left are the 8-bit rounding of the brighter image (at most 0.4 grey).
    accumulate_photometric(current, s.cam, s.R, s.p, s.T_imu_camera, tau, level, params, targets, system);
    EXPECT_LT(system.mean_abs_residual, 0.5) << "level " << level;
    for (const auto& target : targets) EXPECT_LT(target.error, 0.5) << "level " << level << " target " << target.id;
  }
}

TEST(PhotometricTest, RatioEstimateRecoversTheExposureWithOccludedPatchesAndIsNotAttenuatedByNoise) {
  const Scene s;
  // The current image 1.25 times brighter, with grey-level noise (std 4) that least squares on tau
  // would regress away (attenuation towards zero, the bias that made fastlivo's exposure drift).
  GrayImage noisy = brighter(s.image, 1.25);
  std::uint64_t state = 12345;
  for (float& value : noisy.data) {
    double sum = 0.0;  // an approximately normal sample: 12 uniforms minus 6, std 1
    for (int k = 0; k < 12; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      sum += static_cast<double>(state >> 11) / 9007199254740992.0;
    }
    value = static_cast<float>(std::round(static_cast<double>(value) + 4.0 * (sum - 6.0)));
  }
  const std::vector<GrayImage> current = camera::build_pyramid(noisy, 3);
  std::vector<PhotometricTarget> targets;
  ASSERT_TRUE(make_targets(s, s.pyramid, 3, targets));
  // A quarter of the patches occluded by something dark in the current view: their references say
  // the surface is bright.
  for (std::size_t j = 0; j < targets.size(); j += 4) {
    for (auto& reference : targets[j].reference) {
      for (float& value : reference) value *= 3.0f;
    }
  }
  double tau = 0.0, variance = 0.0;
  ASSERT_TRUE(estimate_inverse_exposure(current, s.cam, s.R, s.p, s.T_imu_camera, 0, kHalf, targets, tau, variance));
  EXPECT_NEAR(tau, 1.0 / 1.25, 4e-3);
  EXPECT_GT(variance, 0.0);
  EXPECT_LT(std::sqrt(variance), 0.01);
  // Outliers marked as such do not count, and with fewer than three usable patches there is no estimate.
  std::vector<PhotometricTarget> two(targets.begin() + 1, targets.begin() + 3);
  EXPECT_FALSE(estimate_inverse_exposure(current, s.cam, s.R, s.p, s.T_imu_camera, 0, kHalf, two, tau, variance));
  for (auto& t : targets) t.inlier = false;
  EXPECT_FALSE(estimate_inverse_exposure(current, s.cam, s.R, s.p, s.T_imu_camera, 0, kHalf, targets, tau, variance));
}

TEST(PhotometricTest, CoarseToFineGaussNewtonRecoversAPerturbedPoseAndExposure) {
  const Scene s;
  const std::vector<GrayImage> current = camera::build_pyramid(brighter(s.image, 1.25), 3);
  std::vector<PhotometricTarget> targets;
  ASSERT_TRUE(make_targets(s, s.pyramid, 3, targets));
  const PhotometricParams params;

  // 0.3 deg and 1 cm off: about 4 px at level 0, 1 px at level 2.
  Eigen::Matrix3d R = s.R * so3::exp(0.3 * kDeg * Eigen::Vector3d(0.6, -0.5, 0.62).normalized());
  Eigen::Vector3d p = s.p + Eigen::Vector3d(0.006, -0.005, 0.006);
  double tau = 1.0;
  const auto rotation_error_deg = [&] { return so3::log(s.R.transpose() * R).norm() / kDeg; };
  ASSERT_NEAR(rotation_error_deg(), 0.3, 1e-9);
  ASSERT_GT((p - s.p).norm(), 0.009);

  PhotometricSystem system;
  for (const int level : {2, 1, 0}) {
    for (int iteration = 0; iteration < 15; ++iteration) {
      accumulate_photometric(current, s.cam, R, p, s.T_imu_camera, tau, level, params, targets, system);
      ASSERT_GE(system.targets, targets.size() * 3 / 4) << "level " << level << " iteration " << iteration;
      const Eigen::Matrix<double, 7, 1> dx = system.HtWH.ldlt().solve(-system.HtWr);
      ASSERT_TRUE(dx.allFinite());
      R = R * so3::exp(dx.head<3>());
      p += dx.segment<3>(3);
      tau += dx[6];
      if (dx.head<6>().norm() < 1e-8) break;
    }
  }
  EXPECT_LT(rotation_error_deg(), 0.05);
  EXPECT_LT((p - s.p).norm(), 0.002) << (p - s.p).transpose();
  EXPECT_NEAR(tau, 1.0 / 1.25, 5e-3);
  accumulate_photometric(current, s.cam, R, p, s.T_imu_camera, tau, 0, params, targets, system);
  EXPECT_EQ(system.targets, targets.size());
  EXPECT_LT(system.mean_abs_residual, 1.0);
}

}  // namespace
}  // namespace asuka::visual
