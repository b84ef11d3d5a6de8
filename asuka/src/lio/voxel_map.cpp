#include <asuka/lio/voxel_map.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace asuka::lio {

VoxelMap::VoxelMap(const VoxelMapParams& params) : params_(params), inv_size_(static_cast<float>(1.0 / params.voxel_size)) {
  params_.max_points_per_voxel = std::clamp(params_.max_points_per_voxel, 1, kMaxPointsPerVoxel);
  rebuild_slots(1024);
}

void VoxelMap::rebuild_slots(std::size_t capacity) {
  std::size_t n = 1024;
  while (n < capacity) n <<= 1;
  slots_.assign(n, Slot{});
  const std::size_t mask = n - 1;
  for (std::size_t i = 0; i < voxels_.size(); ++i) {
    std::size_t s = KeyHash()(voxels_[i].key) & mask;
    while (slots_[s].index >= 0) s = (s + 1) & mask;
    slots_[s] = Slot{voxels_[i].key, static_cast<std::int32_t>(i)};
  }
}

std::int64_t VoxelMap::find(const Key& key) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t s = KeyHash()(key) & mask;; s = (s + 1) & mask) {
    const Slot& slot = slots_[s];
    if (slot.index < 0) return -1;
    if (slot.key == key) return slot.index;
  }
}

std::size_t VoxelMap::find_or_add(const Key& key) {
  const std::int64_t found = find(key);
  if (found >= 0) return static_cast<std::size_t>(found);
  if (2 * (voxels_.size() + 1) > slots_.size()) rebuild_slots(slots_.size() * 2);  // load <= 1/2
  voxels_.emplace_back();
  voxels_.back().key = key;
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = KeyHash()(key) & mask;
  while (slots_[s].index >= 0) s = (s + 1) & mask;
  slots_[s] = Slot{key, static_cast<std::int32_t>(voxels_.size() - 1)};
  return voxels_.size() - 1;
}

inline VoxelMap::Key VoxelMap::key_of(const Eigen::Vector3f& p) const {
  return {static_cast<std::int32_t>(std::floor(p.x() * inv_size_)), static_cast<std::int32_t>(std::floor(p.y() * inv_size_)),
          static_cast<std::int32_t>(std::floor(p.z() * inv_size_))};
}

std::size_t VoxelMap::insert(const std::vector<Eigen::Vector3f>& points) {
  const float min_d2 = static_cast<float>(params_.min_point_distance * params_.min_point_distance);
  std::size_t kept = 0;
  for (const auto& p : points) {
    if (!p.allFinite()) continue;
    Voxel& voxel = voxels_[find_or_add(key_of(p))];
    if (voxel.count >= params_.max_points_per_voxel) continue;
    bool close = false;
    for (std::int32_t i = 0; i < voxel.count; ++i) {
      if ((voxel.points[static_cast<std::size_t>(i)] - p).squaredNorm() < min_d2) {
        close = true;
        break;
      }
    }
    if (close) continue;
    voxel.points[static_cast<std::size_t>(voxel.count++)] = p;
    ++kept;
  }
  points_ += kept;
  return kept;
}

inline void VoxelMap::block_keys(const Eigen::Vector3f& query, Key keys[8]) const {
  // The 2 x 2 x 2 block of voxels nearest the query: it holds every point within half a voxel of it
  // (and most beyond), for 8 lookups instead of 27.
  const Eigen::Vector3f scaled = query * inv_size_;
  const Key c = key_of(query);
  int step[3];
  for (int i = 0; i < 3; ++i) step[i] = (scaled[i] - std::floor(scaled[i])) < 0.5f ? -1 : 1;
  for (int i = 0; i < 8; ++i) keys[i] = Key{c.x + (i & 1) * step[0], c.y + ((i >> 1) & 1) * step[1], c.z + ((i >> 2) & 1) * step[2]};
}

