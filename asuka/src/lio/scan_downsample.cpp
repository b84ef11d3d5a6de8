#include <asuka/lio/scan_downsample.hpp>

#include <cmath>
#include <unordered_set>

namespace asuka::lio {

std::vector<std::uint32_t> downsample_first_per_voxel(const std::vector<Point>& points, double voxel_size) {
  // Voxel coordinates packed into one 64-bit key (21 bits per axis: +-1 M voxels, far beyond any
  // lidar's range at centimetre voxels).
  auto key = [inv = 1.0 / voxel_size](const Point& p) {
    auto axis = [inv](float v) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(static_cast<double>(v) * inv)) + (1 << 20)) & 0x1FFFFF; };
    return axis(p.x) | (axis(p.y) << 21) | (axis(p.z) << 42);
  };
  std::unordered_set<std::uint64_t> occupied;
  occupied.reserve(points.size());
  std::vector<std::uint32_t> kept;
  kept.reserve(points.size() / 2);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (occupied.insert(key(points[i])).second) kept.push_back(static_cast<std::uint32_t>(i));
  }
  return kept;
}

}  // namespace asuka::lio
