#include <asuka/camera/camera_model.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace asuka::camera {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Below this normalized radius (or ratio |(x, y)| / z) the fisheye formulas, which divide by the
/// radius, are replaced by their Taylor expansion about the axis (exact to double precision there).
constexpr double kAxisRadius = 1e-8;

struct DistortionName {
  Distortion distortion;
  const char* name;
};
constexpr DistortionName kDistortionNames[] = {{Distortion::NONE, "none"},
                                               {Distortion::RADTAN, "radtan"},
                                               {Distortion::EQUIDISTANT, "equidistant"},
                                               {Distortion::RADTAN, "plumb_bob"},
                                               {Distortion::EQUIDISTANT, "fisheye"}};

/// First root of `f` in (lo, hi], where f(lo) > 0, found by scanning the points lo < next(lo) <
/// next(next(lo)) < ... <= hi for the first one where f <= 0 and bisecting the interval before it;
/// `none` when f stays positive. A dip below zero narrower than one step is missed (the scans below
/// use 4096 steps, so such a fold is negligibly small).
template <typename F, typename Next>
double first_root(const F& f, double lo, double hi, const Next& next, double none) {
  double prev = lo;
  for (double x = next(lo); prev < hi; prev = x, x = next(x)) {
    if (x > hi) x = hi;
    if (f(x) > 0.0) continue;
    double a = prev, b = x;  // f(a) > 0 >= f(b)
    for (int i = 0; i < 200 && b - a > 0.0; ++i) {
      const double m = 0.5 * (a + b);
      if (m <= a || m >= b) break;
      (f(m) > 0.0 ? a : b) = m;
    }
    return b;
  }
  return none;
}

const char* coefficient_name(Distortion distortion, std::size_t i) {
  static const char* const radtan[] = {"k1", "k2", "p1", "p2", "k3"};
  static const char* const equidistant[] = {"k1", "k2", "k3", "k4"};
  if (distortion == Distortion::RADTAN && i < 5) return radtan[i];
  if (distortion == Distortion::EQUIDISTANT && i < 4) return equidistant[i];
  return "?";
}

}  // namespace

const char* to_string(Distortion distortion) {
  for (const auto& entry : kDistortionNames) {
    if (entry.distortion == distortion) return entry.name;  // the canonical names come first
  }
  return "unknown";
}

bool distortion_from_string(const std::string& name, Distortion& distortion) {
  for (const auto& entry : kDistortionNames) {
    if (name == entry.name) {
      distortion = entry.distortion;
      return true;
    }
  }
  return false;
}

std::string CameraModel::check(const CameraIntrinsics& c) {
  if (c.width <= 0) return fmt::format("camera width is {} px; expected a positive image width", c.width);
  if (c.height <= 0) return fmt::format("camera height is {} px; expected a positive image height", c.height);
  if (!(c.fx > 0.0) || !std::isfinite(c.fx)) return fmt::format("camera fx is {} px; expected a positive, finite focal length", c.fx);
  if (!(c.fy > 0.0) || !std::isfinite(c.fy)) return fmt::format("camera fy is {} px; expected a positive, finite focal length", c.fy);
  // The image spans [-0.5, size - 0.5] in the pixel-centre convention.
  if (!(c.cx >= -0.5 && c.cx <= c.width - 0.5)) {
    return fmt::format("camera cx is {} px, outside the image; expected the principal point within [-0.5, {}] (width {} px)", c.cx, c.width - 0.5, c.width);
  }
  if (!(c.cy >= -0.5 && c.cy <= c.height - 0.5)) {
    return fmt::format("camera cy is {} px, outside the image; expected the principal point within [-0.5, {}] (height {} px)", c.cy, c.height - 0.5, c.height);
  }
  const std::size_t n = c.coeffs.size();
  switch (c.distortion) {
    case Distortion::NONE:
      if (n != 0) return fmt::format("distortion 'none' has {} coefficients; expected 0", n);
      break;
    case Distortion::RADTAN:
      if (n != 4 && n != 5) return fmt::format("distortion 'radtan' has {} coefficients; expected 4 (k1 k2 p1 p2) or 5 (k1 k2 p1 p2 k3)", n);
      break;
    case Distortion::EQUIDISTANT:
      if (n != 4) return fmt::format("distortion 'equidistant' has {} coefficients; expected 4 (k1 k2 k3 k4)", n);
      break;
    default:
      return fmt::format("distortion {} is not a known model; expected none, radtan or equidistant", static_cast<int>(c.distortion));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(c.coeffs[i])) {
      return fmt::format("distortion '{}' coefficient {} ({}) is {}; expected a finite number", to_string(c.distortion), i, coefficient_name(c.distortion, i),
                         c.coeffs[i]);
    }
  }
  return "";
}

