#pragma once
// The smallest eigenpair of a symmetric positive semi-definite 3 x 3 matrix (a covariance), without
// trigonometry: Newton's method on the characteristic polynomial from zero, then the eigenvector as
// the largest cross product of two rows of (C - lambda0 I). Plane fits call this once per scan
// point, where a general 3 x 3 eigen-solver (cube roots through acos, cos and sin, then the kernel)
// was a fifth of the registration time.

#include <Eigen/Core>

namespace asuka::sym3 {

struct SmallestEigen {
  double value0 = 0.0;                                 ///< the smallest eigenvalue
  double value1 = 0.0;                                 ///< the middle eigenvalue
  Eigen::Vector3d vector0 = Eigen::Vector3d::UnitZ();  ///< unit eigenvector of value0 (sign arbitrary)
};

/// The smallest eigenvalue, the middle one and the smallest's eigenvector of a symmetric positive
/// semi-definite `c`. Where the two smallest eigenvalues are
/// too close for the closed form (a gap below 1e-3 of the trace: no plane), Eigen's iterative
/// SelfAdjointEigenSolver decides. Returns false for a non-finite matrix.
bool smallest_eigen(const Eigen::Matrix3d& c, SmallestEigen& out);

/// The two smallest eigenvalues l0 <= l1 of `c` alone (the closed form above, no eigenvector and
/// never the iterative solver): enough to tell a plane from a line, where the two are close and the
/// eigenvector would need the iterative solver. l1 is accurate to about sqrt(eps) of the trace near
/// a repeated root. Returns false for a non-finite matrix.
bool smallest_eigenvalues(const Eigen::Matrix3d& c, double& l0, double& l1);

/// smallest_eigen given smallest_eigenvalues' l0 and l1 of the same `c` (no second root search);
/// `c` must be finite, as smallest_eigenvalues returning true has checked.
bool smallest_eigen(const Eigen::Matrix3d& c, double l0, double l1, SmallestEigen& out);

}  // namespace asuka::sym3
