#pragma once
// Camera models shared by the visual frontends: a pinhole camera with no distortion, with OpenCV's
// "plumb_bob" radial-tangential distortion, or with OpenCV's "fisheye" model (Kannala-Brandt,
// equidistant projection with an odd polynomial in the incidence angle). One concrete value type
// rather than a class hierarchy: the frontends project thousands of patch points per image, and a
// switch on the model inlines where a virtual call would not. The math follows OpenCV's documented
// models (calib3d "Camera Calibration and 3D Reconstruction" and the "Fisheye camera model" page).
//
// Conventions:
//   pixels      (u, v) = (column, row); integer coordinates are pixel centres, so pixel (0, 0)
//               covers [-0.5, 0.5]^2 and the image [-0.5, width - 0.5] x [-0.5, height - 0.5]
//               (OpenCV's and ROS's convention; cx, cy are given in it)
//   camera      x right, y down, z forward (optical axis), [m]
//   normalized  xn = (x / z, y / z), before distortion; xd after distortion, uv = (fx xd + cx, fy xd_y + cy)
//   bearings    unproject() returns unit-norm rays, not z = 1 points: a fisheye sees beyond 90 deg
//               from its axis, where no z = 1 point exists

#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka::camera {

/// The lens distortion model. Values are fixed (they may be logged).
enum class Distortion : int {
  NONE = 0,         ///< ideal pinhole, no coefficients
  RADTAN = 1,       ///< OpenCV plumb_bob: k1 k2 p1 p2 [k3]
  EQUIDISTANT = 2,  ///< OpenCV fisheye (Kannala-Brandt): k1 k2 k3 k4
};

/// Canonical lower-case name: "none", "radtan", "equidistant".
const char* to_string(Distortion distortion);
/// Parses a canonical name or an alias ("plumb_bob" for radtan, "fisheye" for equidistant); returns
/// false (and leaves `distortion` unchanged) for unknown names.
bool distortion_from_string(const std::string& name, Distortion& distortion);

/// What a calibration gives: image size, pinhole intrinsics and the distortion coefficients.
struct CameraIntrinsics {
  int width = 0;    ///< [px]
  int height = 0;   ///< [px]
  double fx = 0.0;  ///< [px] focal length along u
  double fy = 0.0;  ///< [px] focal length along v
  double cx = 0.0;  ///< [px] principal point, pixel-centre convention
  double cy = 0.0;  ///< [px]
  Distortion distortion = Distortion::NONE;
  /// RADTAN: k1 k2 p1 p2 or k1 k2 p1 p2 k3 (OpenCV order); EQUIDISTANT: k1 k2 k3 k4; NONE: empty.
  std::vector<double> coeffs;
};

/// A calibrated camera: projection of camera-frame points to pixels, back-projection of pixels to
/// bearings, and the distortion alone in normalized coordinates. Immutable after construction, so
/// one instance may be shared by threads.
///
/// Validity region: besides points behind the camera, project() refuses points beyond the first fold
/// of the distortion polynomial, where the radial map stops growing with the angle. Past a fold the
/// model maps far-away directions back into the image (a polynomial fitted on the image says nothing
/// out there), and back-projection would no longer be unique.
///   RADTAN       z > kMinDepth and r = |xn| below the first root of d(r (1 + k1 r^2 + k2 r^4 + k3 r^6))/dr
///                (tangential terms not counted; searched up to r = 100, i.e. 89.4 deg)
///   EQUIDISTANT  incidence angle theta = atan2(|(x, y)|, z) below the first root of d theta_d / d theta in
///                (0, pi), else below pi; points with z <= 0 are fine for lenses wider than 180 deg
///   NONE         z > kMinDepth
class CameraModel {
public:
  /// [m] project() refuses pinhole and radtan points with z at or below this.
  static constexpr double kMinDepth = 1e-9;
  /// Newton iterations of undistort() / unproject() before they give up.
  static constexpr int kMaxIterations = 50;
  /// Convergence of undistort() / unproject(): |distort(xn) - xd| in normalized coordinates.
  static constexpr double kUndistortTolerance = 1e-12;

