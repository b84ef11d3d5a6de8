// The closed-form smallest eigenpair of a symmetric 3x3 matrix used by the plane fits
// (asuka/math/sym3.hpp), checked against Eigen's general solver.

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <asuka/math/sym3.hpp>

namespace {

using asuka::sym3::SmallestEigen;
using asuka::sym3::smallest_eigen;

// The covariance of n points spread (sx, sy, sz) along a random frame, scaled by `scale`.
Eigen::Matrix3d patch_covariance(std::mt19937& rng, double sx, double sy, double sz, int n, double scale) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::Matrix3d frame = Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized().toRotationMatrix();
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  std::vector<Eigen::Vector3d> points;
  for (int i = 0; i < n; ++i) {
    points.push_back(scale * (frame * Eigen::Vector3d(sx * normal(rng), sy * normal(rng), sz * normal(rng))) + Eigen::Vector3d(40.0, -7.0, 2.0));
    mean += points.back();
  }
  mean /= n;
  Eigen::Matrix3d c = Eigen::Matrix3d::Zero();
  for (const auto& p : points) c += (p - mean) * (p - mean).transpose();
  return c;
}

void expect_eigenpair(const Eigen::Matrix3d& c, const SmallestEigen& e) {
  const double tr = c.trace();
  EXPECT_NEAR(e.vector0.norm(), 1.0, 1e-12);
  EXPECT_LE((c * e.vector0 - e.value0 * e.vector0).norm(), 1e-11 * tr);
}

TEST(Sym3Test, SmallestEigenpairMatchesEigenSolverOnPlanarPatches) {
  std::mt19937 rng(7);
  int checked = 0;
  for (double scale : {1e-4, 1.0, 1e3}) {
    for (double thickness : {0.0, 1e-4, 0.01, 0.1, 0.5}) {
      for (int trial = 0; trial < 50; ++trial) {
        const Eigen::Matrix3d c = patch_covariance(rng, 0.3, 0.2, thickness, 5 + trial % 3, scale);
        SmallestEigen e;
        ASSERT_TRUE(smallest_eigen(c, e));
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> reference(c);
        const double tr = c.trace();
        EXPECT_NEAR(e.value0, reference.eigenvalues()(0), 1e-12 * tr);
        EXPECT_NEAR(e.value1, reference.eigenvalues()(1), 1e-12 * tr);
        // Same direction up to sign, wherever the direction is well defined.
        if (reference.eigenvalues()(1) - reference.eigenvalues()(0) > 1e-3 * tr) {
          EXPECT_GT(std::fabs(e.vector0.dot(reference.eigenvectors().col(0))), 1.0 - 1e-10);
        }
        expect_eigenpair(c, e);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 750);
}

TEST(Sym3Test, RepeatedAndDegenerateSpectra) {
  SmallestEigen e;
  // Isotropic: every direction is an eigenvector.
  ASSERT_TRUE(smallest_eigen(Eigen::Matrix3d::Identity() * 2.0, e));
  EXPECT_NEAR(e.value0, 2.0, 1e-12);
  EXPECT_NEAR(e.value1, 2.0, 1e-12);
  expect_eigenpair(Eigen::Matrix3d::Identity() * 2.0, e);
  // Collinear points (rank 1): the two smallest are 0.
  const Eigen::Vector3d u = Eigen::Vector3d(1, 2, 3).normalized();
  const Eigen::Matrix3d line = 0.5 * u * u.transpose();
  ASSERT_TRUE(smallest_eigen(line, e));
  EXPECT_NEAR(e.value0, 0.0, 1e-12);
  EXPECT_NEAR(e.value1, 0.0, 1e-12);
  EXPECT_NEAR(e.vector0.dot(u), 0.0, 1e-12);
  // Exactly planar (rank 2): the normal is the null direction.
  const Eigen::Vector3d v = u.unitOrthogonal();
  const Eigen::Matrix3d plane = 0.5 * u * u.transpose() + 0.2 * v * v.transpose();
  ASSERT_TRUE(smallest_eigen(plane, e));
  EXPECT_NEAR(e.value0, 0.0, 1e-12);
  EXPECT_NEAR(e.value1, 0.2, 1e-12);
  EXPECT_NEAR(std::fabs(e.vector0.dot(u.cross(v))), 1.0, 1e-12);
  // The zero matrix.
  ASSERT_TRUE(smallest_eigen(Eigen::Matrix3d::Zero(), e));
  EXPECT_EQ(e.value0, 0.0);
  EXPECT_NEAR(e.vector0.norm(), 1.0, 1e-12);
}

TEST(Sym3Test, NonFiniteInputIsRejected) {
  SmallestEigen e;
  Eigen::Matrix3d c = Eigen::Matrix3d::Identity();
  c(1, 2) = c(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(smallest_eigen(c, e));
  c(1, 2) = c(2, 1) = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(smallest_eigen(c, e));
}

}  // namespace