CameraModel::CameraModel(const CameraIntrinsics& intrinsics) : intrinsics_(intrinsics) {
  const std::string problem = check(intrinsics_);
  if (!problem.empty()) throw std::invalid_argument("CameraModel: " + problem);
  for (std::size_t i = 0; i < intrinsics_.coeffs.size(); ++i) k_[i] = intrinsics_.coeffs[i];

  max_r2_ = kInfinity;
  max_theta_ = kPi;
  if (intrinsics_.distortion == Distortion::RADTAN) {
    // d(r R(r))/dr with R = 1 + k1 r^2 + k2 r^4 + k3 r^6, as a cubic in u = r^2; scanned geometrically
    // over u in (1e-8, 1e4] (r up to 100).
    const double k1 = k_[0], k2 = k_[1], k3 = k_[4];
    const auto slope = [&](double u) { return 1.0 + u * (3.0 * k1 + u * (5.0 * k2 + u * 7.0 * k3)); };
    const double ratio = std::pow(1e12, 1.0 / 4096.0);
    const auto next = [&](double u) { return u <= 0.0 ? 1e-8 : u * ratio; };
    max_r2_ = first_root(slope, 0.0, 1e4, next, kInfinity);
  } else if (intrinsics_.distortion == Distortion::EQUIDISTANT) {
    const auto slope = [&](double theta) {
      double derivative = 0.0;
      fisheye_theta_d(theta, &derivative);
      return derivative;
    };
    const double step = kPi / 4096.0;
    const auto next = [&](double theta) { return theta + step; };
    max_theta_ = first_root(slope, 0.0, kPi, next, kPi);
  }
}

double CameraModel::max_incidence_angle() const {
  switch (intrinsics_.distortion) {
    case Distortion::EQUIDISTANT:
      return max_theta_;
    case Distortion::RADTAN:
      if (std::isfinite(max_r2_)) return std::atan(std::sqrt(max_r2_));
      return 0.5 * kPi;
    default:
      return 0.5 * kPi;
  }
}

double CameraModel::fisheye_theta_d(double theta, double* derivative) const {
  const double t2 = theta * theta;
  const double poly = 1.0 + t2 * (k_[0] + t2 * (k_[1] + t2 * (k_[2] + t2 * k_[3])));
  if (derivative != nullptr) *derivative = 1.0 + t2 * (3.0 * k_[0] + t2 * (5.0 * k_[1] + t2 * (7.0 * k_[2] + t2 * 9.0 * k_[3])));
  return theta * poly;
}

bool CameraModel::fisheye_theta(double theta_d, double& theta) const {
  // theta_d(theta) increases on [0, max_theta_): Newton kept inside a shrinking bracket, bisecting
  // whenever a Newton step would leave it, converges from any start.
  if (!(theta_d >= 0.0)) return false;
  if (theta_d == 0.0) {
    theta = 0.0;
    return true;
  }
  double lo = 0.0, hi = max_theta_;
  if (!(theta_d < fisheye_theta_d(hi))) return false;
  double t = theta_d < hi ? theta_d : 0.5 * hi;
  // One more step once within the tolerance: Newton squares the error, which puts it at rounding level.
  int polish = 1;
  double best_t = t, best_f = kInfinity;
  for (int i = 0; i < kMaxIterations; ++i) {
    double slope = 0.0;
    const double f = fisheye_theta_d(t, &slope) - theta_d;
    if (std::fabs(f) < best_f) {
      best_t = t;
      best_f = std::fabs(f);
    }
    if (f == 0.0 || (best_f < kUndistortTolerance && polish-- == 0)) break;
    (f > 0.0 ? hi : lo) = t;
    double next = slope > 0.0 ? t - f / slope : lo - 1.0;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    t = next;
  }
  if (!(best_f < kUndistortTolerance)) return false;
  theta = best_t;
  return true;
}

