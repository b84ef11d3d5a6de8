#include <asuka/lio/plane_fit.hpp>

#include <algorithm>
#include <cmath>

#include <asuka/math/sym3.hpp>

namespace asuka::lio {

PlaneFit fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, double min_spread, Plane& plane) {
  return fit_plane(points.data(), points.size(), points.size(), max_residual, min_spread, plane);
}

PlaneFit fit_plane(const Eigen::Vector3f* points, std::size_t first_count, std::size_t count, double max_residual, double min_spread,
                   Plane& plane) {
  first_count = std::min(first_count, count);
  if (first_count < 3) return PlaneFit::too_few;
  // The sums of the points relative to the first (small numbers, so that the covariance from the
  // sums, S - s s^T / n, keeps its precision), kept when the fit widens.
  const Eigen::Vector3d origin = points[0].cast<double>();
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  Eigen::Matrix3d outer = Eigen::Matrix3d::Zero();
  std::size_t n = 0;
  for (std::size_t end = first_count;; end = count) {
    for (; n < end; ++n) {
      const Eigen::Vector3d q = points[n].cast<double>() - origin;
      sum += q;
      outer += q * q.transpose();
    }
    const double size = static_cast<double>(n);
    const Eigen::Vector3d mean = sum / size;
    const Eigen::Matrix3d cov = outer - sum * sum.transpose() / size;  // symmetric to the last bit
    // Thin (plane_fit.hpp) is decided on the eigenvalues alone: a line's two smallest are close, and
    // its eigenvector would cost the iterative solver for nothing.
    double l0 = 0.0, l1 = 0.0;
    if (!sym3::smallest_eigenvalues(cov, l0, l1)) return PlaneFit::not_planar;
    if (l1 / size < min_spread * min_spread) {
      if (n >= count) return PlaneFit::thin;
      continue;  // the wider set
    }
    sym3::SmallestEigen eigen;
    if (!sym3::smallest_eigen(cov, l0, l1, eigen)) return PlaneFit::not_planar;
    plane.normal = eigen.vector0;
    plane.d = -plane.normal.dot(mean + origin);
    for (std::size_t i = 0; i < n; ++i) {
      if (std::fabs(plane.normal.dot(points[i].cast<double>()) + plane.d) > max_residual) return PlaneFit::not_planar;
    }
    return PlaneFit::ok;
  }
}

}  // namespace asuka::lio
