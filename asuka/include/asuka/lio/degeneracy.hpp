#pragma once
// #21: which directions of the pose one scan's LiDAR update constrains, and the update restricted to
// them. One implementation for every LiDAR frontend (fastlio, superlio and fastlivo through
// IeskfFrontend, batchlio over the windows of a scan). docs/degeneracy.md explains the method and
// the threshold.
//
// The point-to-plane rows over the pose are h = [(q x m)^T, n^T] (rotation as a right perturbation
// of the IMU attitude, translation in the world; q the point in the IMU frame, n the plane normal in
// the world, m = R^T n). Divided by the number of rows, the information H^T H no longer depends on
// how many points a sensor returns: every row contributes |n|^2 = 1 to the translation trace, so a
// translation eigenvalue is the share of the scan's points that constrain that direction at full
// weight. The rotation columns are metres per radian (the lever arm |q x m|); they are divided by
// kRotationLength = 1 m, so a rotation eigenvalue is that share times the squared lever arm [m^2]
// the constraining points have about the axis. A direction below `threshold` (0.01: 1 % of the
// points, or for a rotation points with an rms lever arm of 0.1 m at full share) does not constrain
// the pose, whatever the sensor. (Scaling the rotation by the scan's own rms range instead was
// tried: in a long corridor that range is set by the far wall points, and the roll, which only the
// 1.3 m half-width constrains, came out at 0.007 and was flagged although it is well determined.)
//
// Handling (Zhang, Kaess and Singh, ICRA 2016, solution remapping, in the filter's form): with the
// constrained eigenvectors V_c (scaled coordinates) the projector Pi = S V_c V_c^T S^-1 (S the
// scaling) replaces the rows h by h Pi. The update then has no information along the unconstrained
// directions: there the state keeps the IMU prediction (moved only through the prior's correlations
// with the constrained directions), and the covariance keeps growing as the IMU alone makes it. On a
// well-conditioned scan Pi = I: nothing changes.

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>

namespace asuka::lio {

/// Localizability::threshold's default: a direction constrained by less than 1 % of the scan's points
/// at full weight is unconstrained (docs/degeneracy.md: how it was measured).
constexpr double kDefaultDegeneracyThreshold = 0.01;

/// [m] the length that makes a rotation comparable to a translation: 1 rad about an axis weighs
/// as a translation of this many metres.
constexpr double kRotationLength = 1.0;

using Matrix6d = Eigen::Matrix<double, 6, 6>;

/// The scan's pose information accumulated row by row (the rows of the update, unweighted), with
/// what the normalization needs.
class PoseInformation {
public:
  using Row = Eigen::Matrix<double, 1, 6>;
  /// One point-to-plane row [(q x m)^T, n^T] for the point q (IMU frame).
  void add(const Row& row, const Eigen::Vector3d& q) {
    info_.noalias() += row.transpose() * row;
    lever_sq_ += q.squaredNorm();
    rows_.push_back(row);
  }
  /// The rows of a whole update at once (the IEKF's): `rows` N x 6 (the pose columns), `hth` their
  /// rows^T rows as the update computed it, `lever_sq` the sum of |q|^2 over their points.
  template <class Rows>
  void set(const Rows& rows, const Matrix6d& hth, double lever_sq) {
    info_ = hth;
    lever_sq_ = lever_sq;
    rows_.resize(static_cast<std::size_t>(rows.rows()));
    for (Eigen::Index i = 0; i < rows.rows(); ++i) rows_[static_cast<std::size_t>(i)] = rows.row(i);
  }
  void clear() {
    info_.setZero();
    rows_.clear();
    lever_sq_ = 0.0;
  }
  const Matrix6d& information() const { return info_; }
  std::size_t rows() const { return rows_.size(); }
  const std::vector<Row>& row_list() const { return rows_; }
  double lever_sq() const { return lever_sq_; }

private:
  Matrix6d info_ = Matrix6d::Zero();
  std::vector<Row> rows_;
  double lever_sq_ = 0.0;
};

/// A row constrains a direction v (unit, normalized coordinates) strongly when |h v| >= this: a plane
/// facing a translation within 60 degrees, or a lever arm of 0.5 m about a rotation axis.
constexpr double kStrongRow = 0.5;
/// A direction below the threshold is still constrained when at least this many rows constrain it
/// strongly: a few points on a door frame's jamb are real information, while the share that noisy
/// plane normals (|n_x| ~ 0.05 on every wall point) give a corridor's axis is not.
constexpr std::size_t kMinStrongRows = 10;

/// The localizability of the scan whose rows `info` holds, with the IMU attitude R (world from IMU)
/// at the scan (to give the directions in the world). A direction is degenerate when its eigenvalue
/// is below `threshold` and fewer than kMinStrongRows rows constrain it strongly. With no rows every
/// direction is degenerate.
/// The degenerate directions are the first `degenerate` columns (ascending among themselves), the
/// others follow (ascending). `rotation_length` [m] (kRotationLength): tests vary it.
Localizability analyze_localizability(const PoseInformation& info, const Eigen::Matrix3d& R_world_imu, double threshold,
                                      double rotation_length = kRotationLength);

/// Keeps the degenerate directions the update projects out fixed in the world while scan after scan
/// finds the same ones (#21). Used by batchlio, which projects a degenerate scan's directions out of
/// each window's rows (until #17's scan-level decision: the previous scan's directions out of the next
/// scan's rows, where this was measured). Each scan's estimate of a corridor's axis wanders by a few
/// mrad (the noise of the plane normals that almost face it). A projector that follows the estimate
/// leaves a different sliver of the axis with information on every scan, so summed over the scans the
/// normals' spurious share reaches the axis after all. A direction held fixed never gives its own
/// axis information, and one a few mrad off the true axis measured no worse than the exact axis
/// (docs/degeneracy.md, "A fixed direction").
/// The latched directions are replaced when a scan's degenerate directions differ in number or lie
/// farther than `max_angle` from them, and are dropped on a scan that constrains every direction. The
/// IEKF frontends project each scan's own directions and do not use it: there the wobble lets real but
/// weak features (a door frame's jambs) through, and the latch lost on the sparse corridor.
class DegenerateDirectionLatch {
public:
  explicit DegenerateDirectionLatch(double max_angle = 0.05) : max_angle_(max_angle) {}
  /// Replaces loc's degenerate directions (world frame) with the latched ones when they span the
  /// same subspace within max_angle; otherwise latches loc's. Returns whether loc kept the latch.
  bool apply(Localizability& loc);
  void reset() { latched_.resize(6, 0); }

private:
  double max_angle_;
  Eigen::Matrix<double, 6, Eigen::Dynamic> latched_{6, 0};
};

/// The projector Pi (in the rows' own coordinates: body rotation, world translation) onto the
/// directions `loc` found constrained: identity when none is degenerate. A row h becomes h Pi.
/// `rotation_length` as analyze_localizability was given it.
Matrix6d constrained_projector(const Localizability& loc, const Eigen::Matrix3d& R_world_imu, double rotation_length = kRotationLength);

}  // namespace asuka::lio