Eigen::Vector2d CameraModel::distort(const Eigen::Vector2d& xn, Eigen::Matrix2d* J) const {
  const double x = xn.x(), y = xn.y();
  switch (intrinsics_.distortion) {
    case Distortion::RADTAN: {
      // OpenCV plumb_bob: xd = x R + 2 p1 x y + p2 (r^2 + 2 x^2), yd = y R + p1 (r^2 + 2 y^2) + 2 p2 x y,
      // R = 1 + k1 r^2 + k2 r^4 + k3 r^6.
      const double k1 = k_[0], k2 = k_[1], p1 = k_[2], p2 = k_[3], k3 = k_[4];
      const double r2 = x * x + y * y;
      const double radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
      if (J != nullptr) {
        const double dradial_dr2 = k1 + r2 * (2.0 * k2 + r2 * 3.0 * k3);  // dR/dx = 2 x dR/d(r^2)
        const double cross = 2.0 * x * y * dradial_dr2 + 2.0 * p1 * x + 2.0 * p2 * y;
        (*J) << radial + 2.0 * x * x * dradial_dr2 + 2.0 * p1 * y + 6.0 * p2 * x, cross,  //
            cross, radial + 2.0 * y * y * dradial_dr2 + 6.0 * p1 * y + 2.0 * p2 * x;
      }
      return {x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x), y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y};
    }
    case Distortion::EQUIDISTANT: {
      // OpenCV fisheye: theta = atan(r), xd = theta_d(theta) / r * xn =: g(r) xn, so
      // J = g I + (g'(r) / r) xn xn^T with g'(r) = (theta_d'(theta) / (1 + r^2) - g) / r.
      const double r2 = x * x + y * y;
      const double r = std::sqrt(r2);
      double g = 0.0, h = 0.0;  // h = g'(r) / r
      if (r < kAxisRadius) {
        g = 1.0 + (k_[0] - 1.0 / 3.0) * r2;  // theta_d(atan r) = r + (k1 - 1/3) r^3 + O(r^5)
        h = 2.0 * (k_[0] - 1.0 / 3.0);
      } else {
        double slope = 0.0;
        g = fisheye_theta_d(std::atan(r), &slope) / r;
        h = (slope / (1.0 + r2) - g) / r2;
      }
      if (J != nullptr) *J = g * Eigen::Matrix2d::Identity() + h * xn * xn.transpose();
      return g * xn;
    }
    default:
      if (J != nullptr) J->setIdentity();
      return xn;
  }
}

bool CameraModel::undistort(const Eigen::Vector2d& xd, Eigen::Vector2d& xn) const {
  if (!xd.allFinite()) return false;
  switch (intrinsics_.distortion) {
    case Distortion::RADTAN: {
      // Newton on distort(xn) - xd from xn = xd, halving a step that would raise the residual or leave
      // the validity region (past the fold Newton could settle on the wrong branch).
      Eigen::Vector2d x = xd;
      Eigen::Matrix2d J;
      Eigen::Vector2d e = distort(x, &J) - xd;
      double norm = e.norm();
      // One more step once within the tolerance: Newton squares the error, which puts it at rounding level.
      int polish = 1;
      for (int i = 0; i < kMaxIterations; ++i) {
        if (norm < kUndistortTolerance && polish-- == 0) break;
        const double det = J(0, 0) * J(1, 1) - J(0, 1) * J(1, 0);
        if (!(std::fabs(det) > 0.0) || !std::isfinite(det)) break;
        const Eigen::Vector2d step = (Eigen::Matrix2d() << J(1, 1), -J(0, 1), -J(1, 0), J(0, 0)).finished() * e / det;
        bool improved = false;
        const double min_t = norm < kUndistortTolerance ? 1.0 : 1e-6;  // polishing: the full step or nothing
        for (double t = 1.0; t >= min_t; t *= 0.5) {
          const Eigen::Vector2d candidate = x - t * step;
          if (!(candidate.squaredNorm() < max_r2_)) continue;
          Eigen::Matrix2d J_candidate;
          const Eigen::Vector2d e_candidate = distort(candidate, &J_candidate) - xd;
          const double norm_candidate = e_candidate.norm();
          if (norm_candidate < norm) {
            x = candidate;
            J = J_candidate;
            e = e_candidate;
            norm = norm_candidate;
            improved = true;
            break;
          }
        }
        if (!improved) break;  // stalled (at rounding level when polishing): converged only if within the tolerance
      }
      if (!(norm < kUndistortTolerance) || !(x.squaredNorm() < max_r2_)) return false;
      xn = x;
      return true;
    }
    case Distortion::EQUIDISTANT: {
      const double theta_d = xd.norm();
      double theta = 0.0;
      if (!fisheye_theta(theta_d, theta)) return false;
      if (!(theta < 0.5 * kPi)) return false;
      xn = theta_d > 0.0 ? Eigen::Vector2d(std::tan(theta) / theta_d * xd) : Eigen::Vector2d::Zero();
      return true;
    }
    default:
      xn = xd;
      return true;
  }
}

