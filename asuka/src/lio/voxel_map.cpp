#include <asuka/lio/voxel_map.hpp>

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
      if ((voxel.point(i) - p).squaredNorm() < min_d2) {
        close = true;
        break;
      }
    }
    if (close) continue;
    voxel.set(voxel.count++, p);
    ++kept;
  }
  points_ += kept;
  return kept;
}

inline void VoxelMap::block_keys(const Eigen::Vector3f& query, Key keys[8]) const {
  // The 2 x 2 x 2 block of voxels nearest the query: it holds every point within half a voxel of it
  // (and most beyond), for 8 lookups instead of 27. Per axis: the query's voxel and its neighbour
  // on the side of the nearer face.
  std::int32_t lo[3], other[3];
  for (int i = 0; i < 3; ++i) {
    const float scaled = query[i] * inv_size_;
    const float cell = std::floor(scaled);
    lo[i] = static_cast<std::int32_t>(cell);
    other[i] = lo[i] + ((scaled - cell) < 0.5f ? -1 : 1);
  }
  for (int i = 0; i < 8; ++i) keys[i] = Key{(i & 1) ? other[0] : lo[0], (i & 2) ? other[1] : lo[1], (i & 4) ? other[2] : lo[2]};
}

std::size_t VoxelMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  // A small sorted buffer on the stack (k is 5 in practice), left uninitialized: no allocation and
  // no clearing per query.
  k = std::min(k, kMaxK);
  struct Candidate {
    float d2;
    const Voxel* voxel;
    std::int32_t index;
  };
  Candidate best[kMaxK + 1];
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
        // Voxels near surfaces are mostly full: all their lines are needed.
        const char* line = reinterpret_cast<const char*>(voxels[n]);
        for (std::size_t b = 0; b < sizeof(Voxel); b += 64) __builtin_prefetch(line + b);
        ++n;
        break;
      }
    }
  }
  for (int v = 0; v < n; ++v) {
    const Voxel& voxel = *voxels[v];
    // The distances to the voxel's points, four at a time (entries past its count are kFar away),
    // and, without a branch per point, which ones could enter the buffer at its current worst. Most
    // cannot: only those are visited, and each is checked again as the buffer fills.
    const float bound = found == k ? best[found - 1].d2 : max_d2;  // (buffered points are within max_d2)
    alignas(16) float d2[kMaxPointsPerVoxel];
    std::uint32_t candidates = 0;
    const int blocks = (voxel.count + kBlock - 1) / kBlock;
#if defined(__SSE2__)
    static_assert(kBlock == 4, "one SSE register per block");
    const __m128 qx = _mm_set1_ps(query.x()), qy = _mm_set1_ps(query.y()), qz = _mm_set1_ps(query.z()), limit = _mm_set1_ps(bound);
    for (int b = 0; b < blocks; ++b) {
      const float* block = voxel.blocks[b];
      const __m128 dx = _mm_sub_ps(_mm_load_ps(block), qx);
      const __m128 dy = _mm_sub_ps(_mm_load_ps(block + kBlock), qy);
      const __m128 dz = _mm_sub_ps(_mm_load_ps(block + 2 * kBlock), qz);
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
      _mm_store_ps(d2 + b * kBlock, d);
      candidates |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmple_ps(d, limit))) << (b * kBlock);
    }
#else
    for (int b = 0; b < blocks; ++b) {
      const float* block = voxel.blocks[b];
      for (int j = 0; j < kBlock; ++j) {
        const float dx = block[j] - query.x(), dy = block[kBlock + j] - query.y(), dz = block[2 * kBlock + j] - query.z();
        const int i = b * kBlock + j;
        d2[i] = dx * dx + dy * dy + dz * dz;
        candidates |= static_cast<std::uint32_t>(d2[i] <= bound) << i;
      }
    }
#endif
    candidates &= (std::uint32_t{1} << voxel.count) - 1;
    while (candidates != 0) {
      const int i = __builtin_ctz(candidates);
      candidates &= candidates - 1;
      const float d = d2[i];
      if (found == k && d >= best[found - 1].d2) continue;  // the mask already kept d <= max_d2
      // Insertion into the sorted prefix; a point equal in distance goes after the earlier ones.
      std::size_t pos = found;
      while (pos > 0 && best[pos - 1].d2 > d) {
        best[pos] = best[pos - 1];
        --pos;
      }
      best[pos] = {d, &voxel, i};
      if (found < k) ++found;
    }
  }
  out.resize(found);
  for (std::size_t i = 0; i < found; ++i) out[i] = best[i].voxel->point(best[i].index);
  return found;
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
  for (const auto& voxel : voxels_) {
    for (std::int32_t i = 0; i < voxel.count; ++i) out.push_back(voxel.point(i));
  }
  return out;
}

}  // namespace asuka::lio
