#pragma once
// A hashed voxel map for scan-to-map registration: points bucketed in cubic voxels, k-nearest
// neighbours searched in the 27 voxels around the query, incremental insertion with down-sampling
// (a new point is kept only if no map point lies within `min_point_distance` in its voxel) and
// removal of voxels outside a box that moves with the sensor. The FAST-LIO2 paper uses an
// incremental k-d tree for the same role; docs/frontends/fastlio.md says why and how they compare.

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/voxel_table.hpp>

namespace asuka::lio {

struct VoxelMapParams {
  double voxel_size = 0.5;            ///< [m] edge of a voxel (also the search granularity)
  int max_points_per_voxel = 20;      ///< insertion stops when a voxel is full (at most kMaxPointsPerVoxel)
  double min_point_distance = 0.1;    ///< [m] down-sampling: closer points are not added
  double local_map_half_size = 150.0; ///< [m] voxels farther than this (per axis) from the sensor are removed
};

/// A point map (asuka/lio/point_map.hpp).
class VoxelMap {
public:
  using Params = VoxelMapParams;
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
  /// Bytes the map holds (voxels and hash slots).
  std::size_t memory_bytes() const { return voxels_.memory_bytes(); }
  /// Every map point (for saving the map).
  std::vector<Eigen::Vector3f> points() const;

private:
  /// The keys of the 2 x 2 x 2 voxels nearest `query` (the block knn() searches).
  void block_keys(const Eigen::Vector3f& query, VoxelKey keys[8]) const;

  /// The points are stored in the voxel itself, in blocks of four: x0..x3, y0..y3, z0..z3. A hit
  /// costs the voxel's own cache lines, and only as many as it has points (a pointer chase or one
  /// array per coordinate would touch more), and knn() computes four distances per instruction.
  /// Unused entries hold kFar, which no query comes near.
  static constexpr int kBlock = 4;
  static constexpr int kBlocks = kMaxPointsPerVoxel / kBlock;
  static_assert(kMaxPointsPerVoxel % kBlock == 0, "voxels hold whole blocks of four points");
  static_assert(kMaxPointsPerVoxel <= 32, "knn() keeps a bit per point of a voxel in 32 bits");
  static constexpr float kFar = 1e18f;
  struct alignas(64) Voxel {
    VoxelKey key;
    std::int32_t count = 0;
    alignas(16) float blocks[kBlocks][3 * kBlock];
    Voxel() {
      for (auto& block : blocks) {
        for (float& v : block) v = kFar;
      }
    }
    Eigen::Vector3f point(std::int32_t i) const {
      const float* block = blocks[i / kBlock];
      const int j = i % kBlock;
      return {block[j], block[kBlock + j], block[2 * kBlock + j]};
    }
    void set(std::int32_t i, const Eigen::Vector3f& p) {
      float* block = blocks[i / kBlock];
      const int j = i % kBlock;
      block[j] = p.x();
      block[kBlock + j] = p.y();
      block[2 * kBlock + j] = p.z();
    }
  };
  VoxelMapParams params_;
  float inv_size_;
  VoxelTable<Voxel> voxels_;  ///< asuka/lio/voxel_table.hpp
  std::size_t points_ = 0;
};

}  // namespace asuka::lio
