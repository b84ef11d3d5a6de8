// SO(3) maths (asuka/math/so3.hpp): exp and log, the right Jacobian, the series branch of exp, and
// the gravity alignment of R-IMU-3.

#include <cmath>

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <asuka/math/so3.hpp>

namespace asuka {
namespace {

TEST(So3Test, R_IMU_3_AlignHandlesParallelAndAntiparallel) {
  EXPECT_TRUE(so3::align(Eigen::Vector3d(0, 0, 2), Eigen::Vector3d(0, 0, 1)).isIdentity(1e-12));
  const Eigen::Matrix3d flip = so3::align(Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0, 0, -1));
  EXPECT_LT((flip * Eigen::Vector3d(0, 0, 1) - Eigen::Vector3d(0, 0, -1)).norm(), 1e-12);
  EXPECT_NEAR(flip.determinant(), 1.0, 1e-12);
  const Eigen::Vector3d a(1, 2, 3), b(-2, 0.5, 1);
  EXPECT_LT((so3::align(a, b) * a.normalized() - b.normalized()).norm(), 1e-12);
}

TEST(So3Test, ExpLogAndRightJacobian) {
  for (const Eigen::Vector3d& w : {Eigen::Vector3d(0.1, -0.2, 0.3), Eigen::Vector3d(1e-9, 0, 0), Eigen::Vector3d(2.0, 1.0, -0.5)}) {
    EXPECT_LT((so3::log(so3::exp(w)) - w).norm(), 1e-9);
    const Eigen::Vector3d d(1e-6, -2e-6, 1.5e-6);
    // Exp(w + d) = Exp(w) Exp(Jr(w) d) to first order.
    const Eigen::Matrix3d lhs = so3::exp(w + d);
    const Eigen::Matrix3d rhs = so3::exp(w) * so3::exp(so3::right_jacobian(w) * d);
    EXPECT_LT((lhs - rhs).norm(), 1e-10);
  }
}

TEST(So3Test, SeriesAndClosedFormAgreeWithAngleAxisOnBothSidesOfTheSwitch) {
  const Eigen::Vector3d axis = Eigen::Vector3d(0.3, -0.8, 0.5).normalized();
  for (double angle : {0.0, 1e-12, 1e-6, 1e-3, 0.0099, 0.00999999, 0.01, 0.0100001, 0.0101, 0.1, 1.0, 3.0}) {
    const Eigen::Matrix3d R = so3::exp(angle * axis);
    const Eigen::Matrix3d reference = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
    EXPECT_LT((R - reference).cwiseAbs().maxCoeff(), 2e-16 + 1e-15 * angle) << "angle " << angle;
    EXPECT_LT((R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-15) << "angle " << angle;
  }
}

}  // namespace
}  // namespace asuka
