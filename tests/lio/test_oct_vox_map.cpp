// OctVoxMap (#14, Super-LIO's OctVox map with HKNN): k-NN exactness against brute force on random
// and structured clouds, the bounded representative per subvoxel and its fused mean, box removal,
// the early stop of the heuristic-guided search, and memory per stored point next to VoxelMap.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include <asuka/lio/oct_vox_map.hpp>
#include <asuka/lio/point_map.hpp>
#include <asuka/lio/voxel_map.hpp>

namespace asuka::lio {
namespace {

static_assert(is_point_map_v<OctVoxMap>, "OctVoxMap is a point map");

using Cloud = std::vector<Eigen::Vector3f>;

/// Checks knn() of `map` against brute force over the map's own points for `queries`: nearest
/// first, within max_distance, and equal to the brute-force neighbour wherever that one lies within
/// half a voxel (the guarantee). Returns how many neighbours were compared exactly.
std::size_t expect_exact_knn(const OctVoxMap& map, double voxel_size, const Cloud& queries, std::size_t k, double max_distance) {
  const Cloud stored = map.points();
  Cloud found;
  std::size_t compared = 0;
  for (const auto& q : queries) {
    std::vector<double> d;
    d.reserve(stored.size());
    for (const auto& p : stored) d.push_back(static_cast<double>((p - q).norm()));
    std::sort(d.begin(), d.end());
    const std::size_t n = map.knn(q, k, max_distance, found);
    EXPECT_EQ(n, found.size());
    EXPECT_LE(n, k);
    for (std::size_t i = 0; i < n; ++i) {
      const double di = static_cast<double>((found[i] - q).norm());
      EXPECT_LE(di, max_distance + 1e-5);
      if (i > 0) {
        EXPECT_LE(static_cast<double>((found[i - 1] - q).norm()), di + 1e-6);
      }
      if (d[i] < 0.5 * voxel_size && d[i] <= max_distance) {
        EXPECT_NEAR(di, d[i], 1e-6) << "neighbour " << i << " of (" << q.transpose() << ")";
        ++compared;
      }
    }
    // Every brute-force neighbour within half a voxel (and the radius) is found.
    std::size_t within = 0;
    while (within < std::min(k, d.size()) && d[within] < 0.5 * voxel_size && d[within] <= max_distance) ++within;
    EXPECT_GE(n, within);
  }
  return compared;
}

TEST(OctVoxMapTest, KnnIsExactOnARandomCloud) {
  OctVoxMap map(OctVoxMapParams{0.5, 1, 1000.0});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  Cloud points;
  for (int i = 0; i < 20000; ++i) points.emplace_back(u(rng), u(rng), u(rng));
  map.insert(points);
  Cloud queries;
  for (int i = 0; i < 300; ++i) queries.emplace_back(u(rng), u(rng), u(rng));
  EXPECT_GT(expect_exact_knn(map, 0.5, queries, 5, 10.0), 600u);
  EXPECT_GT(expect_exact_knn(map, 0.5, queries, 20, 0.3), 600u);  // a radius below half a voxel
}

TEST(OctVoxMapTest, KnnIsExactOnStructuredSurfaces) {
  // What a LiDAR map holds: planes (ground, two walls at odd angles), a pole, with 1 cm noise and
  // queries on and near them, including on voxel faces.
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  Cloud points;
  const Eigen::Vector3f wall_n = Eigen::Vector3f(0.8f, 0.6f, 0.0f);
  for (int i = 0; i < 30000; ++i) {
    const float a = u(rng), b = u(rng);
    points.emplace_back(a, b, noise(rng));                                                   // ground
    points.emplace_back(a, 2.0f + 0.3f * a + noise(rng), std::fabs(b));                      // tilted wall
    points.emplace_back(Eigen::Vector3f(a, b, std::fabs(b) * 0.5f) + wall_n * noise(rng));  // a ramp
    if (i % 4 == 0) points.emplace_back(1.0f + noise(rng), -1.0f + noise(rng), std::fabs(a));  // pole
  }
  OctVoxMap map(OctVoxMapParams{0.5, 5, 1000.0});
  map.insert(points);
  Cloud queries;
  for (int i = 0; i < 200; ++i) queries.push_back(points[static_cast<std::size_t>(i) * 397 % points.size()] + Eigen::Vector3f(noise(rng), noise(rng), 0.05f));
  queries.emplace_back(0.5f, 0.5f, 0.0f);  // on voxel corners
  queries.emplace_back(1.0f, -1.0f, 1.5f);
  EXPECT_GT(expect_exact_knn(map, 0.5, queries, 5, 1.5), 500u);
}

TEST(OctVoxMapTest, OneRepresentativePerSubvoxelIsTheMeanOfTheFirstFusedPoints) {
  OctVoxMap map(OctVoxMapParams{1.0, 3, 1000.0});
  // Five points in subvoxel 0 of voxel (0, 0, 0) (all coordinates < 0.5): the first three are fused.
  const Cloud first = {{0.1f, 0.1f, 0.1f}, {0.2f, 0.3f, 0.1f}, {0.3f, 0.2f, 0.4f}, {0.45f, 0.45f, 0.45f}, {0.0f, 0.0f, 0.0f}};
  EXPECT_EQ(map.insert(first), 1u);
  EXPECT_EQ(map.size(), 1u);
  Cloud out;
  ASSERT_EQ(map.knn(Eigen::Vector3f(0.2f, 0.2f, 0.2f), 5, 1.0, out), 1u);
  EXPECT_NEAR(out[0].x(), 0.2f, 1e-6f);
  EXPECT_NEAR(out[0].y(), 0.2f, 1e-6f);
  EXPECT_NEAR(out[0].z(), 0.2f, 1e-6f);
  // Many points anywhere in one voxel: never more than eight, each inside its own subvoxel.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(5.0f, 5.999f);
  Cloud dense;
  for (int i = 0; i < 10000; ++i) dense.emplace_back(u(rng), u(rng), u(rng));
  EXPECT_EQ(map.insert(dense), 8u);
  EXPECT_EQ(map.size(), 9u);
  EXPECT_EQ(map.voxels(), 2u);
  int octants = 0;
  for (const auto& p : map.points()) {
    if (p.x() < 5.0f) continue;
    const int sub = (p.x() >= 5.5f ? 1 : 0) | (p.y() >= 5.5f ? 2 : 0) | (p.z() >= 5.5f ? 4 : 0);
    octants |= 1 << sub;
  }
  EXPECT_EQ(octants, 0xff);
  // Not finite: ignored.
  EXPECT_EQ(map.insert({Eigen::Vector3f(NAN, 0.0f, 0.0f), Eigen::Vector3f(INFINITY, 1.0f, 1.0f)}), 0u);
  EXPECT_EQ(map.size(), 9u);
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 0, 1.0, out), 0u);
}

