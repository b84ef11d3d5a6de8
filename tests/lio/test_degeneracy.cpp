// #21: the localizability of a scan from its point-to-plane rows (asuka/lio/degeneracy.hpp), on
// synthetic scenes whose unconstrained directions are known, and the projector of the update.

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/degeneracy.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {
namespace {

struct Surfel {
  Eigen::Vector3d p;  ///< world
  Eigen::Vector3d n;  ///< world, unit
};

/// The rows a frontend builds for the IMU at (R, c): [(q x R^T n)^T, n^T] with q = R^T (p - c).
PoseInformation rows_for(const std::vector<Surfel>& surfels, const Eigen::Matrix3d& R, const Eigen::Vector3d& c) {
  PoseInformation info;
  for (const auto& s : surfels) {
    const Eigen::Vector3d q = R.transpose() * (s.p - c);
    Eigen::Matrix<double, 1, 6> row;
    row.head<3>() = q.cross(R.transpose() * s.n).transpose();
    row.tail<3>() = s.n.transpose();
    info.add(row, q);
  }
  return info;
}

/// Points on the walls (y = +-1.3), floor (z = 0) and ceiling (z = 3) of a corridor along x, from
/// x = -15 to 15 m.
std::vector<Surfel> corridor(double scale = 1.0) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Surfel> out;
  for (int i = 0; i < 2000; ++i) {
    const double x = (u(rng) - 0.5) * 30.0;
    switch (i % 4) {
      case 0: out.push_back({Eigen::Vector3d(x, 1.3, 3.0 * u(rng)), -Eigen::Vector3d::UnitY()}); break;
      case 1: out.push_back({Eigen::Vector3d(x, -1.3, 3.0 * u(rng)), Eigen::Vector3d::UnitY()}); break;
      case 2: out.push_back({Eigen::Vector3d(x, (u(rng) - 0.5) * 2.6, 0.0), Eigen::Vector3d::UnitZ()}); break;
      default: out.push_back({Eigen::Vector3d(x, (u(rng) - 0.5) * 2.6, 3.0), -Eigen::Vector3d::UnitZ()}); break;
    }
  }
  for (auto& s : out) s.p *= scale;
  return out;
}

/// The corridor closed by a wall at x = 12 (normal -x): every direction constrained.
std::vector<Surfel> closed_corridor() {
  auto out = corridor();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 300; ++i) out.push_back({Eigen::Vector3d(12.0, (u(rng) - 0.5) * 2.6, 3.0 * u(rng)), -Eigen::Vector3d::UnitX()});
  return out;
}

/// Flat ground around the sensor.
std::vector<Surfel> open_field() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Surfel> out;
  for (int i = 0; i < 1500; ++i) out.push_back({Eigen::Vector3d((u(rng) - 0.5) * 40.0, (u(rng) - 0.5) * 40.0, 0.0), Eigen::Vector3d::UnitZ()});
  return out;
}

/// A round tunnel of radius 4 along x (axis at y = 0, z = 2).
std::vector<Surfel> tube() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Surfel> out;
  for (int i = 0; i < 2000; ++i) {
    const double a = 2.0 * M_PI * u(rng), x = (u(rng) - 0.5) * 40.0;
    const Eigen::Vector3d radial(0.0, std::cos(a), std::sin(a));
    out.push_back({Eigen::Vector3d(x, 0.0, 2.0) + 4.0 * radial, -radial});
  }
  return out;
}

const Eigen::Vector3d kSensor(1.0, 0.3, 1.2);

/// The share of direction d (6-vector [rot; trans], world) inside the span of loc's first `count` columns.
double in_degenerate_span(const Localizability& loc, const Eigen::Matrix<double, 6, 1>& d) {
  const Eigen::Matrix<double, 6, Eigen::Dynamic> V = loc.directions.leftCols(loc.degenerate);
  return (V * (V.transpose() * d.normalized())).norm();
}

Eigen::Matrix<double, 6, 1> translation(const Eigen::Vector3d& t) {
  Eigen::Matrix<double, 6, 1> d;
  d << Eigen::Vector3d::Zero(), t;
  return d;
}
Eigen::Matrix<double, 6, 1> rotation(const Eigen::Vector3d& w) {
  Eigen::Matrix<double, 6, 1> d;
  d << w, Eigen::Vector3d::Zero();
  return d;
}