bool CameraModel::project(const Eigen::Vector3d& p, Eigen::Vector2d& uv, Eigen::Matrix<double, 2, 3>* J) const {
  const double fx = intrinsics_.fx, fy = intrinsics_.fy;
  if (!p.allFinite()) return false;
  if (intrinsics_.distortion == Distortion::EQUIDISTANT) {
    // Directly from the angle, so rays at or beyond 90 deg work: theta = atan2(rho, z), rho = |(x, y)|,
    // uv = f s (x, y) + c with s = theta_d(theta) / rho. With n^2 = rho^2 + z^2,
    //   ds/dx = a x, ds/dy = a y, a = (theta_d' z / n^2 - s) / rho^2;  ds/dz = -theta_d' / n^2.
    const double X = p.x(), Y = p.y(), Z = p.z();
    const double rho2 = X * X + Y * Y;
    const double rho = std::sqrt(rho2);
    if (rho == 0.0 && !(Z > 0.0)) return false;  // the origin, or straight behind
    const double theta = std::atan2(rho, Z);
    if (!(theta < max_theta_)) return false;
    const double n2 = rho2 + Z * Z;
    double slope = 0.0;
    const double theta_d = fisheye_theta_d(theta, &slope);
    double s = 0.0, a = 0.0;
    if (rho < kAxisRadius * Z) {
      const double t2 = rho2 / (Z * Z);  // s = g(t) / z with g(t) = 1 + (k1 - 1/3) t^2 + O(t^4), t = rho / z
      s = (1.0 + (k_[0] - 1.0 / 3.0) * t2) / Z;
      a = 2.0 * (k_[0] - 1.0 / 3.0) / (Z * Z * Z);
    } else {
      s = theta_d / rho;
      a = (slope * Z / n2 - s) / rho2;
    }
    uv = Eigen::Vector2d(fx * s * X + intrinsics_.cx, fy * s * Y + intrinsics_.cy);
    if (J != nullptr) {
      const double ds_dz = -slope / n2;
      (*J) << fx * (s + a * X * X), fx * a * X * Y, fx * X * ds_dz,  //
          fy * a * X * Y, fy * (s + a * Y * Y), fy * Y * ds_dz;
    }
    return true;
  }

  if (!(p.z() > kMinDepth)) return false;
  const double inv_z = 1.0 / p.z();
  const Eigen::Vector2d xn(p.x() * inv_z, p.y() * inv_z);
  if (!(xn.squaredNorm() < max_r2_)) return false;
  Eigen::Matrix2d J_distort;
  const Eigen::Vector2d xd = distort(xn, J != nullptr ? &J_distort : nullptr);
  uv = Eigen::Vector2d(fx * xd.x() + intrinsics_.cx, fy * xd.y() + intrinsics_.cy);
  if (J != nullptr) {
    Eigen::Matrix<double, 2, 3> J_normalize;     // d xn / d p
    J_normalize << inv_z, 0.0, -xn.x() * inv_z,  //
        0.0, inv_z, -xn.y() * inv_z;
    *J = Eigen::Vector2d(fx, fy).asDiagonal() * (J_distort * J_normalize);
  }
  return true;
}

bool CameraModel::unproject(const Eigen::Vector2d& uv, Eigen::Vector3d& ray) const {
  const Eigen::Vector2d xd((uv.x() - intrinsics_.cx) / intrinsics_.fx, (uv.y() - intrinsics_.cy) / intrinsics_.fy);
  if (!xd.allFinite()) return false;
  if (intrinsics_.distortion == Distortion::EQUIDISTANT) {
    const double theta_d = xd.norm();
    double theta = 0.0;
    if (!fisheye_theta(theta_d, theta)) return false;
    if (theta_d == 0.0) {
      ray = Eigen::Vector3d::UnitZ();
      return true;
    }
    const double sin_over = std::sin(theta) / theta_d;
    ray = Eigen::Vector3d(sin_over * xd.x(), sin_over * xd.y(), std::cos(theta));
    return true;
  }
  Eigen::Vector2d xn;
  if (!undistort(xd, xn)) return false;
  ray = Eigen::Vector3d(xn.x(), xn.y(), 1.0).normalized();
  return true;
}

bool CameraModel::in_image(const Eigen::Vector2d& uv, double border) const {
  return uv.x() >= border && uv.x() < intrinsics_.width - 1 - border && uv.y() >= border && uv.y() < intrinsics_.height - 1 - border;
}

}  // namespace asuka::camera
