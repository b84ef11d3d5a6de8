#include <asuka/lio/oct_vox_map.hpp>

#include <asuka/lio/k_nearest.hpp>

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace asuka::lio {

OctVoxMap::OctVoxMap(const OctVoxMapParams& params) : params_(params), inv_size_(static_cast<float>(1.0 / params.voxel_size)) {
  params_.fuse_points = std::clamp(params_.fuse_points, 1, 255);
}

std::size_t OctVoxMap::insert(const std::vector<Eigen::Vector3f>& points, std::vector<std::uint32_t>* kept) {
  std::size_t created = 0;
  const auto fuse = static_cast<std::uint8_t>(params_.fuse_points);
  for (std::size_t n = 0; n < points.size(); ++n) {
    const Eigen::Vector3f& p = points[n];
    if (!p.allFinite()) continue;
    const Eigen::Vector3f scaled = p * inv_size_;
    const Eigen::Vector3f cell(std::floor(scaled.x()), std::floor(scaled.y()), std::floor(scaled.z()));
    const Eigen::Vector3f f = scaled - cell;
    const int sub = (f.x() >= 0.5f ? 1 : 0) | (f.y() >= 0.5f ? 2 : 0) | (f.z() >= 0.5f ? 4 : 0);
    Voxel& voxel = voxels_.find_or_add(
        VoxelKey{static_cast<std::int32_t>(cell.x()), static_cast<std::int32_t>(cell.y()), static_cast<std::int32_t>(cell.z())});
    const auto bit = static_cast<std::uint8_t>(1u << sub);
    if ((voxel.occupied & bit) == 0) {
      voxel.occupied |= bit;
      voxel.fused[sub] = 1;
      voxel.x[sub] = p.x();
      voxel.y[sub] = p.y();
      voxel.z[sub] = p.z();
      ++created;
      if (kept != nullptr) kept->push_back(static_cast<std::uint32_t>(n));
    } else if (voxel.fused[sub] < fuse) {
      // The running mean stays inside the subvoxel (a mean of points of a convex cell), so the
      // voxel-box bounds of knn() hold for it.
      const float w = 1.0f / static_cast<float>(++voxel.fused[sub]);
      voxel.x[sub] += (p.x() - voxel.x[sub]) * w;
      voxel.y[sub] += (p.y() - voxel.y[sub]) * w;
      voxel.z[sub] += (p.z() - voxel.z[sub]) * w;
    }
  }
  points_ += created;
  return created;
}

std::size_t OctVoxMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  k = std::min(k, kMaxK);
  ++queries_;
  if (k == 0) {
    out.clear();
    return 0;
  }
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  // The block: per axis the query's voxel and the neighbour across the nearer face, at distance
  // gap[i] from the query. Block voxel m (bit i: the neighbour along axis i) is at least
  // sum over its bits of gap[i]^2 away (squared). A hair less, so that rounding never excludes a
  // point on a voxel face.
  const float size = static_cast<float>(params_.voxel_size);
  VoxelKey keys[8];
  float bound[8];
  std::int32_t lo[3], other[3];
  float gap2[3];
  for (int i = 0; i < 3; ++i) {
    const float scaled = query[i] * inv_size_;
    const float cell = std::floor(scaled);
    const float f = scaled - cell;
    lo[i] = static_cast<std::int32_t>(cell);
    other[i] = lo[i] + (f < 0.5f ? -1 : 1);
    const float gap = std::max(0.0f, (f < 0.5f ? f : 1.0f - f) * size - 1e-5f * size);
    gap2[i] = gap * gap;
  }
  // Nearest first: the eight box distances sorted (insertion sort; the order is the query's).
  int order[8];
  std::size_t slot[8];
  for (int m = 0; m < 8; ++m) {
    keys[m] = VoxelKey{(m & 1) ? other[0] : lo[0], (m & 2) ? other[1] : lo[1], (m & 4) ? other[2] : lo[2]};
    bound[m] = ((m & 1) ? gap2[0] : 0.0f) + ((m & 2) ? gap2[1] : 0.0f) + ((m & 4) ? gap2[2] : 0.0f);
    slot[m] = voxels_.home_slot(keys[m]);
    voxels_.prefetch_slot(slot[m]);
    int pos = m;
    while (pos > 0 && bound[order[pos - 1]] > bound[m]) {
      order[pos] = order[pos - 1];
      --pos;
    }
    order[pos] = m;
  }

  // The voxel lookups are cache misses (the map is megabytes, visited at random): all eight are
  // resolved and their voxels prefetched before the first is read, so that the misses overlap.
  // The nearest-first order then decides which are read.
  const Voxel* block[8];
  for (int m = 0; m < 8; ++m) {
    block[m] = voxels_.find_from(slot[m], keys[m]);
    if (block[m] != nullptr) {
      __builtin_prefetch(block[m]);
      __builtin_prefetch(reinterpret_cast<const char*>(block[m]) + 64);
    }
  }

  KNearest<Voxel, kMaxK> nearest(k);
  for (int j = 0; j < 8; ++j) {
    const int m = order[j];
    // Every later voxel is at least this far: none can hold a point nearer than the k-th, or
    // within max_distance.
    if (bound[m] > max_d2 || (nearest.full() && bound[m] >= nearest.bound(max_d2))) break;
    const Voxel* voxel = block[m];
    if (voxel == nullptr) continue;
    ++visited_;
    const float limit = nearest.bound(max_d2);
    alignas(16) float d2[8];
    std::uint32_t candidates = 0;
#if defined(__SSE2__)
    const __m128 qx = _mm_set1_ps(query.x()), qy = _mm_set1_ps(query.y()), qz = _mm_set1_ps(query.z()), l = _mm_set1_ps(limit);
    for (int b = 0; b < 8; b += 4) {
      const __m128 dx = _mm_sub_ps(_mm_load_ps(voxel->x + b), qx);
      const __m128 dy = _mm_sub_ps(_mm_load_ps(voxel->y + b), qy);
      const __m128 dz = _mm_sub_ps(_mm_load_ps(voxel->z + b), qz);
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
      _mm_store_ps(d2 + b, d);
      candidates |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmple_ps(d, l))) << b;
    }