TEST(Degeneracy, ClosedCorridorConstrainsEveryDirectionAndTheProjectorIsIdentity) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.1, -0.2, 0.7));
  const auto loc = analyze_localizability(rows_for(closed_corridor(), R, kSensor), R, kDefaultDegeneracyThreshold);
  EXPECT_EQ(loc.degenerate, 0);
  EXPECT_GT(loc.eigenvalues[0], kDefaultDegeneracyThreshold);
  EXPECT_EQ(loc.points, 2300u);
  EXPECT_TRUE(constrained_projector(loc, R).isIdentity(1e-12));
}

TEST(Degeneracy, CorridorLeavesTheTranslationAlongItInTheWorldWhateverTheAttitude) {
  for (const Eigen::Vector3d& w : std::vector<Eigen::Vector3d>{Eigen::Vector3d::Zero(), Eigen::Vector3d(0.0, 0.0, 1.2), Eigen::Vector3d(0.4, -0.3, 2.5)}) {
    const Eigen::Matrix3d R = so3::exp(w);
    const auto loc = analyze_localizability(rows_for(corridor(), R, kSensor), R, kDefaultDegeneracyThreshold);
    ASSERT_EQ(loc.degenerate, 1) << "attitude " << w.transpose();
    EXPECT_NEAR(loc.eigenvalues[0], 0.0, 1e-12);
    EXPECT_GT(loc.eigenvalues[1], 0.05);
    EXPECT_GT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitX())), 1.0 - 1e-9);
  }
}

TEST(Degeneracy, TheFigureDoesNotDependOnThePointCountAndNullDirectionsStayNullAtAnySize) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.0, 0.1, 0.3));
  // Three times the points (a denser sensor): the same shares.
  auto closed = closed_corridor();
  auto dense = closed;
  dense.insert(dense.end(), closed.begin(), closed.end());
  dense.insert(dense.end(), closed.begin(), closed.end());
  const auto a = analyze_localizability(rows_for(closed, R, kSensor), R, kDefaultDegeneracyThreshold);
  const auto b = analyze_localizability(rows_for(dense, R, kSensor), R, kDefaultDegeneracyThreshold);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.eigenvalues[k], b.eigenvalues[k], 1e-9) << k;
  // A corridor 10x the size (a street between facades): still exactly one unconstrained direction.
  const auto street = analyze_localizability(rows_for(corridor(10.0), R, 10.0 * kSensor), R, kDefaultDegeneracyThreshold);
  EXPECT_EQ(street.degenerate, 1);
  EXPECT_NEAR(street.range_scale, 10.0 * analyze_localizability(rows_for(corridor(), R, kSensor), R, 0.01).range_scale, 1e-6 * street.range_scale);
}

TEST(Degeneracy, OpenFieldLeavesHorizontalTranslationAndYaw) {
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.05, 0.02, -0.8));
  const auto loc = analyze_localizability(rows_for(open_field(), R, Eigen::Vector3d(0.0, 0.0, 1.3)), R, kDefaultDegeneracyThreshold);
  ASSERT_EQ(loc.degenerate, 3);
  EXPECT_GT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitX())), 1.0 - 1e-9);
  EXPECT_GT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitY())), 1.0 - 1e-9);
  EXPECT_GT(in_degenerate_span(loc, rotation(Eigen::Vector3d::UnitZ())), 1.0 - 1e-9);
  EXPECT_LT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitZ())), 1e-9);
}

TEST(Degeneracy, TubeLeavesTranslationAlongAndRotationAboutItsAxis) {
  // The sensor on the axis: the roll about it moves no point off the wall.
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.0, 0.0, 0.4));
  const auto loc = analyze_localizability(rows_for(tube(), R, Eigen::Vector3d(0.0, 0.0, 2.0)), R, kDefaultDegeneracyThreshold);
  ASSERT_EQ(loc.degenerate, 2);
  EXPECT_GT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitX())), 1.0 - 1e-9);
  EXPECT_GT(in_degenerate_span(loc, rotation(Eigen::Vector3d::UnitX())), 1.0 - 1e-9);
}

TEST(Degeneracy, NoRowsIsDegenerateEverywhere) {
  const auto loc = analyze_localizability(PoseInformation{}, Eigen::Matrix3d::Identity(), kDefaultDegeneracyThreshold);
  EXPECT_EQ(loc.degenerate, 6);
  EXPECT_TRUE(constrained_projector(loc, Eigen::Matrix3d::Identity()).isZero(0.0));
}

