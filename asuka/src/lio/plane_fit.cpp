#include <asuka/lio/plane_fit.hpp>

#include <cmath>

#include <asuka/math/sym3.hpp>

namespace asuka::lio {

bool fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, Plane& plane, double min_spread) {
  if (points.size() < 3) return false;
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (const auto& p : points) mean += p.cast<double>();
  mean /= static_cast<double>(points.size());
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (const auto& p : points) {
    const Eigen::Vector3d q = p.cast<double>() - mean;
    cov += q * q.transpose();
  }
  sym3::SmallestEigen eigen;
  if (!sym3::smallest_eigen(cov, eigen)) return false;
  // Reject (nearly) collinear neighbours: points on one scan line lie in infinitely many planes, and
  // spinning lidars moving level draw walls as such lines. The middle spread must be real.
  const double n = static_cast<double>(points.size());
  if (eigen.value1 / n < min_spread * min_spread) return false;
  plane.normal = eigen.vector0;
  plane.d = -plane.normal.dot(mean);
  for (const auto& p : points) {
    if (std::fabs(plane.normal.dot(p.cast<double>()) + plane.d) > max_residual) return false;
  }
  return true;
}

}  // namespace asuka::lio
