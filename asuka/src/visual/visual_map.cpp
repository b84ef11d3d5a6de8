#include <asuka/visual/visual_map.hpp>

#include <cmath>

namespace asuka::visual {

std::optional<std::size_t> VisualMap::add(VisualPoint point) {
  const auto k = key(point.position);
  if (by_voxel_.count(k) != 0) return std::nullopt;
  std::size_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
    points_[id] = std::move(point);
    alive_[id] = true;
  } else {
    id = points_.size();
    points_.push_back(std::move(point));
    alive_.push_back(true);
  }
  by_voxel_.emplace(k, id);
  ++size_;
  return id;
}

bool VisualMap::occupied(const Eigen::Vector3d& position) const { return by_voxel_.count(key(position)) != 0; }

void VisualMap::erase(std::size_t id) {
  if (!alive(id)) return;
  by_voxel_.erase(key(points_[id].position));
  points_[id] = VisualPoint{};  // frees the patches
  alive_[id] = false;
  free_.push_back(id);
  --size_;
}

void VisualMap::add_ref(std::size_t id, RefPatch ref) {
  if (!alive(id)) return;
  auto& refs = points_[id].refs;
  if (refs.size() >= params_.max_refs && !refs.empty()) refs.erase(refs.begin());
  refs.push_back(std::move(ref));
}

void VisualMap::remove_outside(const Eigen::Vector3d& centre) {
  const double h = params_.local_map_half_size;
  for (std::size_t id = 0; id < points_.size(); ++id) {
    if (!alive_[id]) continue;
    if (((points_[id].position - centre).array().abs() > h).any()) erase(id);
  }
}

std::size_t VisualMap::memory_bytes() const {
  std::size_t bytes = points_.capacity() * sizeof(VisualPoint) + by_voxel_.size() * (sizeof(lio::VoxelKey) + 2 * sizeof(std::size_t));
  for (std::size_t id = 0; id < points_.size(); ++id) {
    if (!alive_[id]) continue;
    for (const auto& ref : points_[id].refs) bytes += sizeof(RefPatch) + ref.samples.capacity();
  }
  return bytes;
}

}  // namespace asuka::visual