TEST(Degeneracy, ProjectorRemovesTheUnconstrainedDirectionsAndKeepsTheOthers) {
  // The open field, rows in the body frame: h Pi d = 0 along a degenerate direction d, and Pi keeps
  // each constrained one (in the rows' coordinates: body rotation, world translation).
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.05, 0.02, -0.8));
  const auto info = rows_for(open_field(), R, Eigen::Vector3d(0.0, 0.0, 1.3));
  const auto loc = analyze_localizability(info, R, kDefaultDegeneracyThreshold);
  ASSERT_EQ(loc.degenerate, 3);
  const Matrix6d Pi = constrained_projector(loc, R);
  EXPECT_TRUE((Pi * Pi).isApprox(Pi, 1e-9));  // a projector
  const auto native = [&](const Eigen::Matrix<double, 6, 1>& world) {
    Eigen::Matrix<double, 6, 1> d = world;
    d.head<3>() = R.transpose() * world.head<3>();  // body rotation axis
    return d;
  };
  // Unconstrained: world x, y translation and the yaw (about the IMU).
  EXPECT_LT((Pi * native(translation(Eigen::Vector3d::UnitX()))).norm(), 1e-9);
  EXPECT_LT((Pi * native(translation(Eigen::Vector3d::UnitY()))).norm(), 1e-9);
  EXPECT_LT((Pi * native(rotation(Eigen::Vector3d::UnitZ()))).norm(), 1e-9);
  // Constrained: height, roll and pitch.
  for (const auto& d : std::vector<Eigen::Matrix<double, 6, 1>>{translation(Eigen::Vector3d::UnitZ()), rotation(Eigen::Vector3d::UnitX()), rotation(Eigen::Vector3d::UnitY())}) {
    EXPECT_TRUE((Pi * native(d)).isApprox(native(d), 1e-9)) << d.transpose();
  }
  // The projected information (Pi^T H^T H Pi) equals the information of the projected rows and
  // is the original one on the constrained directions.
  const Matrix6d projected = Pi.transpose() * info.information() * Pi;
  const Eigen::Matrix<double, 6, 1> z = native(translation(Eigen::Vector3d::UnitZ()));
  EXPECT_NEAR(z.dot(projected * z), z.dot(info.information() * z), 1e-6 * z.dot(info.information() * z));
}

TEST(Degeneracy, ProjectorIsRightForAnyRotationLength) {
  // With a rotation length of 2 m the scaling is not the identity: a swapped S and S^-1 would leave
  // the yaw in the projected rows.
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.05, 0.02, -0.8));
  const auto info = rows_for(open_field(), R, Eigen::Vector3d(0.0, 0.0, 1.3));
  const auto loc = analyze_localizability(info, R, kDefaultDegeneracyThreshold, 2.0);
  ASSERT_EQ(loc.degenerate, 3);
  const Matrix6d Pi = constrained_projector(loc, R, 2.0);
  EXPECT_TRUE((Pi * Pi).isApprox(Pi, 1e-9));
  Eigen::Matrix<double, 6, 1> yaw;
  yaw << R.transpose() * Eigen::Vector3d::UnitZ(), Eigen::Vector3d::Zero();
  Eigen::Matrix<double, 6, 1> roll;
  roll << R.transpose() * Eigen::Vector3d::UnitX(), Eigen::Vector3d::Zero();
  EXPECT_LT((Pi * yaw).norm(), 1e-9);
  EXPECT_TRUE((Pi * roll).isApprox(roll, 1e-9));
  // Every row keeps its value on the constrained directions: h Pi roll = h roll.
  for (const auto& h : info.row_list()) ASSERT_NEAR(h * Pi * roll, h * roll, 1e-9);
}

