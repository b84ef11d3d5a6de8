#pragma once
// The visual map points of a direct LiDAR-inertial-visual frontend (fastlivo): LiDAR points chosen for
// their image texture, each with the plane normal the LiDAR map gives there and a few reference
// patches from earlier images (FAST-LIVO2's visual map points). One point per voxel of the map's grid
// (VoxelKey, the LiDAR map's hashing), so the points spread over the scene instead of crowding on the
// strongest texture; the same local box as the LiDAR map bounds them.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/voxel_table.hpp>
#include <asuka/visual/patch.hpp>

namespace asuka::visual {

struct VisualPoint {
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< [m] world
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();   ///< world, towards the cameras that saw it
  std::vector<RefPatch> refs;                          ///< oldest first
  std::uint32_t last_seen = 0;                         ///< frame of the last successful alignment
  int failures = 0;                                    ///< consecutive outlier alignments
};

struct VisualMapParams {
  double voxel_size = 0.5;          ///< [m] at most one point per voxel
  std::size_t max_refs = 4;         ///< reference patches per point (the oldest goes first)
  double local_map_half_size = 150.0;  ///< [m] points outside this box around the sensor are dropped
};

class VisualMap {
public:
  explicit VisualMap(const VisualMapParams& params = {}) : params_(params), inv_voxel_(static_cast<float>(1.0 / params.voxel_size)) {}

  /// Adds `point` unless its voxel already holds one; returns its id.
  std::optional<std::size_t> add(VisualPoint point);
  bool occupied(const Eigen::Vector3d& position) const;
  void erase(std::size_t id);
  /// Appends `ref`, dropping the oldest beyond max_refs.
  void add_ref(std::size_t id, RefPatch ref);
  /// Drops the points outside the cube of half size local_map_half_size around `centre`.
  void remove_outside(const Eigen::Vector3d& centre);

  std::size_t size() const { return size_; }
  /// Slots 0 .. slots() - 1; alive(id) tells which hold a point.
  std::size_t slots() const { return points_.size(); }
  bool alive(std::size_t id) const { return id < alive_.size() && alive_[id]; }
  VisualPoint& at(std::size_t id) { return points_[id]; }
  const VisualPoint& at(std::size_t id) const { return points_[id]; }
  const VisualMapParams& params() const { return params_; }
  /// Bytes held by the points and their patches (approximate: vector capacities).
  std::size_t memory_bytes() const;

private:
  lio::VoxelKey key(const Eigen::Vector3d& p) const { return lio::voxel_key(p.cast<float>(), inv_voxel_); }

  VisualMapParams params_;
  float inv_voxel_;
  std::vector<VisualPoint> points_;
  std::vector<bool> alive_;
  std::vector<std::size_t> free_;
  std::unordered_map<lio::VoxelKey, std::size_t, lio::VoxelKeyHash> by_voxel_;
  std::size_t size_ = 0;
};

}  // namespace asuka::visual
