#pragma once
// Point-to-plane association shared by the filter frontends: the plane of a point's k nearest map
// points, and the gates a residual must pass before it enters an update.

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/plane_fit.hpp>
#include <asuka/lio/point_map.hpp>

namespace asuka::lio {

struct PlaneAssociationParams {
  std::size_t knn = 5;              ///< map points per plane fit
  double search_distance = 1.5;     ///< [m] neighbours farther than this are not used
  double plane_max_residual = 0.1;  ///< [m] every neighbour must lie this close to the fitted plane
  double max_residual = 0.1;        ///< [m] larger point-to-plane residuals are rejected
  double min_spread = 0.15;         ///< [m] the neighbours' spread across their main direction (fit_plane)
  std::size_t knn_wide = 12;        ///< neighbours of the second try when the knn nearest are too thin (<= knn: none)
  SpreadTest spread_test = SpreadTest::all_points;  ///< #17: the spread also without any one neighbour (plane_fit.hpp)
  bool wide_reach = false;          ///< #17: a thin try gets another over the map's wider block (knn_wide), where the map has one
  bool curvature = false;           ///< #17: the plane is moved to the neighbours' second-order surface at the point (surface_offset)
};

/// Whether `Map` offers knn_wide (VoxelMap, OctVoxMap; point_map.hpp): the same search over a wider block.
template <class Map, class = void>
struct has_wide_knn : std::false_type {};
template <class Map>
struct has_wide_knn<Map, std::void_t<decltype(std::declval<const Map&>().knn_wide(std::declval<const Eigen::Vector3f&>(), std::size_t{}, double{},
                                                                                  std::declval<std::vector<Eigen::Vector3f>&>()))>> : std::true_type {};

/// The plane through the `knn` nearest map points of `world_point` in any point map
/// (point_map.hpp); false when fewer were found or they are not planar (fit_plane). When the `knn`
/// nearest are too thin to define a plane (points of one scan line), the `knn_wide` nearest get a
/// second try (as many as the map finds, if more than `knn`): on a sparse lidar they reach the next
/// scan line, and a plane across two lines is a real one; if they are still a strip, there is no
/// plane. `scratch` is reused between calls to avoid allocations.
///
/// With `patch`, also the plane before the curvature's offset and the surface (plane_fit.hpp), to
/// give the plane at other points nearby (the plane cache, #14).
template <class Map>
bool find_plane(const Map& map, const Eigen::Vector3d& world_point, const PlaneAssociationParams& params, std::vector<Eigen::Vector3f>& scratch,
                Plane& plane, SurfacePatch* patch = nullptr) {
  static_assert(is_point_map_v<Map>, "find_plane needs a point map (asuka/lio/point_map.hpp)");
  // One search for both tries (nearest first): where the first try is often thin (a Livox map), a
  // second search would cost more than the wider first one.
  const std::size_t k = std::max(params.knn, params.knn_wide);
  std::size_t found = map.knn(world_point.cast<float>(), k, params.search_distance, scratch);
  // The wide try takes as many as the map found (a map that searches a bounded neighbourhood, as
  // VoxelMap's 2 x 2 x 2 voxels, may hold fewer than knn_wide).
  PlaneFit fit = found < params.knn ? PlaneFit::too_few
                                    : fit_plane(scratch.data(), params.knn, found, params.plane_max_residual, params.min_spread, plane, params.spread_test);
  if constexpr (has_wide_knn<Map>::value) {
    if (params.wide_reach && (fit == PlaneFit::thin || fit == PlaneFit::too_few)) {
      found = map.knn_wide(world_point.cast<float>(), k, params.search_distance, scratch);
      if (found < params.knn) return false;
      fit = fit_plane(scratch.data(), params.knn, found, params.plane_max_residual, params.min_spread, plane, params.spread_test);
    }
  }
  if (fit != PlaneFit::ok) return false;
  if (patch != nullptr) {
    patch->plane = plane;
    patch->curved = false;
  }
  if (params.curvature) {
    Surface surface;
    if (surface_fit(scratch.data(), found, plane, world_point, params.plane_max_residual, surface)) {
      plane.d -= surface.coefficients[0];
      if (patch != nullptr) {
        patch->curved = true;
        patch->surface = surface;
      }
    }
  }
  return true;
}

/// Whether a residual `r` [m] of a point at `body_range` [m] from the sensor may be used. FAST-LIO's
/// gate: the residual must be small for the point's range (1 - 0.9 |r| / sqrt(range) >= 0.9). And an
/// absolute one: a plane fitted to neighbours on one scan line of a spinning lidar can pass the
/// checks yet sit tens of centimetres off, and weighted as a centimetre-level measurement it biases
/// the estimate.
inline bool accept_residual(double r, double body_range, double max_residual) {
  const double a = r < 0.0 ? -r : r;
  return 0.9 * a <= 0.1 * std::sqrt(body_range) && a <= max_residual;
}

}  // namespace asuka::lio