std::size_t VoxelMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  // A small sorted buffer on the stack (k is 5 in practice): no allocation per query.
  k = std::min(k, kMaxK);
  std::array<std::pair<float, const Eigen::Vector3f*>, kMaxK + 1> best;
  std::size_t found = 0;
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  // Each voxel is a cache miss (the map is megabytes, visited at random), and a miss costs more
  // than scanning the voxel. So the eight lookups are issued together and their memory prefetched
  // before any is scanned: the misses overlap instead of following one another.
  Key keys[8];
  block_keys(query, keys);
  std::size_t slot[8];
  const std::size_t mask = slots_.size() - 1;
  for (int i = 0; i < 8; ++i) {
    slot[i] = KeyHash()(keys[i]) & mask;
    __builtin_prefetch(&slots_[slot[i]]);
  }
  const Voxel* voxels[8];
  int n = 0;
  for (int i = 0; i < 8; ++i) {
    for (std::size_t s = slot[i];; s = (s + 1) & mask) {
      const Slot& entry = slots_[s];
      if (entry.index < 0) break;
      if (entry.key == keys[i]) {
        voxels[n] = &voxels_[static_cast<std::size_t>(entry.index)];
        __builtin_prefetch(voxels[n]);
        __builtin_prefetch(reinterpret_cast<const char*>(voxels[n]) + 64);
        ++n;
        break;
      }
    }
  }
  for (int v = 0; v < n; ++v) {
    const Voxel& voxel = *voxels[v];
    for (std::int32_t i = 0; i < voxel.count; ++i) {
      const Eigen::Vector3f& p = voxel.points[static_cast<std::size_t>(i)];
      const float d2 = (p - query).squaredNorm();
      if (d2 > max_d2 || (found == k && d2 >= best[found - 1].first)) continue;
      // Insertion into the sorted prefix; a point equal in distance goes after the earlier ones.
      std::size_t pos = found;
      while (pos > 0 && best[pos - 1].first > d2) {
        best[pos] = best[pos - 1];
        --pos;
      }
      best[pos] = {d2, &p};
      if (found < k) ++found;
    }
  }
  out.clear();
  for (std::size_t i = 0; i < found; ++i) out.push_back(*best[i].second);
  return out.size();
}

std::size_t VoxelMap::remove_outside(const Eigen::Vector3d& center) {
  const double h = params_.local_map_half_size;
  const std::size_t before = voxels_.size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < voxels_.size(); ++i) {
    const Key& k = voxels_[i].key;
    const Eigen::Vector3d voxel_center = (Eigen::Vector3d(k.x, k.y, k.z) + Eigen::Vector3d::Constant(0.5)) * params_.voxel_size;
    if (((voxel_center - center).cwiseAbs().array() > h).any()) {
      points_ -= static_cast<std::size_t>(voxels_[i].count);
      continue;
    }
    if (kept != i) voxels_[kept] = std::move(voxels_[i]);
    ++kept;
  }
  voxels_.resize(kept);
  if (kept != before) rebuild_slots(2 * kept + 2);  // open addressing: removal = rebuild
  return before - kept;
}

std::vector<Eigen::Vector3f> VoxelMap::points() const {
  std::vector<Eigen::Vector3f> out;
  out.reserve(points_);
  for (const auto& voxel : voxels_) out.insert(out.end(), voxel.points.begin(), voxel.points.begin() + voxel.count);
  return out;
}

bool fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, Plane& plane, double min_spread) {
  if (points.size() < 3) return false;
  // Principal component fit: the normal is the direction of least spread about the centroid. Unlike
  // solving n . x = -1, it also fits planes through the origin.
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (const auto& p : points) mean += p.cast<double>();
  mean /= static_cast<double>(points.size());
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (const auto& p : points) {
    const Eigen::Vector3d q = p.cast<double>() - mean;
    cov += q * q.transpose();
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver;
  solver.computeDirect(cov);
  if (solver.info() != Eigen::Success) return false;
  // Reject (nearly) collinear neighbours: points on one scan line lie in infinitely many planes, and
  // spinning lidars moving level draw walls as such lines. The middle spread must be real.
  const double n = static_cast<double>(points.size());
  if (solver.eigenvalues()(1) / n < min_spread * min_spread) return false;
  plane.normal = solver.eigenvectors().col(0).normalized();  // smallest eigenvalue first
  plane.d = -plane.normal.dot(mean);
  for (const auto& p : points) {
    if (std::fabs(plane.normal.dot(p.cast<double>()) + plane.d) > max_residual) return false;
  }
  return true;
}

}  // namespace asuka::lio