TEST(Degeneracy, EveryDirectionBelowTheThresholdIsChecked) {
  // Flat ground whose normals lean 0.12 towards +y or -y (noisy fits: a share along y, no row facing y)
  // and 12 points of a small wall facing x (a smaller share along x, but squarely faced). With the
  // threshold above both, x is constrained and y, the larger share, is the degenerate one.
  auto surfels = open_field();
  for (std::size_t i = 0; i < surfels.size(); ++i) surfels[i].n = (surfels[i].n + Eigen::Vector3d(0.0, i % 2 ? 0.12 : -0.12, 0.0)).normalized();
  for (int i = 0; i < 12; ++i) surfels.push_back({Eigen::Vector3d(6.0, -0.5 + 0.1 * i, 0.5), -Eigen::Vector3d::UnitX()});
  const Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  const auto info = rows_for(surfels, R, Eigen::Vector3d(0.0, 0.0, 1.3));
  const auto shares = analyze_localizability(info, R, -1.0);  // nothing degenerate: ascending
  ASSERT_EQ(shares.degenerate, 0);
  EXPECT_GT(std::fabs(shares.directions(3, 0)), 0.99) << "the smallest share is along x";
  EXPECT_GT(std::fabs(shares.directions(4, 1)), 0.99) << "the next along y";
  EXPECT_LT(shares.eigenvalues[1], 0.02);
  const auto loc = analyze_localizability(info, R, 0.02);
  ASSERT_EQ(loc.degenerate, 1);
  EXPECT_GT(in_degenerate_span(loc, translation(Eigen::Vector3d::UnitY())), 0.99);
  EXPECT_NEAR(loc.eigenvalues[0], shares.eigenvalues[1], 1e-12);
  EXPECT_NEAR(loc.eigenvalues[1], shares.eigenvalues[0], 1e-12);  // x follows, among the constrained
}

TEST(Degeneracy, ThresholdSplitsANearlyDegenerateDirectionOfNoisyNormals) {
  // The corridor whose wall normals lean 0.05 along x (noisy plane fits): a small share along x,
  // spread over every wall point, none of which faces x. Degenerate just above that share.
  auto surfels = corridor();
  for (auto& s : surfels) {
    if (std::fabs(s.n.y()) > 0.5) s.n = (s.n + Eigen::Vector3d(0.05, 0.0, 0.0)).normalized();
  }
  const Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  const auto info = rows_for(surfels, R, kSensor);
  const double share = analyze_localizability(info, R, 0.0).eigenvalues[0];
  EXPECT_GT(share, 0.0);
  EXPECT_LT(share, 0.5 * 0.05 * 0.05 + 1e-9);  // at most the walls' half of the points, at n_x^2
  EXPECT_EQ(analyze_localizability(info, R, share * 1.01).degenerate, 1);
  EXPECT_EQ(analyze_localizability(info, R, share * 0.99).degenerate, 0);
}

TEST(Degeneracy, AFewPointsFacingTheDirectionSquarelyConstrainIt) {
  // The corridor with a door frame in view: kMinStrongRows points on a jamb facing x, a share far
  // below the threshold, constrain x; one point fewer does not.
  const Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  for (const std::size_t jamb : {kMinStrongRows, kMinStrongRows - 1}) {
    auto surfels = corridor();
    for (std::size_t i = 0; i < jamb; ++i) surfels.push_back({Eigen::Vector3d(8.0, 1.2, 0.3 + 0.4 * static_cast<double>(i)), -Eigen::Vector3d::UnitX()});
    const auto loc = analyze_localizability(rows_for(surfels, R, kSensor), R, kDefaultDegeneracyThreshold);
    EXPECT_LT(loc.eigenvalues[0], kDefaultDegeneracyThreshold);
    EXPECT_EQ(loc.degenerate, jamb >= kMinStrongRows ? 0 : 1) << jamb << " jamb points";
  }
}


/// A corridor's localizability whose axis estimate is turned by `angle` [rad] about the world z (the
/// scan-to-scan wobble of a noisy estimate), one degenerate direction.
Localizability corridor_with_axis_off_by(double angle) {
  const auto info = rows_for(corridor(), Eigen::Matrix3d::Identity(), kSensor);
  Localizability loc = analyze_localizability(info, Eigen::Matrix3d::Identity(), kDefaultDegeneracyThreshold);
  const Eigen::Matrix3d turn = so3::exp(Eigen::Vector3d(0.0, 0.0, angle));
  loc.directions.topRows<3>() = turn * loc.directions.topRows<3>();
  loc.directions.bottomRows<3>() = turn * loc.directions.bottomRows<3>();
  return loc;
}