TEST(OctVoxMapTest, RemovesVoxelsOutsideTheMovingBox) {
  OctVoxMap map(OctVoxMapParams{1.0, 1, 10.0});
  map.insert({{0.2f, 0.2f, 0.2f}, {0.7f, 0.7f, 0.7f}, {50.0f, 0.0f, 0.0f}, {50.6f, 0.0f, 0.0f}, {-3.0f, 9.2f, 0.0f}});
  EXPECT_EQ(map.size(), 5u);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d::Zero()), 1u);  // the voxel at x = 50 (two points)
  EXPECT_EQ(map.size(), 3u);
  Cloud out;
  EXPECT_EQ(map.knn(Eigen::Vector3f(50.0f, 0.0f, 0.0f), 5, 1.0, out), 0u);
  EXPECT_EQ(map.knn(Eigen::Vector3f(-3.0f, 9.2f, 0.0f), 5, 1.0, out), 1u);  // and the rest is still found
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d(0, 100, 0)), 2u);
  EXPECT_EQ(map.size(), 0u);
}

TEST(OctVoxMapTest, HknnStopsWhenNoFartherVoxelCanHoldANearerPoint) {
  // Every subvoxel occupied (a dense volume): the query's own voxel holds eight points, and the
  // nearest-first search reads a neighbour voxel only when the query lies closer to its face than
  // to the k-th point found. An exhaustive search of the block reads all eight voxels.
  OctVoxMap map(OctVoxMapParams{0.5, 1, 1000.0});
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  Cloud volume;
  for (int i = 0; i < 200000; ++i) volume.emplace_back(u(rng), u(rng), u(rng));
  map.insert(volume);
  ASSERT_EQ(map.size(), 12u * 12u * 12u * 8u);
  Cloud out;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(map.knn(Eigen::Vector3f(0.8f * u(rng), 0.8f * u(rng), 0.8f * u(rng)), 3, 1.5, out), 3u);
  const double per_query = static_cast<double>(map.visited_voxels()) / static_cast<double>(map.queries());
  std::printf("HKNN, k = 3 in a dense volume: %.2f of 8 voxels read per query\n", per_query);
  EXPECT_LT(per_query, 6.0);
  EXPECT_GE(per_query, 1.0);
}

TEST(OctVoxMapTest, HoldsASurfaceInLessMemoryThanVoxelMap) {
  // The same surfaces at the settings of fastlio (VoxelMap: 0.5 m voxels, points 0.2 m apart) and
  // superlio (OctVox: 0.5 m voxels, 0.25 m subvoxels).
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-20.0f, 20.0f);
  Cloud points;
  for (int i = 0; i < 200000; ++i) {
    const float a = u(rng), b = u(rng);
    points.emplace_back(a, b, 0.05f * a);
    points.emplace_back(a, 5.0f + 0.2f * a, std::fabs(b) * 0.25f);
  }
  OctVoxMap oct(OctVoxMapParams{0.5, 5, 1000.0});
  VoxelMap vox(VoxelMapParams{0.5, VoxelMap::kMaxPointsPerVoxel, 0.2, 1000.0});
  oct.insert(points);
  vox.insert(points);
  const double oct_per_point = static_cast<double>(oct.memory_bytes()) / static_cast<double>(oct.size());
  const double vox_per_point = static_cast<double>(vox.memory_bytes()) / static_cast<double>(vox.size());
  std::printf("OctVox: %zu points, %.1f bytes per point, %.2f MB; VoxelMap: %zu points, %.1f bytes per point, %.2f MB\n", oct.size(),
              oct_per_point, static_cast<double>(oct.memory_bytes()) / 1e6, vox.size(), vox_per_point,
              static_cast<double>(vox.memory_bytes()) / 1e6);
  EXPECT_LT(oct.memory_bytes(), vox.memory_bytes());
  EXPECT_LT(oct_per_point, 64.0);  // 128-byte voxels, 16-byte slots at load <= 1/2, about 4 points per voxel on a surface
}

}  // namespace
}  // namespace asuka::lio
