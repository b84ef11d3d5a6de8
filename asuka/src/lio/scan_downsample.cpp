#include <asuka/lio/scan_downsample.hpp>

#include <cmath>

namespace asuka::lio {

std::vector<std::uint32_t> downsample_first_per_voxel(const std::vector<Point>& points, double voxel_size) {
  // Voxel coordinates packed into one 64-bit key (21 bits per axis: +-1 M voxels, far beyond any
  // lidar's range at centimetre voxels).
  const double inv = 1.0 / voxel_size;
  auto axis = [inv](float v) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(static_cast<double>(v) * inv)) + (1 << 20)) & 0x1FFFFF; };
  // A flat open-addressing set (linear probing, load <= 1/2) sized for this scan: a scan is tens of
  // thousands of points, and std::unordered_set's node per insertion cost more than the rest of
  // the down-sampling.
  std::size_t capacity = 1024;
  while (capacity < 2 * points.size()) capacity <<= 1;
  constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // no key has all 64 bits set (63 are used)
  std::vector<std::uint64_t> table(capacity, kEmpty);
  const std::size_t mask = capacity - 1;
  std::vector<std::uint32_t> kept;
  kept.reserve(points.size() / 2);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const std::uint64_t key = axis(p.x) | (axis(p.y) << 21) | (axis(p.z) << 42);
    const std::uint64_t h = key * 0x9E3779B97F4A7C15ULL;  // Fibonacci hashing: the high bits are well mixed
    for (std::size_t s = static_cast<std::size_t>(h >> 32) & mask;; s = (s + 1) & mask) {
      if (table[s] == kEmpty) {
        table[s] = key;
        kept.push_back(static_cast<std::uint32_t>(i));
        break;
      }
      if (table[s] == key) break;
    }
  }
  return kept;
}

}  // namespace asuka::lio