#else
    for (int i = 0; i < 8; ++i) {
      const float dx = voxel->x[i] - query.x(), dy = voxel->y[i] - query.y(), dz = voxel->z[i] - query.z();
      d2[i] = dx * dx + dy * dy + dz * dz;
      candidates |= static_cast<std::uint32_t>(d2[i] <= limit) << i;
    }
#endif
    candidates &= voxel->occupied;
    while (candidates != 0) {
      const int i = __builtin_ctz(candidates);
      candidates &= candidates - 1;
      nearest.offer(d2[i], voxel, i);
    }
  }
  return nearest.write(out);
}

std::size_t OctVoxMap::knn_wide(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  VoxelKey keys[64];
  wide_block_keys(query, inv_size_, keys);
  KNearest<Voxel, kMaxK> nearest(std::min(k, kMaxK));
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  for (const VoxelKey& key : keys) {
    const Voxel* voxel = voxels_.find(key);
    if (voxel == nullptr) continue;
    for (int i = 0; i < 8; ++i) {
      if ((voxel->occupied & (1u << i)) == 0) continue;
      const float dx = voxel->x[i] - query.x(), dy = voxel->y[i] - query.y(), dz = voxel->z[i] - query.z();
      const float d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= max_d2) nearest.offer(d2, voxel, i);
    }
  }
  return nearest.write(out);
}

std::size_t OctVoxMap::remove_outside(const Eigen::Vector3d& center) {
  return voxels_.remove_outside(center, params_.local_map_half_size, params_.voxel_size,
                                [&](const Voxel& voxel) { points_ -= static_cast<std::size_t>(__builtin_popcount(voxel.occupied)); });
}

std::vector<Eigen::Vector3f> OctVoxMap::points() const {
  std::vector<Eigen::Vector3f> out;
  out.reserve(points_);
  for (const auto& voxel : voxels_.voxels()) {
    for (int i = 0; i < 8; ++i) {
      if (voxel.occupied & (1u << i)) out.push_back(voxel.point(i));
    }
  }
  return out;
}

}  // namespace asuka::lio
