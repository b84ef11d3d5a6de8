#pragma once
// A plane through a point's nearest map points, the measurement of point-to-plane registration.

#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

/// A plane n . x + d = 0 (|n| = 1).
struct Plane {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  double d = 0.0;
};

/// Fits a plane to `points` by principal components (the normal is the direction of least spread
/// about the centroid; unlike solving n . x = -1, this also fits planes through the origin). Valid
/// when every point lies within `max_residual` [m] of it and the points spread at least
/// `min_spread` [m] (standard deviation) along the plane's second axis, i.e. are not collinear.
bool fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, Plane& plane, double min_spread = 0.02);

}  // namespace asuka::lio