  /// Throws std::invalid_argument with check()'s message when the intrinsics are invalid.
  explicit CameraModel(const CameraIntrinsics& intrinsics);

  /// Empty when `intrinsics` make a camera, otherwise what is wrong with the first bad field, its value
  /// and what was expected: sizes <= 0, focal lengths <= 0, a principal point outside the image,
  /// the wrong number of coefficients for the model, non-finite values.
  static std::string check(const CameraIntrinsics& intrinsics);

  const CameraIntrinsics& intrinsics() const { return intrinsics_; }
  int width() const { return intrinsics_.width; }
  int height() const { return intrinsics_.height; }
  Distortion distortion() const { return intrinsics_.distortion; }

  /// [rad] the largest angle from the optical axis project() accepts (exclusive): pi / 2 for NONE, the
  /// radial fold's angle for RADTAN (pi / 2 without one), the fold or pi for EQUIDISTANT.
  double max_incidence_angle() const;

  /// Projects `p_cam` [m] (camera frame) to the pixel `uv`. False (uv and J untouched) outside the
  /// validity region (class comment). `J`, if given, receives d uv / d p_cam [px/m] (analytic).
  bool project(const Eigen::Vector3d& p_cam, Eigen::Vector2d& uv, Eigen::Matrix<double, 2, 3>* J = nullptr) const;

  /// Back-projects the pixel `uv` to the unit-norm bearing `ray` (camera frame; project(s * ray) = uv
  /// for every s > 0). Iterative (Newton on the distortion, safeguarded): false when it does not
  /// converge to kUndistortTolerance within kMaxIterations or the solution is outside the validity
  /// region. The pixel itself may lie outside the image.
  bool unproject(const Eigen::Vector2d& uv, Eigen::Vector3d& ray) const;

  /// The distortion in normalized coordinates: xd = distort(xn). `J`, if given, receives d xd / d xn.
  /// Evaluates the polynomial everywhere, inside the validity region or not. EQUIDISTANT maps xn of
  /// radius r = tan(theta) to radius theta_d(theta).
  Eigen::Vector2d distort(const Eigen::Vector2d& xn, Eigen::Matrix2d* J = nullptr) const;

  /// Inverts distort(): the xn inside the validity region with distort(xn) = xd to kUndistortTolerance.
  /// False when there is none (or Newton does not converge within kMaxIterations), and for an
  /// EQUIDISTANT xd whose ray is 90 deg or more off the axis (it has no normalized coordinates; use
  /// unproject()).
  bool undistort(const Eigen::Vector2d& xd, Eigen::Vector2d& xn) const;

  /// True when `uv` lies in [border, width - 1 - border) x [border, height - 1 - border) [px]: for
  /// border 0 exactly where camera::sample() (image_pyramid.hpp) can interpolate, and for border b
  /// where it can interpolate at every offset of at most b from uv (a patch of half-size b).
  bool in_image(const Eigen::Vector2d& uv, double border = 0.0) const;

private:
  /// theta_d(theta) = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8) and, if asked, its derivative.
  double fisheye_theta_d(double theta, double* derivative = nullptr) const;
  /// Solves theta_d(theta) = theta_d in [0, max_theta_); false when there is no solution there.
  bool fisheye_theta(double theta_d, double& theta) const;

  CameraIntrinsics intrinsics_;
  double k_[5] = {0.0, 0.0, 0.0, 0.0, 0.0};  ///< RADTAN: k1 k2 p1 p2 k3; EQUIDISTANT: k1 k2 k3 k4 0
  double max_r2_ = 0.0;                      ///< RADTAN/NONE: squared normalized radius limit (infinity without a fold)
  double max_theta_ = 0.0;                   ///< EQUIDISTANT: incidence angle limit [rad]
};

}  // namespace asuka::camera
