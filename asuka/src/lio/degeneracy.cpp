#include <asuka/lio/degeneracy.hpp>

#include <array>
#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

namespace asuka::lio {

namespace {

/// The rms lever arm of the rows' points [m] (reported; 0 without rows).
double rms_lever_arm(const PoseInformation& info) {
  return info.rows() == 0 ? 0.0 : std::sqrt(info.lever_sq() / static_cast<double>(info.rows()));
}

/// The scaling S of the rows' coordinates: rotation columns / rotation_length, translation as is.
Eigen::Matrix<double, 6, 1> scaling(double rotation_length) {
  Eigen::Matrix<double, 6, 1> s;
  s << Eigen::Vector3d::Constant(1.0 / rotation_length), Eigen::Vector3d::Ones();
  return s;
}

}  // namespace

Localizability analyze_localizability(const PoseInformation& info, const Eigen::Matrix3d& R_world_imu, double threshold, double rotation_length) {
  Localizability loc;
  loc.threshold = threshold;
  loc.points = info.rows();
  loc.range_scale = rms_lever_arm(info);
  if (info.rows() == 0) {
    loc.degenerate = 6;
    return loc;
  }
  // Rotation columns / kRotationLength, then per row: the information as shares of the scan's points.
  const Eigen::Matrix<double, 6, 1> s = scaling(rotation_length);
  const Matrix6d normalized = s.asDiagonal() * info.information() * s.asDiagonal() / static_cast<double>(info.rows());
  const Eigen::SelfAdjointEigenSolver<Matrix6d> solver(normalized);
  loc.eigenvalues = solver.eigenvalues();  // ascending
  const Matrix6d V = solver.eigenvectors();
  // Every direction below the threshold is checked: a squarely faced one (a door jamb's few points)
  // may have a smaller share than one that only noisy normals give.
  std::array<bool, 6> degenerate{};
  for (int k = 0; k < 6 && loc.eigenvalues[k] < threshold; ++k) {
    // Few points that face the direction squarely are real information; many points that face it at
    // a grazing angle (noisy normals) are not.
    const Eigen::Matrix<double, 6, 1> v = s.asDiagonal() * V.col(k);  // h_scaled v = h (S v)
    std::size_t strong = 0;
    for (const auto& row : info.row_list()) {
      if (std::fabs(row.dot(v.transpose())) >= kStrongRow && ++strong >= kMinStrongRows) break;
    }
    degenerate[static_cast<std::size_t>(k)] = strong < kMinStrongRows;
  }
  // The degenerate directions first (each group ascending), so that they are the first columns.
  const Eigen::Matrix<double, 6, 1> values = loc.eigenvalues;
  int column = 0;
  for (const bool first : {true, false}) {
    for (int k = 0; k < 6; ++k) {
      if (degenerate[static_cast<std::size_t>(k)] != first) continue;
      loc.eigenvalues[column] = values[k];
      loc.directions.col(column++) = V.col(k);
    }
    if (first) loc.degenerate = column;
  }
  loc.directions.topRows<3>() = R_world_imu * loc.directions.topRows<3>();  // body rotation axes into the world
  return loc;
}

Matrix6d constrained_projector(const Localizability& loc, const Eigen::Matrix3d& R_world_imu, double rotation_length) {
  if (loc.degenerate == 0) return Matrix6d::Identity();
  // Back into the rows' coordinates (scaled): body rotation axes.
  const int d = loc.degenerate;
  Eigen::Matrix<double, 6, Eigen::Dynamic> D = loc.directions.leftCols(d);
  D.topRows<3>() = R_world_imu.transpose() * D.topRows<3>();
  // Pi_s = I - Q Q^T with Q an orthonormal basis of the degenerate directions (orthonormal already
  // when they are eigenvectors; DegenerateDirectionLatch may have put in ones that are not quite).
  const Eigen::Matrix<double, 6, Eigen::Dynamic> Q =
      Eigen::HouseholderQR<Eigen::Matrix<double, 6, Eigen::Dynamic>>(D).householderQ() * Eigen::Matrix<double, 6, Eigen::Dynamic>::Identity(6, d);
  const Matrix6d projector_scaled = Matrix6d::Identity() - Q * Q.transpose();
  // Pi = S Pi_s S^-1 with S = diag(I / kRotationLength, I): the rows' own units.
  const Eigen::Matrix<double, 6, 1> s = scaling(rotation_length);
  return s.asDiagonal() * projector_scaled * s.cwiseInverse().asDiagonal();
}

bool DegenerateDirectionLatch::apply(Localizability& loc) {
  const int d = loc.degenerate;
  if (d == 0) {
    reset();
    return false;
  }
  if (latched_.cols() == d) {
    // The cosines of the principal angles between the two subspaces: the singular values of L^T D.
    const Eigen::MatrixXd cosines = latched_.transpose() * loc.directions.leftCols(d);
    const double smallest = Eigen::JacobiSVD<Eigen::MatrixXd>(cosines).singularValues().minCoeff();
    if (smallest >= std::cos(max_angle_)) {
      loc.directions.leftCols(d) = latched_;
      return true;
    }
  }
  latched_ = loc.directions.leftCols(d);
  return false;
}

}  // namespace asuka::lio
