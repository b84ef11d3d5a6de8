#pragma once
// A hashed voxel map for scan-to-map registration: points bucketed in cubic voxels, k-nearest
// neighbours searched in the 27 voxels around the query, incremental insertion with down-sampling
// (a new point is kept only if no map point lies within `min_point_distance` in its voxel) and
// removal of voxels outside a box that moves with the sensor. The FAST-LIO2 paper uses an
// incremental k-d tree for the same role; docs/frontends/fastlio.md says why and how they compare.

#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

struct VoxelMapParams {
  double voxel_size = 0.5;            ///< [m] edge of a voxel (also the search granularity)
  int max_points_per_voxel = 20;      ///< insertion stops when a voxel is full (at most kMaxPointsPerVoxel)
  double min_point_distance = 0.1;    ///< [m] down-sampling: closer points are not added
  double local_map_half_size = 150.0; ///< [m] voxels farther than this (per axis) from the sensor are removed
};

class VoxelMap {
public:
  static constexpr int kMaxPointsPerVoxel = 20;
  static constexpr std::size_t kMaxK = 64;  ///< knn() returns at most this many


  explicit VoxelMap(const VoxelMapParams& params = VoxelMapParams());

  /// Adds points (world frame). Returns how many were kept.
  std::size_t insert(const std::vector<Eigen::Vector3f>& points);

  /// Up to k nearest map points of `query` within `max_distance` [m], nearest first, searched in the
  /// 2 x 2 x 2 voxels nearest the query (exact within half a voxel). Returns the count found; `out`
  /// receives them.
  std::size_t knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// Removes voxels outside the box of half size local_map_half_size around `center`. Returns how
  /// many voxels were removed.
  std::size_t remove_outside(const Eigen::Vector3d& center);

  std::size_t size() const { return points_; }
  std::size_t voxels() const { return voxels_.size(); }
  /// Every map point (for saving the map).
  std::vector<Eigen::Vector3f> points() const;

private:
  struct Key {
    std::int32_t x, y, z;
    bool operator==(const Key& o) const { return x == o.x && y == o.y && z == o.z; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      // Spatial hash with large primes (Teschner et al. 2003), then a 64-bit mix so that the
      // table's modulo sees well spread bits.
      std::uint64_t h = static_cast<std::uint64_t>(static_cast<std::int64_t>(k.x) * 73856093) ^
                        static_cast<std::uint64_t>(static_cast<std::int64_t>(k.y) * 19349669) ^
                        static_cast<std::uint64_t>(static_cast<std::int64_t>(k.z) * 83492791);
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdULL;
      h ^= h >> 33;
      return static_cast<std::size_t>(h);
    }
  };
  Key key_of(const Eigen::Vector3f& p) const;
  /// The keys of the 2 x 2 x 2 voxels nearest `query` (the block knn() searches).
  void block_keys(const Eigen::Vector3f& query, Key keys[8]) const;
  /// Index of the voxel with `key` in voxels_, or -1. Open addressing with linear probing over
  /// slots_ (a power of two) that hold the keys themselves: a lookup reads one slot line, and a
  /// miss (half the 2 x 2 x 2 block of a query, typically) never touches a voxel.
  std::int64_t find(const Key& key) const;
  std::size_t find_or_add(const Key& key);
  void rebuild_slots(std::size_t capacity);

  /// The points are stored in the voxel itself: a hit costs the voxel's own lines, not a pointer
  /// chase into a separate allocation per voxel.
  struct Voxel {
    Key key;
    std::int32_t count = 0;
    std::array<Eigen::Vector3f, kMaxPointsPerVoxel> points;
  };
  struct Slot {
    Key key;
    std::int32_t index = -1;  ///< into voxels_, -1 = empty
  };

  VoxelMapParams params_;
  float inv_size_;
  std::vector<Voxel> voxels_;
  std::vector<Slot> slots_;
  std::size_t points_ = 0;
};

/// A plane n . x + d = 0 (|n| = 1) fitted to points (principal components); valid when every point
/// lies within `max_residual` [m] of it and the points spread at least `min_spread` [m] (standard
/// deviation) along the plane's second axis, i.e. are not collinear.
struct Plane {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  double d = 0.0;
};
bool fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, Plane& plane, double min_spread = 0.02);

}  // namespace asuka::lio
