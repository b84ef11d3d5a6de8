#pragma once
// SO(3) maths shared by the frontends: hat/vee, exponential and logarithm maps, right Jacobian.
// Header-only (small, inlined in the hot loops). Rotation vectors in radians.

#include <cmath>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace asuka::so3 {

/// Skew-symmetric matrix: hat(a) b = a x b.
inline Eigen::Matrix3d hat(const Eigen::Vector3d& a) {
  Eigen::Matrix3d m;
  m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return m;
}

inline Eigen::Vector3d vee(const Eigen::Matrix3d& m) { return {m(2, 1), m(0, 2), m(1, 0)}; }

/// Exp: rotation vector -> rotation matrix (Rodrigues), R = I + a [w]x + b [w]x^2 with
/// a = sin(t) / t and b = (1 - cos(t)) / t^2, t = |w|. Below t = 0.01 (the turn between two IMU
/// samples, or over a point's time offset) a and b come from their series, which at that size are
/// exact in double precision (the first omitted terms are below 1e-21) and, unlike 1 - cos(t),
/// do not cancel. [w]x^2 = w w^T - t^2 I is written out: no matrix product.
inline Eigen::Matrix3d exp(const Eigen::Vector3d& w) {
  const double t2 = w.squaredNorm();
  double a, b;
  if (t2 < 1e-4) {
    a = 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0));
    b = 0.5 * (1.0 - t2 / 12.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0)));
  } else {
    const double t = std::sqrt(t2);
    a = std::sin(t) / t;
    b = (1.0 - std::cos(t)) / t2;
  }
  const double x = w.x(), y = w.y(), z = w.z();
  const double bxy = b * x * y, bxz = b * x * z, byz = b * y * z;
  Eigen::Matrix3d R;
  R << 1.0 - b * (y * y + z * z), bxy - a * z, bxz + a * y,
       bxy + a * z, 1.0 - b * (x * x + z * z), byz - a * x,
       bxz - a * y, byz + a * x, 1.0 - b * (x * x + y * y);
  return R;
}

/// Log: rotation matrix -> rotation vector in [0, pi].
inline Eigen::Vector3d log(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

/// Right Jacobian: Exp(w + d) ~ Exp(w) Exp(Jr(w) d).
inline Eigen::Matrix3d right_jacobian(const Eigen::Vector3d& w) {
  const double theta2 = w.squaredNorm();
  const Eigen::Matrix3d W = hat(w);
  if (theta2 < 1e-12) return Eigen::Matrix3d::Identity() - 0.5 * W;
  const double theta = std::sqrt(theta2);
  return Eigen::Matrix3d::Identity() - ((1.0 - std::cos(theta)) / theta2) * W + ((theta - std::sin(theta)) / (theta2 * theta)) * W * W;
}

/// (roll, pitch, yaw) [rad] of R = Rz(yaw) Ry(pitch) Rx(roll), as asuka_sim --extrinsic and the run's
/// sensor line give an extrinsic.
inline Eigen::Vector3d roll_pitch_yaw(const Eigen::Matrix3d& R) {
  const double s = -R(2, 0);
  return {std::atan2(R(2, 1), R(2, 2)), std::asin(s < -1.0 ? -1.0 : s > 1.0 ? 1.0 : s), std::atan2(R(1, 0), R(0, 0))};
}

/// Rotation taking unit-direction a onto unit-direction b (R a = b), used for gravity alignment
/// (R-IMU-3): exp of the normalized cross product times the angle; identity when parallel, a 180 deg
/// turn about an axis perpendicular to a when antiparallel (cross product below 1e-6).
inline Eigen::Matrix3d align(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  const Eigen::Vector3d an = a.normalized(), bn = b.normalized();
  const Eigen::Vector3d c = an.cross(bn);
  const double s = c.norm();
  const double d = an.dot(bn);
  if (s < 1e-6) {
    if (d > 0.0) return Eigen::Matrix3d::Identity();
    // Any axis perpendicular to a.
    Eigen::Vector3d axis = an.cross(Eigen::Vector3d::UnitX());
    if (axis.norm() < 1e-3) axis = an.cross(Eigen::Vector3d::UnitY());
    return Eigen::AngleAxisd(M_PI, axis.normalized()).toRotationMatrix();
  }
  return exp(c / s * std::atan2(s, d));
}

}  // namespace asuka::so3
