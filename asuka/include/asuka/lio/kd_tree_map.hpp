#pragma once
// An incremental k-d tree map for scan-to-map registration, the structure the FAST-LIO2 paper uses
// (its "ikd-Tree"), written from the paper's ideas: points are inserted one by one at the leaves,
// deleted lazily (a flag, so a delete never restructures the tree), boxes of points are deleted by
// walking only the subtrees whose bounding boxes meet the box, and a subtree is rebuilt into a
// balanced one when it grows lopsided (scapegoat criterion: a child holds more than `balance_alpha`
// of its nodes) or when too many of its nodes are deleted (`delete_ratio`). Insertion down-samples
// in the tree: per voxel of `downsample_voxel_size` only one point is kept, the one nearest the
// voxel centre. Same interface as VoxelMap (asuka/lio/point_map.hpp), so a frontend can take either as a
// template parameter; benchmarks/bench_map.cpp compares the two.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka::lio {

struct KdTreeMapParams {
  double downsample_voxel_size = 0.2;  ///< [m] one point per voxel of this edge (nearest the centre); <= 0 keeps every point
  double local_map_half_size = 150.0;  ///< [m] points farther than this (per axis) from the sensor are removed by remove_outside()
  double balance_alpha = 0.7;          ///< in (0.5, 1): a subtree is rebuilt when a child holds more than alpha of its nodes
  double delete_ratio = 0.5;           ///< in (0, 1): a subtree is rebuilt when more than this share of its nodes are deleted
};


/// A point map (asuka/lio/point_map.hpp).
class KdTreeMap {
public:
  using Params = KdTreeMapParams;
  /// Subtrees smaller than this are not checked for balance: rebuilding them would cost more than the
  /// depth they save. It enters the depth bound: depth <= log(n) / log(1 / alpha) + kMinBalancedSize.
  static constexpr std::uint32_t kMinBalancedSize = 10;

  /// Throws std::invalid_argument when balance_alpha or delete_ratio is out of range.
  explicit KdTreeMap(const KdTreeMapParams& params = KdTreeMapParams());
  ~KdTreeMap();
  KdTreeMap(KdTreeMap&&) noexcept;
  KdTreeMap& operator=(KdTreeMap&&) noexcept;
  KdTreeMap(const KdTreeMap& other);
  KdTreeMap& operator=(const KdTreeMap& other);

  /// Adds points (world frame) with down-sampling: a point is stored when its voxel holds no map point
  /// or it is nearer the voxel centre than the one there (which it replaces). Returns how many were
  /// stored, replacements included (so size() grows by less when points replace others); with
  /// `kept`, also the stored points' indices in `points`, ascending (appended).
  std::size_t insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept = nullptr);

  /// Exactly the k nearest map points of `query` within `max_distance` [m] (inclusive), nearest
  /// first. Returns the count found; `out` receives them.
  std::size_t knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const;

  /// Removes every point outside the cube of half size local_map_half_size around `center`. Returns
  /// how many points were removed. O(1) when the map's bounding box lies inside the cube.
  std::size_t remove_outside(const Eigen::Vector3d& center);

  /// Removes every point p with min <= p <= max (per axis). Returns how many were removed.
  std::size_t remove_box(const Eigen::Vector3f& min, const Eigen::Vector3f& max);

  /// Map points (deleted ones not counted).
  std::size_t size() const;
  /// Every map point (for saving the map).
  std::vector<Eigen::Vector3f> points() const;

  /// Tree nodes, deleted ones not yet reclaimed included (diagnostics and tests).
  std::size_t nodes() const;
  /// Levels of the tree (0 when empty; diagnostics and tests).
  int depth() const;
  /// Walks the whole tree and checks what every public operation must leave behind: counts and boxes
  /// that match the subtrees, split order, no pending marks, and no subtree that breaks a rebuild
  /// criterion. Returns the first violation found, empty when there is none. O(n), for tests.
  std::string check() const;

private:
  // The nodes and the algorithms are in kd_tree_map.cpp (internal linkage, so the compiler may
  // inline them); the installed header shows no node type.
  struct Tree;
  KdTreeMapParams params_;
  std::unique_ptr<Tree> tree_;
};

}  // namespace asuka::lio
