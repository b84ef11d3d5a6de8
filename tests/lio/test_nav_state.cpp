// The navigation state's prior at a static start (asuka/lio/nav_state.hpp, #21): the accelerometer's
// mean at rest cannot tell a horizontal accel bias from a tilt, so the prior couples the world-frame
// gravity to the bias, and a bias that a later measurement reveals moves gravity with it instead of
// turning into an acceleration.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>

#include <asuka/lio/nav_state.hpp>

namespace asuka::lio {
namespace {

constexpr int kBa = NavState::kBa, kGrav = NavState::kGrav, kVel = NavState::kVel, kDim = NavState::kDim;
using Matrix = Eigen::Matrix<double, kDim, kDim>;
using Vector = Eigen::Matrix<double, kDim, 1>;

/// A level-ish attitude turned by a yaw and tilted a little, as an initializer leaves it.
Eigen::Matrix3d attitude() {
  return (Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(0.02, Eigen::Vector3d::UnitX()) *
          Eigen::AngleAxisd(-0.01, Eigen::Vector3d::UnitY()))
      .toRotationMatrix();
}

Matrix rest_prior(bool coupled, const Eigen::Matrix3d& R) {
  Matrix P = Matrix::Zero();
  set_prior(P, NavPrior{});
  if (coupled) couple_gravity_to_accel_bias(P, R);
  return P;
}

/// The covariance of the world-frame acceleration a filter computes at rest, R (f - ba) + g, from the
/// errors of ba and g (f as measured): J = [-R at ba, I at g].
Eigen::Matrix3d acceleration_at_rest_covariance(const Matrix& P, const Eigen::Matrix3d& R) {
  Eigen::Matrix<double, 3, kDim> J = Eigen::Matrix<double, 3, kDim>::Zero();
  J.block<3, 3>(0, kBa) = -R;
  J.block<3, 3>(0, kGrav).setIdentity();
  return J * P * J.transpose();
}

TEST(NavStatePrior, Issue21_AtRestTheHorizontalBiasAndGravityShareOneUncertainty) {
  const Eigen::Matrix3d R = attitude();
  const NavPrior prior;
  const Matrix uncoupled = rest_prior(false, R);
  const Matrix coupled = rest_prior(true, R);
  // The bias's own uncertainty is unchanged: what a static start knows about it.
  EXPECT_TRUE((coupled.block<3, 3>(kBa, kBa).isApprox(uncoupled.block<3, 3>(kBa, kBa))));
  // The acceleration at rest, horizontally: the bias's whole variance without the coupling (a bias
  // revealed later is read as acceleration), only gravity's own small prior with it.
  const Eigen::Matrix3d a_uncoupled = acceleration_at_rest_covariance(uncoupled, R);
  const Eigen::Matrix3d a_coupled = acceleration_at_rest_covariance(coupled, R);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(a_uncoupled(i, i), prior.ba + prior.grav, 1e-12) << i;
    EXPECT_NEAR(a_coupled(i, i), prior.grav, 1e-12) << i;
  }
  EXPECT_NEAR(a_coupled(0, 1), 0.0, 1e-12);
  // Vertically the mean at rest measures the bias against the configured gravity: not coupled.
  EXPECT_NEAR(a_coupled(2, 2), a_uncoupled(2, 2), 1e-12);
  EXPECT_TRUE((coupled.block<3, 3>(kGrav, kBa).row(2).isZero()));
  // A second call (a restart) sets the same prior, it does not add to it.
  Matrix twice = coupled;
  couple_gravity_to_accel_bias(twice, R);
  EXPECT_TRUE(twice.isApprox(coupled));
  // Still a covariance: symmetric and positive definite.
  EXPECT_TRUE(coupled.isApprox(coupled.transpose()));
  EXPECT_EQ(Eigen::LLT<Matrix>(coupled).info(), Eigen::Success);
}

TEST(NavStatePrior, Issue21_ABiasRevealedLaterMovesGravityNotTheVelocity) {
  const Eigen::Matrix3d R = attitude();
  // A measurement of the bias along the body x axis (what a turn reveals to the LiDAR-corrected
  // filter), with a small noise: one Kalman update from the prior, innovation 0.08 m/s^2.
  Eigen::Matrix<double, 1, kDim> H = Eigen::Matrix<double, 1, kDim>::Zero();
  H(0, kBa) = 1.0;
  const double noise = 1e-6, innovation = 0.08;
  for (const bool coupled : {false, true}) {
    SCOPED_TRACE(coupled);
    const Matrix P = rest_prior(coupled, R);
    const Vector K = P * H.transpose() / ((H * P * H.transpose())(0, 0) + noise);
    const Vector dx = K * innovation;
    EXPECT_NEAR(dx[kBa], innovation, 0.002);  // the bias is taken up either way
    EXPECT_TRUE(dx.segment<3>(kVel).isZero());
    // The acceleration the filter integrates at the start's attitude changes by -R dba + dg.
    const Eigen::Vector3d da = -R * dx.segment<3>(kBa) + dx.segment<3>(kGrav);
    const double horizontal = da.head<2>().norm();
    if (coupled) {
      EXPECT_LT(horizontal, 0.01 * innovation);  // gravity moved with the bias
    } else {
      EXPECT_GT(horizontal, 0.9 * innovation);  // all of it became acceleration
    }
  }
}

}  // namespace
}  // namespace asuka::lio
