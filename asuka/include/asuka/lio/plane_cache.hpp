#pragma once
// The plane cache (#14): planes found by plane association (plane_association.hpp), kept per small
// world cell for a few scans, so that the next scans' points in the same cell use the plane instead
// of searching the map and fitting again.
//
// Why it is sound. A surface seen at 10 Hz is seen again by the next scans at nearly the same place,
// and its plane over a neighbourhood of the map's points (k-NN within half a voxel) does not change
// when a few points are added to the map: the cache trades the k-NN and the fit of most points for
// one hash lookup. What a cached plane gives up: it was fitted around the first point that fell into
// the cell, not around this one (at most a cell's diagonal away): on a curved surface the kept
// second-order surface (plane_fit.hpp SurfacePatch) gives the plane at this point, and it does not
// see map points added after it was fitted. Both are bounded by the cell edge and by `max_age_scans`. Cells where
// no plane was found are not cached: the next point there searches again (a corner, vegetation).
//
// Keys are the world cell of the query point (edge `cell_size`); an entry older than
// `max_age_scans` scans is fitted again in place. Expired entries are removed every scan
// (remove_expired), so the cache holds the cells of the last scans only.
//
// Threads: one at a time (the frontend's worker).

#include <cstdint>

#include <Eigen/Core>

#include <asuka/lio/plane_fit.hpp>
#include <asuka/lio/voxel_table.hpp>

namespace asuka::lio {

struct PlaneCacheParams {
  double cell_size = 0.0;  ///< [m] cell edge; 0 = no cache (every point searches the map)
  int max_age_scans = 10;  ///< a plane is used for this many scans after the one that fitted it
};

class PlaneCache {
public:
  explicit PlaneCache(const PlaneCacheParams& params = PlaneCacheParams())
      : params_(params), inv_size_(params.cell_size > 0.0 ? static_cast<float>(1.0 / params.cell_size) : 0.0f) {}

  bool enabled() const { return params_.cell_size > 0.0; }

  /// A new scan: planes fitted before now are one scan older.
  void next_scan() { ++scan_; }

  /// The cached plane of `world_point`'s cell at `world_point` (SurfacePatch::at with `max_offset`),
  /// if one was fitted in the last max_age_scans scans.
  bool find(const Eigen::Vector3d& world_point, double max_offset, Plane& plane) const {
    ++lookups_;
    const Cell* cell = cells_.find(key(world_point));
    if (cell == nullptr || cell->scan == 0 || scan_ - cell->scan >= static_cast<std::uint32_t>(params_.max_age_scans)) return false;
    SurfacePatch patch;
    patch.plane.normal = cell->normal.cast<double>();
    patch.plane.d = cell->d;
    patch.curved = cell->curved;
    if (cell->curved) {
      patch.surface.origin = cell->origin.cast<double>();
      patch.surface.coefficients = cell->coefficients.cast<double>();
    }
    plane = patch.at(world_point, max_offset);
    ++hits_;
    return true;
  }

  /// Caches `patch`, found for `world_point`, for its cell (replacing an expired one).
  void store(const Eigen::Vector3d& world_point, const SurfacePatch& patch) {
    Cell& cell = cells_.find_or_add(key(world_point));
    cell.normal = patch.plane.normal.cast<float>();
    cell.d = patch.plane.d;
    cell.curved = patch.curved;
    cell.origin = patch.surface.origin.cast<float>();
    cell.coefficients = patch.surface.coefficients.cast<float>();
    cell.scan = scan_;
    ++stores_;
  }

  /// Removes the cells whose planes have expired (the frontends call it every scan): the cache
  /// holds the cells of the last scans only, whatever the local map's size.
  std::size_t remove_expired() {
    const std::uint32_t now = scan_, age = static_cast<std::uint32_t>(params_.max_age_scans);
    return cells_.remove_if([&](const Cell& cell) { return now - cell.scan >= age; });
  }

  void clear() {
    cells_ = VoxelTable<Cell>();
    scan_ = 1;
  }

  std::size_t cells() const { return cells_.size(); }
  std::size_t memory_bytes() const { return cells_.memory_bytes(); }
  /// Lookups, hits and stored planes since construction (docs/frontends/superlio.md reports the rate).
  std::uint64_t lookups() const { return lookups_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t stores() const { return stores_; }

private:
  struct Cell {
    VoxelKey key;
    Eigen::Vector3f normal = Eigen::Vector3f::UnitZ();
    double d = 0.0;  ///< double: a float offset at a kilometre from the origin would round to 0.1 mm
    std::uint32_t scan = 0;  ///< the scan that fitted it (0: none)
    bool curved = false;
    Eigen::Vector3f origin = Eigen::Vector3f::Zero();  ///< the surface's (SurfacePatch)
    Eigen::Matrix<float, 6, 1> coefficients = Eigen::Matrix<float, 6, 1>::Zero();
  };

  VoxelKey key(const Eigen::Vector3d& p) const { return voxel_key(p.cast<float>(), inv_size_); }

  PlaneCacheParams params_;
  float inv_size_;
  VoxelTable<Cell> cells_;
  std::uint32_t scan_ = 1;
  mutable std::uint64_t lookups_ = 0;
  mutable std::uint64_t hits_ = 0;
  std::uint64_t stores_ = 0;
};

}  // namespace asuka::lio
