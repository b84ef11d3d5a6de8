#pragma once
// A hashed voxel map for scan-to-map registration: points bucketed in cubic voxels, k-nearest
// neighbours searched in the 2 x 2 x 2 voxels nearest the query, incremental insertion with down-sampling
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

  /// Adds points (world frame). Returns how many were kept; with `kept`, also their indices in
  /// `points`, ascending (appended).
  std::size_t insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept = nullptr);

  /// Up to k nearest map points of `query` within `max_distance` [m], nearest first, searched in the
  /// 2 x 2 x 2 voxels nearest the query (exact within half a voxel). Returns the count found; `out`
  /// receives them.
  std::size_t knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// The same in the 4 x 4 x 4 voxels nearest the query (wide_block_keys; exact within 1.5 voxels):
  /// plane association's wide reach (plane_association.hpp).
  std::size_t knn_wide(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// Removes voxels outside the box of half size local_map_half_size around `center`. Returns how
  /// many voxels were removed.
  std::size_t remove_outside(const Eigen::Vector3d& center);

  std::size_t size() const { return points_; }
  std::size_t voxels() const { return voxels_.size(); }
  /// Bytes the map holds (voxels, their overflow records and hash slots).
  std::size_t memory_bytes() const { return voxels_.memory_bytes() + overflow_.size() * kOverflowChunk * sizeof(Overflow); }
  /// Overflow records taken so far, for voxels past kInlinePoints points (removed voxels' are reused).
  std::size_t overflow_records() const { return overflow_used_; }
  /// Every map point (for saving the map).
  std::vector<Eigen::Vector3f> points() const;

private:
  /// knn() over the voxels of `keys`.
  template <int kKeys>
  std::size_t search(const VoxelKey (&keys)[kKeys], const Eigen::Vector3f& query, std::size_t k, double max_distance,
                     std::vector<Eigen::Vector3f>& out) const;
  /// The keys of the 2 x 2 x 2 voxels nearest `query` (the block knn() searches).
  void block_keys(const Eigen::Vector3f& query, VoxelKey keys[8]) const;

  /// Points are stored in blocks of four: x0..x3, y0..y3, z0..z3, so that knn() computes four
  /// distances per instruction. Unused entries hold kFar, which no query comes near.
  static constexpr int kBlock = 4;
  static constexpr int kBlocks = kMaxPointsPerVoxel / kBlock;
  static_assert(kMaxPointsPerVoxel % kBlock == 0, "voxels hold whole blocks of four points");
  static_assert(kMaxPointsPerVoxel <= 32, "knn() keeps a bit per point of a voxel in 32 bits");
  static constexpr float kFar = 1e18f;
  struct alignas(16) PointBlock {
    float v[3 * kBlock] = {kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar};
    Eigen::Vector3f point(int j) const { return {v[j], v[kBlock + j], v[2 * kBlock + j]}; }
    void set(int j, const Eigen::Vector3f& p) {
      v[j] = p.x();
      v[kBlock + j] = p.y();
      v[2 * kBlock + j] = p.z();
    }
  };
  /// A voxel holds its first kInlineBlocks blocks itself, in two cache lines, and the rest in an
  /// overflow record taken from a pool when it first needs them (#18). At the frontends' density
  /// (points 0.2 m apart in 0.5 m voxels) 96 % of the voxels of an hour's VLP-16 map hold at most 8
  /// points and none more than 16: a voxel with room for all 20 inline was four lines, mostly kFar,
  /// and that map's voxels 37 MB where 18 MB hold the same points (measured: the memory halves, the
  /// per-scan time stays; docs/performance.md). A k-NN query reads the voxel's own lines and, for the
  /// few voxels with more than 8 points, one more record.
  static constexpr int kInlineBlocks = 2;
  static constexpr int kInlinePoints = kInlineBlocks * kBlock;
  static constexpr std::uint32_t kNoOverflow = ~std::uint32_t{0};
  struct alignas(64) Voxel {
    VoxelKey key;
    std::int32_t count = 0;
    PointBlock blocks[kInlineBlocks];
    std::uint32_t overflow = kNoOverflow;  ///< index of the record holding points kInlinePoints..
  };
  static_assert(sizeof(Voxel) == 128, "a voxel is two cache lines");
  struct alignas(64) Overflow {
    PointBlock blocks[kBlocks - kInlineBlocks];
  };
  /// Overflow records in chunks that never move (a growing array would copy them all at once);
  /// records of removed voxels are reused.
  static constexpr std::size_t kOverflowChunk = 1024;
  const PointBlock& block(const Voxel& voxel, int b) const {
    return b < kInlineBlocks ? voxel.blocks[b] : overflow_at(voxel.overflow).blocks[b - kInlineBlocks];
  }
  Eigen::Vector3f point(const Voxel& voxel, int i) const { return block(voxel, i / kBlock).point(i % kBlock); }
  const Overflow& overflow_at(std::uint32_t i) const { return overflow_[i / kOverflowChunk][i % kOverflowChunk]; }
  Overflow& overflow_at(std::uint32_t i) { return overflow_[i / kOverflowChunk][i % kOverflowChunk]; }
  /// A fresh (all kFar) overflow record's index.
  std::uint32_t new_overflow();
  void set_point(Voxel& voxel, int i, const Eigen::Vector3f& p);

  VoxelMapParams params_;
  float inv_size_;
  VoxelTable<Voxel> voxels_;  ///< asuka/lio/voxel_table.hpp
  std::vector<std::vector<Overflow>> overflow_;  ///< chunks of kOverflowChunk records
  std::vector<std::uint32_t> free_overflow_;     ///< records of removed voxels
  std::uint32_t overflow_used_ = 0;              ///< records handed out from the chunks
  std::size_t points_ = 0;
};

}  // namespace asuka::lio
