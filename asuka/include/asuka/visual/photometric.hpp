#pragma once
// The direct photometric measurement of the visual frontends: residuals between a map point's
// reference patch (warped into the current view, patch.hpp) and the current image around the point's
// projection, with their Jacobians with respect to the IMU pose and the current image's inverse
// exposure, accumulated into normal equations for the frontend's iterated Kalman update.
//
// Model (FAST-LIVO2's, in our notation): the reference holds radiances L = tau_ref I_ref; the current
// image I is the radiance over the exposure, so for sample k of point j at pyramid level l
//   r_jk = tau I_l(uv_l(x) + o_k) - L_jk,      uv_l = level-l pixel of pi(T_camera_imu T_imu_world(x) P_j)
// where tau is the current inverse exposure (the first image fixes the gauge at 1) and x the IMU
// pose with the filter's right perturbation R Exp(dtheta), p + dp. Every sample of a patch moves with
// its centre (the patch is small: the Jacobian of the centre serves all of it), so
//   d r / d(dtheta, dp) = tau grad I_l^T 2^-l d uv / d(dtheta, dp),    d r / d tau = I_l(...).

#include <array>
#include <cstddef>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/visual/patch.hpp>

namespace asuka::visual {

/// The projection of `point_world` by the camera mounted at `T_imu_camera` on the IMU at (R, p)
/// [T_world_imu], and d uv / d(dtheta, dp) [px / rad, px / m] for R Exp(dtheta), p + dp. False
/// outside the camera's validity region.
bool project_point(const camera::CameraModel& camera, const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera,
                   const Eigen::Vector3d& point_world, Eigen::Vector2d& uv, Eigen::Matrix<double, 2, 6>* J = nullptr);

/// One visual map point as this image's update uses it: where it is and what it should look like.
struct PhotometricTarget {
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();
  std::array<std::vector<float>, kMaxLevels> reference;  ///< per level: the warped reference radiances, 2h x 2h
  bool inlier = true;   ///< outliers contribute nothing
  double error = 0.0;   ///< [grey] mean |r| of its samples at the last accumulation (infinity when it left the image)
  std::size_t id = 0;   ///< the frontend's handle of the map point
};

/// Normal equations in (dtheta, dp, dtau): H^T W H and H^T W r, W the robust weights over sigma^2.
struct PhotometricSystem {
  Eigen::Matrix<double, 7, 7> HtWH = Eigen::Matrix<double, 7, 7>::Zero();
  Eigen::Matrix<double, 7, 1> HtWr = Eigen::Matrix<double, 7, 1>::Zero();
  std::size_t samples = 0;   ///< residuals used
  std::size_t targets = 0;   ///< targets with every sample in the image
  double mean_abs_residual = 0.0;  ///< [grey] over the used residuals
};

struct PhotometricParams {
  int half = 4;         ///< patch half size (2h x 2h samples)
  /// [grey] standard deviation of one sample's residual. The samples of a patch share one position
  /// error (they move with its centre) and are far from independent: 40 = 5 grey per sample with the
  /// 64 samples of an 8 x 8 patch counted as one measurement (docs/frontends/fastlivo.md).
  double sigma = 40.0;
  double huber = 80.0;  ///< [grey] residuals beyond this are down-weighted (Huber)
};

/// Adds the residuals of every inlier target at `level` of `pyramid` for the IMU pose (R, p) and
/// inverse exposure `tau` to `system` (which is reset first). A target whose samples leave the image
/// is skipped with error infinity.
void accumulate_photometric(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                            const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, double tau, int level, const PhotometricParams& params,
                            std::vector<PhotometricTarget>& targets, PhotometricSystem& system);

/// The residuals of one target at `level` (2h x 2h, row-major) for the pose and exposure, as
/// accumulate_photometric() forms them; false when a sample leaves the image. For tests and
/// diagnostics.
bool photometric_residuals(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                           const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, double tau, int level, int half,
                           const PhotometricTarget& target, std::vector<double>& residuals, Eigen::Matrix<double, Eigen::Dynamic, 7>* H = nullptr);

/// The inverse exposure that makes the current image's patches as bright as their references: per
/// inlier target at `level`, the ratio of its reference radiances' sum to its current samples' sum
/// (at the pose (R, p)), and their median. Least squares on tau (the tau column of the system above)
/// regresses the reference on the noisy, slightly misaligned current samples and is biased towards
/// zero; a new map point's reference inherits that bias, so the estimate drifts (measured: -20 % over
/// 20 s). The ratio of sums is not attenuated by zero-mean noise or small misalignment, and the median
/// ignores occluded patches. False with fewer than 3 usable targets; otherwise `tau` is the median and
/// `variance` that of the median (1.4826 MAD, times pi / 2n).
bool estimate_inverse_exposure(const std::vector<camera::GrayImage>& pyramid, const camera::CameraModel& camera, const Eigen::Matrix3d& R,
                               const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera, int level, int half,
                               const std::vector<PhotometricTarget>& targets, double& tau, double& variance);

/// The median of `ratios` (reordered) and the variance of that median (1.4826 MAD, times pi / 2n):
/// the exposure estimators of fastlivo (patch sums) and srlivo (map colours over pixels). False with
/// fewer than 3 ratios.
bool median_ratio(std::vector<double>& ratios, double& median, double& variance);

}  // namespace asuka::visual
