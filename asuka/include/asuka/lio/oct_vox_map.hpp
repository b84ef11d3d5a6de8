#pragma once
// OctVox: the compact octo-voxel map of Super-LIO (Wang et al., RA-L 2026), in our own code, with
// its heuristic-guided k-nearest-neighbour search (HKNN).
//
// Map. Cubic voxels in a hashed table (voxel_table.hpp), each split into 2 x 2 x 2 subvoxels of half
// the edge. A subvoxel holds at most one point, its representative: the running mean of the first
// `fuse_points` points that fell into it (incremental denoising: registration and range noise
// average out, and after that the point stays put, so the map does not creep). So the map's
// density is bounded by construction (one point per subvoxel, eight per voxel), a voxel is two cache
// lines (the eight points as x[8], y[8], z[8], then the key and the occupancy bits), and insertion is
// one hash lookup and one write per point, with no distance test against the voxel's other points.
//
// HKNN. The k nearest neighbours of a query are searched in the 2 x 2 x 2 voxels nearest it (the
// query's voxel and, per axis, its neighbour on the side of the nearer face): that block holds every
// map point within half a voxel of the query. The eight voxels are visited nearest first, by the
// distance from the query to each voxel's box (0 for its own voxel, then the face, edge and corner
// neighbours in the order the query's position gives), and the search stops as soon as k points are
// found and the next voxel's box is no nearer than the k-th of them: no point of the remaining
// voxels can enter the result. Within a visited voxel the eight distances are computed at once.
// The result equals an exhaustive search of the block (tests/lio/test_oct_vox_map.cpp).
//
// Threads: like the other maps, one thread at a time (the executor's worker).

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/voxel_table.hpp>

namespace asuka::lio {

struct OctVoxMapParams {
  double voxel_size = 0.5;             ///< [m] voxel edge; subvoxels have half of it (Super-LIO: vox_resolution)
  int fuse_points = 1;                 ///< points averaged into a subvoxel's representative (1: the first point stays)
  double local_map_half_size = 150.0;  ///< [m] voxels farther than this (per axis) from the sensor are removed
};

/// A point map (asuka/lio/point_map.hpp).
class OctVoxMap {
public:
  using Params = OctVoxMapParams;
  static constexpr std::size_t kMaxK = 64;  ///< knn() returns at most this many

  explicit OctVoxMap(const OctVoxMapParams& params = OctVoxMapParams());

  /// Adds points (world frame): each goes into its subvoxel, as its representative when the subvoxel
  /// is empty, else into the representative's mean while fewer than fuse_points were fused. Returns
  /// how many new representatives were created; with `kept`, also the indices in `points` of the
  /// points that created them, ascending (appended).
  std::size_t insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept = nullptr);

  /// Up to k nearest map points of `query` within `max_distance` [m], nearest first (HKNN, above).
  /// Exact within half a voxel of the query. Returns the count found; `out` receives them.
  std::size_t knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// The same, exhaustively, in the 4 x 4 x 4 voxels nearest the query (wide_block_keys; exact
  /// within 1.5 voxels): plane association's wide reach (plane_association.hpp), for the few
  /// searches of a degenerate scan.
  std::size_t knn_wide(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// Removes voxels outside the box of half size local_map_half_size around `center`. Returns how
  /// many voxels were removed.
  std::size_t remove_outside(const Eigen::Vector3d& center);

  std::size_t size() const { return points_; }
  std::size_t voxels() const { return voxels_.size(); }
  /// Bytes the map holds (voxels and hash slots).
  std::size_t memory_bytes() const { return voxels_.memory_bytes(); }
  /// Every map point (for saving the map).
  std::vector<Eigen::Vector3f> points() const;

  /// Voxels the k-NN searches have read since construction (HKNN's early stop shows as fewer than
  /// eight per query), and the searches.
  std::uint64_t visited_voxels() const { return visited_; }
  std::uint64_t queries() const { return queries_; }

private:
  static constexpr float kFar = 1e18f;  ///< coordinate of an empty subvoxel: no query comes near
  /// Subvoxel i of a voxel: bit 0 the upper half in x, bit 1 in y, bit 2 in z.
  struct alignas(64) Voxel {
    alignas(16) float x[8] = {kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar};
    alignas(16) float y[8] = {kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar};
    alignas(16) float z[8] = {kFar, kFar, kFar, kFar, kFar, kFar, kFar, kFar};
    VoxelKey key;
    std::uint8_t occupied = 0;  ///< bit i: subvoxel i holds a representative
    std::uint8_t fused[8] = {};  ///< points averaged into subvoxel i's representative
    Eigen::Vector3f point(int i) const { return {x[i], y[i], z[i]}; }
  };
  static_assert(sizeof(Voxel) == 128, "a voxel is two cache lines");

  OctVoxMapParams params_;
  float inv_size_;
  VoxelTable<Voxel> voxels_;
  std::size_t points_ = 0;
  mutable std::uint64_t visited_ = 0;
  mutable std::uint64_t queries_ = 0;
};

}  // namespace asuka::lio
