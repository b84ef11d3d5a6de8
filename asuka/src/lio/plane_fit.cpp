#include <asuka/lio/plane_fit.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>

#include <asuka/math/sym3.hpp>

namespace asuka::lio {

namespace {

/// Whether the points still spread at least `min_spread` [m] across their main direction without the
/// point at `q` (relative to the centroid; `w2` its squared distance from the centroid within the
/// plane). `scatter` is the points' scatter matrix about the centroid, l0 <= l1 its two smallest
/// eigenvalues (l0 along the plane's normal), `size` the number of points.
///
/// Removing a point takes size / (size - 1) w w^T from the scatter within the plane (w the point's
/// offset in it; the centroid moves too). By Weyl's inequality the smaller in-plane eigenvalue then
/// drops by at most that times |w|^2, which settles most points at once; for the rest, the 2 x 2
/// in-plane scatter's eigenvalue from its trace and determinant, where with l2 the largest
/// eigenvalue det = l1 l2 - a ((l1 + l2) |w|^2 - w^T S w) (w lies in the plane, so w^T S w = l1 w1^2
/// + l2 w2^2 in the eigenvectors' coordinates).
bool spread_without(const Eigen::Matrix3d& scatter, double l0, double l1, const Eigen::Vector3d& q, double w2, double size, double min_spread) {
  const double threshold = min_spread * min_spread * (size - 1.0);
  const double a = size / (size - 1.0);
  if (l1 - a * w2 >= threshold) return true;
  const double l2 = scatter.trace() - l0 - l1;
  // The in-plane part of q (q minus its normal component): w^T S w = q^T S q - l0 r^2 for q = w + r n.
  const double r2 = q.squaredNorm() - w2;
  const double wSw = q.dot(scatter * q) - l0 * r2;
  const double trace = l1 + l2 - a * w2;
  const double det = l1 * l2 - a * ((l1 + l2) * w2 - wSw);
  const double smaller = 0.5 * (trace - std::sqrt(std::max(trace * trace - 4.0 * det, 0.0)));
  return smaller >= threshold;
}

}  // namespace

PlaneFit fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, double min_spread, Plane& plane, SpreadTest spread_test) {
  return fit_plane(points.data(), points.size(), points.size(), max_residual, min_spread, plane, spread_test);
}

PlaneFit fit_plane(const Eigen::Vector3f* points, std::size_t first_count, std::size_t count, double max_residual, double min_spread,
                   Plane& plane, SpreadTest spread_test) {
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
    // Three points span any plane: leaving one out leaves a line, so they are not tested.
    const bool test_each = spread_test == SpreadTest::without_any_one && n > 3;
    bool hinged = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Eigen::Vector3d q = points[i].cast<double>() - origin - mean;  // from the centroid
      const double r = plane.normal.dot(q);
      if (std::fabs(r) > max_residual) return PlaneFit::not_planar;
      if (test_each && !hinged) hinged = !spread_without(cov, l0, l1, q, q.squaredNorm() - r * r, size, min_spread);
    }
    if (!hinged) return PlaneFit::ok;
    if (n >= count) return PlaneFit::thin;  // else the wider set, as for a strip
  }
}

bool surface_offset(const Eigen::Vector3f* points, std::size_t count, const Plane& plane, const Eigen::Vector3d& query, double max_offset,
                    double& offset) {
  Surface surface;
  if (!surface_fit(points, count, plane, query, max_offset, surface)) return false;
  offset = surface.coefficients[0];
  return true;
}

double Surface::height(const Plane& plane, const Eigen::Vector3d& point) const {
  const Eigen::Vector3d& n = plane.normal;
  const Eigen::Vector3d e1 = n.unitOrthogonal();
  const Eigen::Vector3d e2 = n.cross(e1);
  const Eigen::Vector3d p = point - origin;
  const double u = e1.dot(p), v = e2.dot(p);
  const auto& c = coefficients;
  return c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v;
}

bool surface_fit(const Eigen::Vector3f* points, std::size_t count, const Plane& plane, const Eigen::Vector3d& query, double max_offset,
                 Surface& surface) {
  if (count < 8) return false;
  const Eigen::Vector3d& n = plane.normal;
  const Eigen::Vector3d e1 = n.unitOrthogonal();
  const Eigen::Vector3d e2 = n.cross(e1);
  const Eigen::Vector3d foot = query - (n.dot(query) + plane.d) * n;
  Eigen::Matrix<double, 6, 6> A = Eigen::Matrix<double, 6, 6>::Zero();
  Eigen::Matrix<double, 6, 1> b = Eigen::Matrix<double, 6, 1>::Zero();
  std::size_t used = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Eigen::Vector3d p = points[i].cast<double>() - foot;
    const double h = n.dot(p);
    if (std::fabs(h) > max_offset) continue;  // another surface (a step, a corner's other face), not this one's curve
    const double u = e1.dot(p), v = e2.dot(p);
    Eigen::Matrix<double, 6, 1> phi;
    phi << 1.0, u, v, u * u, u * v, v * v;
    A.selfadjointView<Eigen::Lower>().rankUpdate(phi);
    b += phi * h;
    ++used;
  }
  if (used < 8) return false;
  const Eigen::LDLT<Eigen::Matrix<double, 6, 6>, Eigen::Lower> ldlt(A);
  if (ldlt.info() != Eigen::Success) return false;
  const auto pivots = ldlt.vectorD();
  if (!(pivots.minCoeff() > 1e-9 * pivots.maxCoeff())) return false;
  const Eigen::Matrix<double, 6, 1> x = ldlt.solve(b);
  if (!x.allFinite() || std::fabs(x[0]) > max_offset) return false;
  surface.origin = foot;
  surface.coefficients = x;
  return true;
}

}  // namespace asuka::lio
