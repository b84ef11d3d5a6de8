#include <asuka/lio/voxel_map.hpp>

#include <asuka/lio/k_nearest.hpp>

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace asuka::lio {

VoxelMap::VoxelMap(const VoxelMapParams& params) : params_(params), inv_size_(static_cast<float>(1.0 / params.voxel_size)) {
  params_.max_points_per_voxel = std::clamp(params_.max_points_per_voxel, 1, kMaxPointsPerVoxel);
}

std::uint32_t VoxelMap::new_overflow() {
  if (!free_overflow_.empty()) {
    const std::uint32_t i = free_overflow_.back();
    free_overflow_.pop_back();
    overflow_at(i) = Overflow();
    return i;
  }
  if (overflow_used_ == overflow_.size() * kOverflowChunk) {
    overflow_.emplace_back();
    overflow_.back().resize(kOverflowChunk);
  }
  return overflow_used_++;
}

void VoxelMap::set_point(Voxel& voxel, int i, const Eigen::Vector3f& p) {
  if (i < kInlinePoints) {
    voxel.blocks[i / kBlock].set(i % kBlock, p);
    return;
  }
  if (voxel.overflow == kNoOverflow) voxel.overflow = new_overflow();
  overflow_at(voxel.overflow).blocks[(i - kInlinePoints) / kBlock].set(i % kBlock, p);
}

std::size_t VoxelMap::insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept_indices) {
  const float min_d2 = static_cast<float>(params_.min_point_distance * params_.min_point_distance);
  std::size_t kept = 0;
  for (std::size_t n = 0; n < points.size(); ++n) {
    const Eigen::Vector3f& p = points[n];
    if (!p.allFinite()) continue;
    Voxel& voxel = voxels_.find_or_add(voxel_key(p, inv_size_));
    if (voxel.count >= params_.max_points_per_voxel) continue;
    bool close = false;
    for (std::int32_t i = 0; i < voxel.count; ++i) {
      if ((point(voxel, i) - p).squaredNorm() < min_d2) {
        close = true;
        break;
      }
    }
    if (close) continue;
    set_point(voxel, voxel.count++, p);
    ++kept;
    if (kept_indices != nullptr) kept_indices->push_back(static_cast<std::uint32_t>(n));
  }
  points_ += kept;
  return kept;
}

inline void VoxelMap::block_keys(const Eigen::Vector3f& query, VoxelKey keys[8]) const {
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
  for (int i = 0; i < 8; ++i) keys[i] = VoxelKey{(i & 1) ? other[0] : lo[0], (i & 2) ? other[1] : lo[1], (i & 4) ? other[2] : lo[2]};
}

template <int kKeys>
std::size_t VoxelMap::search(const VoxelKey (&keys)[kKeys], const Eigen::Vector3f& query, std::size_t k, double max_distance,
                             std::vector<Eigen::Vector3f>& out) const {
  KNearest<PointBlock, kMaxK> nearest(k);  // k is 5 in practice
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  // Each voxel is a cache miss (the map is megabytes, visited at random), and a miss costs more
  // than scanning the voxel. So the block's lookups (8, or knn_wide's 64) are issued together and their
  // memory prefetched before any is scanned: the misses overlap instead of following one another.
  std::size_t slot[kKeys];
  for (int i = 0; i < kKeys; ++i) {
    slot[i] = voxels_.home_slot(keys[i]);
    voxels_.prefetch_slot(slot[i]);
  }
  const Voxel* voxels[kKeys];
  int n = 0;
  for (int i = 0; i < kKeys; ++i) {
    const Voxel* voxel = voxels_.find_from(slot[i], keys[i]);
    if (voxel == nullptr) continue;
    // Both lines of the voxel (a voxel's overflow record, for the few that have one, is read when
    // it is scanned: its address is in the voxel).
    const char* line = reinterpret_cast<const char*>(voxel);
    for (std::size_t b = 0; b < sizeof(Voxel); b += 64) __builtin_prefetch(line + b);
    voxels[n++] = voxel;
  }
  for (int v = 0; v < n; ++v) {
    const Voxel& voxel = *voxels[v];
    // The distances to the voxel's points, four at a time (entries past its count are kFar away),
    // and, without a branch per point, which ones could enter the buffer at its current worst. Most
    // cannot: only those are visited, and each is checked again as the buffer fills.
    const float bound = nearest.bound(max_d2);  // (held points are within max_d2)
    alignas(16) float d2[kMaxPointsPerVoxel];
    std::uint32_t candidates = 0;
    const int used = (voxel.count + kBlock - 1) / kBlock;
    const PointBlock* extra = voxel.count > kInlinePoints ? overflow_at(voxel.overflow).blocks : nullptr;
    const auto block_at = [&](int b) { return b < kInlineBlocks ? &voxel.blocks[b] : &extra[b - kInlineBlocks]; };
#if defined(__SSE2__)
    static_assert(kBlock == 4, "one SSE register per block");
    const __m128 qx = _mm_set1_ps(query.x()), qy = _mm_set1_ps(query.y()), qz = _mm_set1_ps(query.z()), limit = _mm_set1_ps(bound);
    for (int b = 0; b < used; ++b) {
      const float* values = block_at(b)->v;
      const __m128 dx = _mm_sub_ps(_mm_load_ps(values), qx);
      const __m128 dy = _mm_sub_ps(_mm_load_ps(values + kBlock), qy);
      const __m128 dz = _mm_sub_ps(_mm_load_ps(values + 2 * kBlock), qz);
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
      _mm_store_ps(d2 + b * kBlock, d);
      candidates |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmple_ps(d, limit))) << (b * kBlock);
    }
#else
    for (int b = 0; b < used; ++b) {
      const float* values = block_at(b)->v;
      for (int j = 0; j < kBlock; ++j) {
        const float dx = values[j] - query.x(), dy = values[kBlock + j] - query.y(), dz = values[2 * kBlock + j] - query.z();
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
      nearest.offer(d2[i], block_at(i / kBlock), i % kBlock);  // the mask already kept d <= max_d2
    }
  }
  return nearest.write(out);
}

std::size_t VoxelMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  VoxelKey keys[8];
  block_keys(query, keys);
  return search(keys, query, k, max_distance, out);
}

std::size_t VoxelMap::knn_wide(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  VoxelKey keys[64];
  wide_block_keys(query, inv_size_, keys);
  return search(keys, query, k, max_distance, out);
}

std::size_t VoxelMap::remove_outside(const Eigen::Vector3d& center) {
  return voxels_.remove_outside(center, params_.local_map_half_size, params_.voxel_size, [&](const Voxel& voxel) {
    points_ -= static_cast<std::size_t>(voxel.count);
    if (voxel.overflow != kNoOverflow) free_overflow_.push_back(voxel.overflow);
  });
}

std::vector<Eigen::Vector3f> VoxelMap::points() const {
  std::vector<Eigen::Vector3f> out;
  out.reserve(points_);
  for (const auto& voxel : voxels_.voxels()) {
    for (std::int32_t i = 0; i < voxel.count; ++i) out.push_back(point(voxel, i));
  }
  return out;
}

}  // namespace asuka::lio
