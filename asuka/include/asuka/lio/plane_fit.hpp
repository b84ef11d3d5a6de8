#pragma once
// A plane through a point's nearest map points, the measurement of point-to-plane registration.

#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

/// A plane n . x + d = 0 (|n| = 1).
struct Plane {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  double d = 0.0;
};

/// How a plane fit ended.
enum class PlaneFit {
  ok,
  too_few,     ///< fewer than three points
  thin,        ///< the points spread less than min_spread across their main direction (a line, a strip), or only with one of them (SpreadTest)
  not_planar,  ///< a point lies farther than max_residual from the plane (or the covariance is not finite)
};

/// Which points must show the spread across the main direction.
enum class SpreadTest {
  all_points,       ///< all of them (FAST-LIO's rule has no spread test at all; this one is ours, plane_fit.hpp)
  without_any_one,  ///< all of them, and still without any one of them (below)
};

/// Fits a plane to `points` by principal components (the normal is the direction of least spread
/// about the centroid; unlike solving n . x = -1, this also fits planes through the origin). `ok`
/// when the points spread at least `min_spread` [m] (standard deviation) along the plane's second
/// axis and every point lies within `max_residual` [m] of it.
///
/// Why the spread: a strip of points (one scan line of a spinning lidar seen by several scans) lies
/// in many planes, and its fitted normal turns about the strip's axis by as much as the ratio of
/// range noise to the strip's width. A strip a few centimetres wide passes any test relative to
/// its own scatter, yet its "normal" constrains the wrong direction, and many such residuals bias
/// the pose (docs/frontends/fastlio.md, "Planes on sparse lidars").
///
/// Why without any one (SpreadTest::without_any_one, #17): a strip and one more point, a few
/// decimetres off it (the next scan line's point, or another surface's), spread enough, and every
/// point lies on the plane they span, since three points always do: the plane hinges on that one
/// point, and its normal is as good as that point. Five neighbours on a 16-line lidar are often
/// four on one scan line and one beside it. With the test, the spread must hold with any one point
/// left out (for four or more points; three span any plane); a hinged fit is `thin` and gets the
/// wider try like any strip.
PlaneFit fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, double min_spread, Plane& plane,
                   SpreadTest spread_test = SpreadTest::all_points);
/// The same over the first `first_count` of the `count` `points` (nearest first; first_count is
/// clipped to count) and, when those are `thin`, over all `count` of them (a wider neighbourhood,
/// find_plane's second try), reusing the first sums. Returns the last fit's result.
PlaneFit fit_plane(const Eigen::Vector3f* points, std::size_t first_count, std::size_t count, double max_residual, double min_spread, Plane& plane,
                   SpreadTest spread_test = SpreadTest::all_points);

/// The height above `plane` of the second-order surface through `count` points (a least-squares
/// h = a + b u + c v + d u^2 + e u v + f v^2 in the plane's coordinates), at the foot of `query` on
/// the plane: how far the surface at the query lies from a plane fitted to neighbours around it on
/// a curved surface (a trunk, a crown, a mound), where the plane is a secant. Points farther than
/// `max_offset` [m] from the plane belong to another surface (a step, a corner's other face) and are
/// left out: bent by a corridor's floor where it meets the wall, the surface tilted the walls' planes,
/// and the IMU carried the tilt along the corridor (docs/frontends/fastlio.md, "Curved surfaces").
/// False when fewer than eight points remain, their layout does not determine the surface, or the
/// height exceeds `max_offset`.
bool surface_offset(const Eigen::Vector3f* points, std::size_t count, const Plane& plane, const Eigen::Vector3d& query, double max_offset,
                    double& offset);

/// The second-order surface of surface_offset, kept to be evaluated at other points near the one it
/// was fitted for (the plane cache, #14): h(u, v) above `plane`, with u, v along the plane's axes
/// (normal.unitOrthogonal() and normal x that) from `origin`, the fitted query's foot on the plane.
struct Surface {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  Eigen::Matrix<double, 6, 1> coefficients = Eigen::Matrix<double, 6, 1>::Zero();  ///< a, b, c, d, e, f
  /// The surface's height above `plane` at the foot of `point` (the plane it was fitted over).
  double height(const Plane& plane, const Eigen::Vector3d& point) const;
};
/// A plane with, where the neighbours' curvature was fitted, its surface: the plane at another point
/// nearby follows the surface there.
struct SurfacePatch {
  Plane plane;
  bool curved = false;
  Surface surface;
  /// The plane at `point`: moved to the surface's height at its foot (unless that exceeds
  /// `max_offset` [m], as in surface_offset).
  Plane at(const Eigen::Vector3d& point, double max_offset) const {
    Plane p = plane;
    if (curved) {
      const double h = surface.height(plane, point);
      if (h <= max_offset && h >= -max_offset) p.d -= h;
    }
    return p;
  }
};

/// surface_offset that also returns the surface (offset = surface.height(plane, query)).
bool surface_fit(const Eigen::Vector3f* points, std::size_t count, const Plane& plane, const Eigen::Vector3d& query, double max_offset,
                 Surface& surface);

}  // namespace asuka::lio
