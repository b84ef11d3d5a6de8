#pragma once
// Image patches for the direct (photometric) visual frontends (fastlivo; srlivo shares the camera
// side): reference patches cut from an image pyramid around a map point's projection, and the affine
// warp that maps a patch seen in the current image into the reference image through the plane the
// point lies on (FAST-LIVO2, Zheng et al., T-RO 2024, section on the affine warping of reference
// patches).
//
// Conventions (camera_model.hpp, image_pyramid.hpp): pixel centres at integer coordinates; a patch
// of half size h has 2h x 2h samples at offsets o_k = k - (2h - 1) / 2 (k = 0 .. 2h - 1, so
// -3.5 .. 3.5 for h = 4) in the pixels of its pyramid level, row-major. The warp A = d uv_ref / d uv_cur
// is the same at every level (both images are scaled alike), so one 2x2 matrix serves the pyramid.

#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>

namespace asuka::visual {

/// The most pyramid levels a patch holds.
constexpr int kMaxLevels = 4;

/// A camera's pose as the patches need it: world -> camera.
struct CameraPose {
  Eigen::Matrix3d R_cw = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t_cw = Eigen::Vector3d::Zero();

  Eigen::Vector3d to_camera(const Eigen::Vector3d& p_world) const { return R_cw * p_world + t_cw; }
  /// [m] the camera centre in the world.
  Eigen::Vector3d centre() const { return -R_cw.transpose() * t_cw; }
  /// From T_world_imu (R, p) and T_imu_camera.
  static CameraPose from_imu(const Eigen::Matrix3d& R, const Eigen::Vector3d& p, const Eigen::Isometry3d& T_imu_camera);
};

/// The offset of sample k of a patch with 2 half samples per side [px of its level].
inline double patch_offset(int k, int half) { return static_cast<double>(k) - (2.0 * half - 1.0) / 2.0; }

/// The affine warp A = d uv_ref / d uv_cur at the projections of `point_world`, for pixels on the
/// plane through `point_world` with normal `normal_world`: a pixel near the point in the current image
/// is cast onto the plane and projected into the reference image; A is the central difference over
/// `step` [px, level 0]. False when the point or a stepped ray does not project in either camera, or
/// the plane is seen edge-on from either (no well-defined warp).
bool affine_warp(const camera::CameraModel& camera, const CameraPose& ref, const CameraPose& cur, const Eigen::Vector3d& point_world,
                 const Eigen::Vector3d& normal_world, Eigen::Matrix2d& A_ref_cur, double step = 2.0);

/// A reference patch: `size` x `size` samples per level (size = 2 (half + margin)), centred on the
/// point's projection in the reference image at each level, as 8-bit grey levels of that image times
/// its inverse exposure (the radiance up to the gauge of the first image). The margin lets the warp
/// scale and shear the current patch's footprint before it leaves the stored samples.
struct RefPatch {
  CameraPose pose;             ///< the reference camera
  float inverse_exposure = 1.0f;
  std::uint32_t frame = 0;     ///< the image it was taken from (frontend's counter)
  int levels = 0;
  int size = 0;                ///< samples per side per level
  std::vector<std::uint8_t> samples;  ///< levels x size x size, level-major, row-major

  /// Cuts the patch from `pyramid` around `uv0` (level-0 pixels); false when any sample would leave a
  /// level (the point is too close to the border).
  bool cut(const std::vector<camera::GrayImage>& pyramid, const Eigen::Vector2d& uv0, int levels, int half, int margin);

  /// The radiance at `q` [px of `level`] relative to the patch centre (bilinear in the stored samples,
  /// times inverse_exposure); false outside the samples.
  bool radiance(int level, const Eigen::Vector2d& q, float& value) const;

  /// The 2 half x 2 half radiances of the current patch's samples at `level` seen through A: sample
  /// (i, j) of the current patch (offsets o_i, o_j) reads the reference at A (o_i, o_j). False when
  /// any of them falls outside the stored samples.
  bool warp(int level, int half, const Eigen::Matrix2d& A_ref_cur, std::vector<float>& out) const;
};

/// Shi-Tomasi corner score at `uv` of `img`: the smaller eigenvalue of the structure tensor of the
/// bilinear gradients on a 5 x 5 grid with 1 px spacing [grey^2 / px^2, mean per sample]; 0 outside.
/// A point with a low score has no texture to align and makes a poor visual map point.
double corner_score(const camera::GrayImage& img, const Eigen::Vector2d& uv);

}  // namespace asuka::visual
