#include <asuka/math/sym3.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace asuka::sym3 {

namespace {
bool eigen_solver(const Eigen::Matrix3d& c, SmallestEigen& out) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(c);  // iterative: accurate on repeated eigenvalues
  if (solver.info() != Eigen::Success) return false;
  out.value0 = solver.eigenvalues()(0);
  out.value1 = solver.eigenvalues()(1);
  out.vector0 = solver.eigenvectors().col(0).normalized();
  return true;
}
}  // namespace

bool smallest_eigenvalues(const Eigen::Matrix3d& c, double& l0_out, double& l1_out) {
  const double a = c(0, 0), b = c(1, 1), f = c(2, 2), d = c(0, 1), e = c(1, 2), g = c(0, 2);
  // Characteristic polynomial p(l) = l^3 - tr l^2 + m l - det, with m the sum of the principal
  // 2 x 2 minors. Its roots are the eigenvalues l0 <= l1 <= l2, all >= 0.
  const double tr = a + b + f;
  const double m = a * b + b * f + f * a - d * d - e * e - g * g;
  const double det = a * (b * f - e * e) - d * (d * f - e * g) + g * (d * e - b * g);
  if (!std::isfinite(tr) || !std::isfinite(m) || !std::isfinite(det)) return false;
  if (!(tr > 0.0)) {  // the zero matrix (or not semi-definite)
    l0_out = l1_out = 0.0;
    return true;
  }
  // Newton from 0: left of the smallest root p is increasing and concave (its inflection is at
  // tr / 3 >= l0), so the iterates rise monotonically to l0 without overshooting. The first step
  // alone, det / m, is l0 to within a factor (1 - l0 / l1) for a plane.
  double l0 = 0.0;
  for (int iteration = 0; iteration < 64; ++iteration) {
    const double p = ((l0 - tr) * l0 + m) * l0 - det;
    const double dp = (3.0 * l0 - 2.0 * tr) * l0 + m;
    if (!(dp > 0.0) || !(p < 0.0)) break;
    const double step = -p / dp;
    l0 += step;
    if (step <= 1e-15 * tr) break;
  }
  // The other two are the roots of l^2 - s l + q with s = l1 + l2 = tr - l0 and q = l1 l2 =
  // m - l0 s; the smaller one in the form that does not cancel.
  const double s = tr - l0;
  const double q = std::max(0.0, m - l0 * s);
  const double root = std::sqrt(std::max(0.0, s * s - 4.0 * q));
  l0_out = l0;
  l1_out = s + root > 0.0 ? 2.0 * q / (s + root) : 0.0;
  return true;
}

bool smallest_eigen(const Eigen::Matrix3d& c, SmallestEigen& out) {
  double l0 = 0.0, l1 = 0.0;
  if (!smallest_eigenvalues(c, l0, l1)) return false;
  return smallest_eigen(c, l0, l1, out);
}

bool smallest_eigen(const Eigen::Matrix3d& c, double l0, double l1, SmallestEigen& out) {
  const double a = c(0, 0), b = c(1, 1), f = c(2, 2), d = c(0, 1), e = c(1, 2), g = c(0, 2);
  const double tr = a + b + f;
  if (!(tr > 0.0)) return eigen_solver(c, out);  // the zero matrix: no direction is preferred
  // Near a repeated root the polynomial pins l0 down only to sqrt(eps) (double) or cbrt(eps)
  // (triple) of tr: there the iterative solver decides. A plane's gap is far larger.
  if (l1 - l0 < 1e-3 * tr) return eigen_solver(c, out);
  // The eigenvector is orthogonal to every row of C - l0 I (rank 2): the largest cross product of
  // two rows is the best conditioned.
  const Eigen::Vector3d r0(a - l0, d, g), r1(d, b - l0, e), r2(g, e, f - l0);
  const Eigen::Vector3d c01 = r0.cross(r1), c02 = r0.cross(r2), c12 = r1.cross(r2);
  const double n01 = c01.squaredNorm(), n02 = c02.squaredNorm(), n12 = c12.squaredNorm();
  const Eigen::Vector3d& best = n01 >= n02 ? (n01 >= n12 ? c01 : c12) : (n02 >= n12 ? c02 : c12);
  const double norm2 = std::max({n01, n02, n12});
  if (!(norm2 > 0.0)) return eigen_solver(c, out);
  out.value0 = l0;
  out.value1 = l1;
  out.vector0 = best / std::sqrt(norm2);
  return true;
}

}  // namespace asuka::sym3
