// The plane cache (#14, asuka/lio/plane_cache.hpp) and the surface it keeps (plane_fit.hpp): a plane
// found for one point serves the other points of its cell, at their own place on a curved surface,
// for max_age_scans scans.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/oct_vox_map.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/plane_cache.hpp>
#include <asuka/lio/plane_fit.hpp>

namespace asuka::lio {
namespace {

/// Twelve points of a vertical trunk of `radius` around the z axis, seen from +x (three rings of
/// four azimuths, as in PlaneFitTest).
std::vector<Eigen::Vector3f> trunk_points(double radius) {
  std::vector<Eigen::Vector3f> trunk;
  for (const double z : {-0.25, 0.0, 0.25}) {
    for (const double a : {-0.75, -0.25, 0.25, 0.75}) {
      trunk.emplace_back(static_cast<float>(radius * std::cos(a)), static_cast<float>(radius * std::sin(a)), static_cast<float>(z));
    }
  }
  return trunk;
}

double residual(const Plane& plane, const Eigen::Vector3d& p) { return plane.normal.dot(p) + plane.d; }

// The surface fitted for one point gives the plane at another point of the trunk: the residual of a
// point on the surface stays near zero there, where the plane moved to the first point's height
// alone (what caching the moved plane would give) is centimetres off.
TEST(PlaneCacheTest, Issue14_TheSurfaceGivesThePlaneAtAnotherPointOfACurvedSurface) {
  const double radius = 0.2;
  const auto trunk = trunk_points(radius);
  Plane plane;
  ASSERT_EQ(fit_plane(trunk, 0.1, 0.1, plane), PlaneFit::ok);
  const Eigen::Vector3d first(radius, 0.0, 0.1);
  Surface surface;
  ASSERT_TRUE(surface_fit(trunk.data(), trunk.size(), plane, first, 0.1, surface));
  double offset = 0.0;
  ASSERT_TRUE(surface_offset(trunk.data(), trunk.size(), plane, first, 0.1, offset));
  EXPECT_DOUBLE_EQ(surface.height(plane, first), offset);  // the same fit

  SurfacePatch patch{plane, true, surface};
  // 0.3 rad around the trunk and 5 cm higher: on the surface, 1.7 cm off the tangent plane at `first`.
  const Eigen::Vector3d other(radius * std::cos(0.3), radius * std::sin(0.3), 0.15);
  Plane at_first = plane;
  at_first.d -= offset;
  EXPECT_GT(std::fabs(residual(at_first, other)), 0.008) << "the plane at the first point is a tangent there, not here";
  EXPECT_NEAR(residual(patch.at(other, 0.1), other), 0.0, 0.003);
  // A point 1 cm outside the trunk there is 1 cm off the plane at it.
  const Eigen::Vector3d outside = other + 0.01 * Eigen::Vector3d(std::cos(0.3), std::sin(0.3), 0.0);
  EXPECT_NEAR(std::fabs(residual(patch.at(outside, 0.1), outside)), 0.01, 0.003);

  // A flat patch has no curvature to follow; a surface height beyond max_offset is not used.
  SurfacePatch flat{plane, false, surface};
  EXPECT_DOUBLE_EQ(flat.at(other, 0.1).d, plane.d);
  EXPECT_DOUBLE_EQ(patch.at(other, 1e-4).d, plane.d);
}

// find_plane's patch is the plane before the curvature's offset and its surface: at the query it
// gives find_plane's own plane.
TEST(PlaneCacheTest, Issue14_FindPlanesPatchGivesItsPlaneAtTheQuery) {
  OctVoxMap map(OctVoxMapParams{0.5, 1, 150.0});
  std::vector<Eigen::Vector3f> cylinder;
  for (int i = 0; i < 400; ++i) {
    const double a = 0.02 * i - 4.0, z = 0.05 * (i % 20) - 0.5;
    cylinder.emplace_back(static_cast<float>(0.6 * std::cos(a)), static_cast<float>(0.6 * std::sin(a)), static_cast<float>(z));
  }
  for (int layer = 0; layer < 8; ++layer) {
    std::vector<Eigen::Vector3f> shifted = cylinder;
    for (auto& p : shifted) p.z() += 0.02f * static_cast<float>(layer);
    map.insert(shifted);
  }
  PlaneAssociationParams params;
  params.knn = 8;
  params.curvature = true;
  std::vector<Eigen::Vector3f> scratch;
  Plane plane;
  SurfacePatch patch;
  const Eigen::Vector3d query(0.6, 0.02, 0.1);
  ASSERT_TRUE(find_plane(map, query, params, scratch, plane, &patch));
  ASSERT_TRUE(patch.curved);
  const Plane again = patch.at(query, params.plane_max_residual);
  EXPECT_NEAR(again.d, plane.d, 1e-12);
  EXPECT_TRUE(again.normal.isApprox(plane.normal));
}

TEST(PlaneCacheTest, Issue14_APlaneServesItsCellForMaxAgeScansAndIsThenRemoved) {
  PlaneCache off;
  EXPECT_FALSE(off.enabled());

  PlaneCache cache(PlaneCacheParams{0.5, 3});
  ASSERT_TRUE(cache.enabled());
  cache.next_scan();
  SurfacePatch patch;
  patch.plane.normal = Eigen::Vector3d(0.0, 0.0, 1.0);
  patch.plane.d = -1.2;  // z = 1.2
  cache.store(Eigen::Vector3d(10.1, -3.1, 1.2), patch);
  EXPECT_EQ(cache.cells(), 1u);

  Plane plane;
  ASSERT_TRUE(cache.find(Eigen::Vector3d(10.4, -3.4, 1.3), 0.1, plane));  // the same cell [10, 10.5) x [-3.5, -3) x [1, 1.5)
  EXPECT_DOUBLE_EQ(plane.d, -1.2);
  EXPECT_FALSE(cache.find(Eigen::Vector3d(10.6, -3.4, 1.3), 0.1, plane));  // the next cell
  EXPECT_FALSE(cache.find(Eigen::Vector3d(10.4, -2.9, 1.3), 0.1, plane));
  EXPECT_EQ(cache.lookups(), 3u);
  EXPECT_EQ(cache.hits(), 1u);

  // Used in the scan that fitted it and the next two; fitted again in the third.
  cache.next_scan();
  cache.next_scan();
  EXPECT_TRUE(cache.find(Eigen::Vector3d(10.2, -3.2, 1.1), 0.1, plane));
  EXPECT_EQ(cache.remove_expired(), 0u);
  cache.next_scan();
  EXPECT_FALSE(cache.find(Eigen::Vector3d(10.2, -3.2, 1.1), 0.1, plane));
  EXPECT_EQ(cache.remove_expired(), 1u);
  EXPECT_EQ(cache.cells(), 0u);

  // A fresh store replaces an expired one in place, and clear() forgets everything.
  cache.store(Eigen::Vector3d(10.2, -3.2, 1.1), patch);
  EXPECT_TRUE(cache.find(Eigen::Vector3d(10.2, -3.2, 1.1), 0.1, plane));
  cache.clear();
  EXPECT_FALSE(cache.find(Eigen::Vector3d(10.2, -3.2, 1.1), 0.1, plane));
  EXPECT_EQ(cache.cells(), 0u);
}

}  // namespace
}  // namespace asuka::lio
