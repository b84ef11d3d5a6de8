#include <asuka/lio/voxel_map.hpp>

#include <asuka/lio/k_nearest.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

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

std::size_t VoxelMap::insert(const std::vector<Eigen::Vector3f>& points) {
  const float min_d2 = static_cast<float>(params_.min_point_distance * params_.min_point_distance);
  std::size_t kept = 0;
  for (const auto& p : points) {
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

std::size_t VoxelMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  // Each voxel is a cache miss (the map is megabytes, visited at random), and a miss costs more
  // than scanning the voxel. So the eight lookups are issued together and their memory prefetched
  // before any is scanned: the misses overlap instead of following one another.
  VoxelKey keys[8];
  block_keys(query, keys);
  std::size_t slot[8];
  for (int i = 0; i < 8; ++i) {
    slot[i] = voxels_.home_slot(keys[i]);
    voxels_.prefetch_slot(slot[i]);
  }
  const Voxel* voxels[8];
  int n = 0;
  for (int i = 0; i < 8; ++i) {
    const Voxel* voxel = voxels_.find_from(slot[i], keys[i]);
    if (voxel == nullptr) continue;
    // Both lines of the voxel (a voxel's overflow record, for the few that have one, is read when
    // it is scanned: its address is in the voxel).
    const char* line = reinterpret_cast<const char*>(voxel);
    for (std::size_t b = 0; b < sizeof(Voxel); b += 64) __builtin_prefetch(line + b);
    voxels[n++] = voxel;
  }
#if defined(__SSE2__)
  // Every distance first (four per instruction; entries past a voxel's count are kFar away), then
  // the k nearest by repeated minimum: no branch per point, whatever the density.
  alignas(16) float d2[8 * kMaxPointsPerVoxel];
  const PointBlock* source[8 * kBlocks];
  int blocks = 0;
  const __m128 qx = _mm_set1_ps(query.x()), qy = _mm_set1_ps(query.y()), qz = _mm_set1_ps(query.z());
  for (int v = 0; v < n; ++v) {
    const Voxel& voxel = *voxels[v];
    const int used = (voxel.count + kBlock - 1) / kBlock;
    const PointBlock* extra = voxel.count > kInlinePoints ? overflow_at(voxel.overflow).blocks : nullptr;
    for (int b = 0; b < used; ++b) {
      const PointBlock* block = b < kInlineBlocks ? &voxel.blocks[b] : &extra[b - kInlineBlocks];
      const __m128 dx = _mm_sub_ps(_mm_load_ps(block->v), qx);
      const __m128 dy = _mm_sub_ps(_mm_load_ps(block->v + kBlock), qy);
      const __m128 dz = _mm_sub_ps(_mm_load_ps(block->v + 2 * kBlock), qz);
      _mm_store_ps(d2 + blocks * kBlock, _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz)));
      source[blocks++] = block;
    }
  }
  const std::size_t want = std::min(k, kMaxK);
  std::size_t found = 0;
  out.resize(want);
  const float limit = std::min(max_d2, 1e30f);  // (kFar entries are 1e36 away)
  const __m128 taken = _mm_set1_ps(std::numeric_limits<float>::infinity());
  for (; found < want && blocks > 0; ++found) {
    __m128 m = _mm_load_ps(d2);
    for (int b = 1; b < blocks; ++b) m = _mm_min_ps(m, _mm_load_ps(d2 + b * kBlock));
    m = _mm_min_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_min_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    if (!(_mm_cvtss_f32(m) <= limit)) break;
    // The first entry at the minimum: ties go to the earlier voxel and point.
    int b = 0;
    int mask = 0;
    for (;; ++b) {
      mask = _mm_movemask_ps(_mm_cmpeq_ps(_mm_load_ps(d2 + b * kBlock), m));
      if (mask != 0) break;
    }
    const int j = __builtin_ctz(static_cast<unsigned>(mask));
    out[found] = source[b]->point(j);
    _mm_store_ss(d2 + b * kBlock + j, taken);
  }
  out.resize(found);
  return found;
#else
  KNearest<PointBlock, kMaxK> nearest(k);
  for (int v = 0; v < n; ++v) {
    const Voxel& voxel = *voxels[v];
    const PointBlock* extra = voxel.count > kInlinePoints ? overflow_at(voxel.overflow).blocks : nullptr;
    for (int i = 0; i < voxel.count; ++i) {
      const int b = i / kBlock, j = i % kBlock;
      const PointBlock* block = b < kInlineBlocks ? &voxel.blocks[b] : &extra[b - kInlineBlocks];
      const float d2 = (block->point(j) - query).squaredNorm();
      if (d2 <= max_d2) nearest.offer(d2, block, j);
    }
  }
  return nearest.write(out);
#endif
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