TEST(DegeneracyLatch, R_DEG_2_HoldsTheDirectionWhileTheScansFindTheSameAndProjectsItExactly) {
  // #21: the first scan latches its axis; the next ones, a few mrad off, project the latched one, so
  // the rows of every scan are blind to one and the same direction.
  DegenerateDirectionLatch latch;
  Localizability first = corridor_with_axis_off_by(0.0);
  ASSERT_EQ(first.degenerate, 1);
  EXPECT_FALSE(latch.apply(first));
  const Eigen::Matrix<double, 6, 1> axis = first.directions.col(0);
  for (const double wobble : {0.003, -0.004, 0.002}) {
    Localizability next = corridor_with_axis_off_by(wobble);
    EXPECT_TRUE(latch.apply(next)) << wobble;
    EXPECT_TRUE(next.directions.col(0).isApprox(axis, 1e-12));
    const Matrix6d Pi = constrained_projector(next, Eigen::Matrix3d::Identity());
    EXPECT_LT((Pi * axis).norm(), 1e-12);
    // Without the latch the projector of this scan would leave the latched axis a sliver of
    // information: |Pi_own axis| = sin(wobble).
    const Localizability own = corridor_with_axis_off_by(wobble);
    EXPECT_NEAR((constrained_projector(own, Eigen::Matrix3d::Identity()) * axis).norm(), std::fabs(std::sin(wobble)), 1e-6);
  }
}

TEST(DegeneracyLatch, R_DEG_2_ANewDirectionOrAConstrainedScanReplacesIt) {
  DegenerateDirectionLatch latch(0.05);
  Localizability a = corridor_with_axis_off_by(0.0);
  latch.apply(a);
  // Beyond max_angle (the corridor turned): the new axis is latched and used.
  Localizability turned = corridor_with_axis_off_by(0.2);
  const Eigen::Matrix<double, 6, 1> turned_axis = turned.directions.col(0);
  EXPECT_FALSE(latch.apply(turned));
  EXPECT_TRUE(turned.directions.col(0).isApprox(turned_axis, 1e-12));
  Localizability again = corridor_with_axis_off_by(0.21);
  EXPECT_TRUE(latch.apply(again));
  EXPECT_TRUE(again.directions.col(0).isApprox(turned_axis, 1e-12));
  // A scan that constrains every direction drops the latch: the next degenerate scan starts afresh.
  Localizability closed = analyze_localizability(rows_for(closed_corridor(), Eigen::Matrix3d::Identity(), kSensor), Eigen::Matrix3d::Identity(),
                                                 kDefaultDegeneracyThreshold);
  ASSERT_EQ(closed.degenerate, 0);
  EXPECT_FALSE(latch.apply(closed));
  Localizability fresh = corridor_with_axis_off_by(0.2 + 0.01);
  const Eigen::Matrix<double, 6, 1> fresh_axis = fresh.directions.col(0);
  EXPECT_FALSE(latch.apply(fresh));
  EXPECT_TRUE(fresh.directions.col(0).isApprox(fresh_axis, 1e-12));
  // A different number of directions (the open field's three) replaces it too.
  Localizability field = analyze_localizability(rows_for(open_field(), Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.0, 0.0, 1.3)),
                                                Eigen::Matrix3d::Identity(), kDefaultDegeneracyThreshold);
  ASSERT_EQ(field.degenerate, 3);
  EXPECT_FALSE(latch.apply(field));
}

TEST(DegeneracyLatch, R_DEG_2_TheProjectorAnnihilatesLatchedDirectionsThatAreNotOrthogonalToTheRest) {
  // The latched columns replace the degenerate ones; the constrained columns of the scan are no longer
  // exactly orthogonal to them. The projector still removes exactly the latched span and is a projector.
  Localizability loc = corridor_with_axis_off_by(0.004);
  DegenerateDirectionLatch latch;
  Localizability first = corridor_with_axis_off_by(0.0);
  latch.apply(first);
  ASSERT_TRUE(latch.apply(loc));
  const Eigen::Matrix3d R = so3::exp(Eigen::Vector3d(0.1, -0.05, 0.7));
  const Matrix6d Pi = constrained_projector(loc, R);
  EXPECT_TRUE((Pi * Pi).isApprox(Pi, 1e-9));
  Eigen::Matrix<double, 6, 1> native = loc.directions.col(0);
  native.head<3>() = R.transpose() * native.head<3>();
  EXPECT_LT((Pi * native).norm(), 1e-12);
  EXPECT_NEAR(Pi.trace(), 5.0, 1e-9);
}

}  // namespace
}  // namespace asuka::lio
