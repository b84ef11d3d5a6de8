// KdTreeMap (asuka/lio/kd_tree_map.hpp): k-NN against brute force, in-tree down-sampling, box
// deletes, the moving local-map box and the balance of the tree; every check compares with a plain
// list of the points the map should hold.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/kd_tree_map.hpp>
#include <asuka/lio/plane_fit.hpp>
#include <asuka/lio/voxel_map.hpp>

namespace asuka::lio {
namespace {

using Cloud = std::vector<Eigen::Vector3f>;

KdTreeMapParams no_downsampling(double half_size = 1000.0) {
  KdTreeMapParams params;
  params.downsample_voxel_size = 0.0;
  params.local_map_half_size = half_size;
  return params;
}

Cloud random_cloud(std::mt19937& rng, std::size_t n, const Eigen::Vector3f& min, const Eigen::Vector3f& max) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Cloud cloud(n);
  for (auto& p : cloud) p = min + Eigen::Vector3f(u(rng), u(rng), u(rng)).cwiseProduct(max - min);
  return cloud;
}

// Points on a few planes and lines, as a scan has them: many equal distances along axes and dense
// clusters, which exercise the pruning more than a uniform cloud does.
Cloud structured_cloud(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> u(-5.0f, 5.0f);
  std::uniform_int_distribution<int> kind(0, 3);
  Cloud cloud(n);
  for (auto& p : cloud) {
    switch (kind(rng)) {
      case 0:  // ground
        p = Eigen::Vector3f(u(rng), u(rng), 0.0f);
        break;
      case 1:  // wall
        p = Eigen::Vector3f(3.0f, u(rng), 0.5f * u(rng) + 2.5f);
        break;
      case 2:  // edge
        p = Eigen::Vector3f(u(rng), -2.0f, 1.0f);
        break;
      default:  // cluster
        p = Eigen::Vector3f(0.1f * u(rng), 0.1f * u(rng), 0.1f * u(rng));
    }
  }
  return cloud;
}

// knn() against brute force over `model` (what the map must hold), with the same float distance
// the map uses: same count, same distances in the same order, and each returned point is a model
// point at that distance (so never a deleted one).
void expect_knn_exact(const KdTreeMap& map, const Cloud& model, const Eigen::Vector3f& q, std::size_t k, double max_distance) {
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  std::vector<std::pair<float, Eigen::Vector3f>> in_range;
  for (const auto& p : model) {
    const float d2 = (p - q).squaredNorm();
    if (d2 <= max_d2) in_range.emplace_back(d2, p);
  }
  const auto by_distance = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::sort(in_range.begin(), in_range.end(), by_distance);
  Cloud out;
  const std::size_t found = map.knn(q, k, max_distance, out);
  ASSERT_EQ(found, std::min(k, in_range.size())) << "query " << q.transpose() << " k " << k << " max " << max_distance;
  ASSERT_EQ(out.size(), found);
  for (std::size_t i = 0; i < found; ++i) {
    const float d2 = (out[i] - q).squaredNorm();
    ASSERT_EQ(d2, in_range[i].first) << "neighbour " << i << " of " << q.transpose();
    bool in_map = false;  // among the model points at exactly this distance (ties in any order)
    for (std::size_t j = i; j > 0 && in_range[j - 1].first == d2 && !in_map; --j) in_map = in_range[j - 1].second == out[i];
    for (std::size_t j = i; j < in_range.size() && in_range[j].first == d2 && !in_map; ++j) in_map = in_range[j].second == out[i];
    ASSERT_TRUE(in_map) << out[i].transpose() << " is not in the map";
  }
}

std::vector<std::tuple<float, float, float>> sorted(const Cloud& cloud) {
  std::vector<std::tuple<float, float, float>> v;
  v.reserve(cloud.size());
  for (const auto& p : cloud) v.emplace_back(p.x(), p.y(), p.z());
  std::sort(v.begin(), v.end());
  return v;
}

void expect_same_points(const KdTreeMap& map, const Cloud& model) {
  EXPECT_EQ(map.check(), "");  // counts, boxes, split order, both rebuild criteria at every node
  EXPECT_EQ(map.size(), model.size());
  EXPECT_EQ(sorted(map.points()), sorted(model));
}

// Depth of a tree whose subtrees of at least kMinBalancedSize nodes give each child at most alpha of
// their nodes: each such level divides the size by 1/alpha, then at most kMinBalancedSize levels.
int depth_bound(std::size_t nodes, double alpha) {
  if (nodes == 0) return 0;
  return static_cast<int>(std::ceil(std::log(static_cast<double>(nodes)) / std::log(1.0 / alpha))) + static_cast<int>(KdTreeMap::kMinBalancedSize);
}

TEST(KdTreeMapTest, RejectsOutOfRangeParameters) {
  KdTreeMapParams p;
  p.balance_alpha = 0.5;
  EXPECT_THROW(KdTreeMap{p}, std::invalid_argument);
  p.balance_alpha = 1.0;
  EXPECT_THROW(KdTreeMap{p}, std::invalid_argument);
  p.balance_alpha = 0.7;
  p.delete_ratio = 0.0;
  EXPECT_THROW(KdTreeMap{p}, std::invalid_argument);
  p.delete_ratio = 1.0;
  EXPECT_THROW(KdTreeMap{p}, std::invalid_argument);
}

TEST(KdTreeMapTest, EmptyMapAndDegenerateQueries) {
  KdTreeMap map(no_downsampling());
  Cloud out{Eigen::Vector3f::Zero()};
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 5, 10.0, out), 0u);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.depth(), 0);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d::Zero()), 0u);
  EXPECT_EQ(map.remove_box(Eigen::Vector3f::Constant(-1.0f), Eigen::Vector3f::Constant(1.0f)), 0u);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(map.insert({Eigen::Vector3f(nan, 0, 0), Eigen::Vector3f(1, 2, 3)}), 1u);  // non-finite points are skipped
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 0, 10.0, out), 0u);
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 5, 1.0, out), 0u);  // the one point is 3.7 m away
  ASSERT_EQ(map.knn(Eigen::Vector3f::Zero(), 5, 10.0, out), 1u);
  EXPECT_EQ(out[0], Eigen::Vector3f(1, 2, 3));
}

TEST(KdTreeMapTest, KnnEqualsBruteForce) {
  std::mt19937 rng(42);
  for (const bool structured : {false, true}) {
    KdTreeMap map(no_downsampling());
    Cloud model;
    // The first batch builds the tree at once, the others grow it leaf by leaf.
    for (int batch = 0; batch < 8; ++batch) {
      const Cloud cloud = structured ? structured_cloud(rng, 600) : random_cloud(rng, 600, Eigen::Vector3f(-5, -5, -2), Eigen::Vector3f(5, 5, 2));
      EXPECT_EQ(map.insert(cloud), cloud.size());
      model.insert(model.end(), cloud.begin(), cloud.end());
    }
    expect_same_points(map, model);
    const Cloud queries = random_cloud(rng, 300, Eigen::Vector3f(-6, -6, -3), Eigen::Vector3f(6, 6, 3));
    for (const auto& q : queries) {
      expect_knn_exact(map, model, q, 1, 1e9);
      expect_knn_exact(map, model, q, 5, 1.5);
      expect_knn_exact(map, model, q, 5, 0.3);  // often fewer than 5 in range
      expect_knn_exact(map, model, q, 40, 1.0);
      expect_knn_exact(map, model, q, 100000, 0.8);  // k larger than the points in range: all of them
    }
    // Queries on map points: distance 0 first.
    for (std::size_t i = 0; i < model.size(); i += 97) expect_knn_exact(map, model, model[i], 5, 1.5);
  }
}

TEST(KdTreeMapTest, DownsamplingKeepsThePointNearestEachVoxelCentre) {
  const double voxel = 0.2;
  KdTreeMapParams params;
  params.downsample_voxel_size = voxel;
  KdTreeMap map(params);

  // A hand-made voxel first: [0, 0.2)^3, centre (0.1, 0.1, 0.1).
  EXPECT_EQ(map.insert({Eigen::Vector3f(0.02f, 0.02f, 0.02f)}), 1u);
  EXPECT_EQ(map.insert({Eigen::Vector3f(0.15f, 0.12f, 0.1f)}), 1u);   // nearer the centre: replaces
  EXPECT_EQ(map.insert({Eigen::Vector3f(0.19f, 0.19f, 0.19f)}), 0u);  // farther: rejected
  EXPECT_EQ(map.insert({Eigen::Vector3f(0.2f, 0.1f, 0.1f)}), 1u);     // on the face: the next voxel
  Cloud expected{Eigen::Vector3f(0.15f, 0.12f, 0.1f), Eigen::Vector3f(0.2f, 0.1f, 0.1f)};
  expect_same_points(map, expected);

  // Random batches over negative and positive coordinates (floor, not truncation), several points per
  // voxel per batch and across batches. Reference: per voxel, the nearest to the centre of all points
  // ever inserted (in double, as the map compares).
  map = KdTreeMap(params);
  std::mt19937 rng(7);
  std::map<std::tuple<int, int, int>, std::pair<double, Eigen::Vector3f>> best;
  std::size_t stored_total = 0;
  for (int batch = 0; batch < 12; ++batch) {
    const Cloud cloud = random_cloud(rng, 3000, Eigen::Vector3f(-1.5f, -1, -0.5f), Eigen::Vector3f(1.5f, 1, 0.5f));
    std::size_t newly_best = 0;
    std::map<std::tuple<int, int, int>, bool> improved;
    for (const auto& p : cloud) {
      const auto inv = static_cast<float>(1.0 / voxel);
      const std::tuple<int, int, int> key{static_cast<int>(std::floor(p.x() * inv)), static_cast<int>(std::floor(p.y() * inv)),
                                          static_cast<int>(std::floor(p.z() * inv))};
      const Eigen::Vector3d centre = (Eigen::Vector3d(std::get<0>(key), std::get<1>(key), std::get<2>(key)) + Eigen::Vector3d::Constant(0.5)) * voxel;
      const double d2 = (p.cast<double>() - centre).squaredNorm();
      auto it = best.find(key);
      if (it == best.end() || d2 < it->second.first) {
        best[key] = {d2, p};
        improved[key] = true;
      }
    }
    newly_best = improved.size();
    const std::size_t stored = map.insert(cloud);
    EXPECT_EQ(stored, newly_best) << "batch " << batch;  // one stored point per voxel whose best changed
    stored_total += stored;
    Cloud model;
    for (const auto& [key, entry] : best) model.push_back(entry.second);
    expect_same_points(map, model);
  }
  EXPECT_GT(stored_total, map.size());  // later batches replaced points
  EXPECT_EQ(map.size(), best.size());   // one point per voxel
}

TEST(KdTreeMapTest, BoxDeleteRemovesExactlyThePointsInTheBox) {
  std::mt19937 rng(3);
  KdTreeMap map(no_downsampling());
  Cloud model = random_cloud(rng, 5000, Eigen::Vector3f(-10, -10, -2), Eigen::Vector3f(10, 10, 2));
  map.insert(model);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  for (int i = 0; i < 40; ++i) {
    Eigen::Vector3f a(u(rng), u(rng), 0.3f * u(rng)), b(u(rng), u(rng), 0.3f * u(rng));
    if (i % 5 == 0) {
      // Corners on map points: points exactly on the faces are inside (the box is closed).
      a = model[static_cast<std::size_t>(rng() % model.size())];
      b = model[static_cast<std::size_t>(rng() % model.size())];
    }
    const Eigen::Vector3f lo = a.cwiseMin(b), max = a.cwiseMax(b);
    auto inside = [&](const Eigen::Vector3f& p) { return (p.array() >= lo.array()).all() && (p.array() <= max.array()).all(); };
    const auto expected_removed = static_cast<std::size_t>(std::count_if(model.begin(), model.end(), inside));
    if (i % 5 == 0) {
      EXPECT_GE(expected_removed, 2u);
    }
    EXPECT_EQ(map.remove_box(lo, max), expected_removed);
    model.erase(std::remove_if(model.begin(), model.end(), inside), model.end());
    expect_same_points(map, model);
    // Queries inside the deleted box: nothing from the box comes back, and the rest is exact.
    const Eigen::Vector3f centre = 0.5f * (lo + max);
    expect_knn_exact(map, model, centre, 10, 1e9);
    expect_knn_exact(map, model, lo, 5, 2.0);
    Cloud out;
    map.knn(centre, 100000, 1e9, out);
    for (const auto& p : out) ASSERT_FALSE(inside(p)) << p.transpose();
  }
  // Interleaved with inserts (new points into emptied regions) and single-point deletes.
  for (int i = 0; i < 20; ++i) {
    const Cloud more = random_cloud(rng, 200, Eigen::Vector3f(-10, -10, -2), Eigen::Vector3f(10, 10, 2));
    map.insert(more);
    model.insert(model.end(), more.begin(), more.end());
    const Eigen::Vector3f victim = model[static_cast<std::size_t>(i * 31) % model.size()];
    EXPECT_EQ(map.remove_box(victim, victim), 1u);
    model.erase(std::find(model.begin(), model.end(), victim));
    for (int j = 0; j < 10; ++j) expect_knn_exact(map, model, Eigen::Vector3f(u(rng), u(rng), 0.2f * u(rng)), 5, 1.5);
  }
  expect_same_points(map, model);
  // Everything: the map is empty and usable again.
  EXPECT_EQ(map.remove_box(Eigen::Vector3f::Constant(-100), Eigen::Vector3f::Constant(100)), model.size());
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.nodes(), 0u);
  Cloud out;
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 5, 1e9, out), 0u);
  EXPECT_EQ(map.insert({Eigen::Vector3f(1, 1, 1)}), 1u);
  EXPECT_EQ(map.knn(Eigen::Vector3f::Zero(), 5, 1e9, out), 1u);
}

TEST(KdTreeMapTest, RemoveOutsideFollowsTheMovingBox) {
  std::mt19937 rng(11);
  const double half = 6.0;
  KdTreeMap map(no_downsampling(half));
  // A corridor 60 m long; the sensor drives along it, adding what it sees ahead and dropping what
  // falls behind the box.
  Cloud model;
  for (int step = 0; step <= 50; ++step) {
    const Eigen::Vector3d center(step, 0.3 * std::sin(0.2 * step), 0.0);
    const Cloud seen = random_cloud(rng, 300, Eigen::Vector3f(static_cast<float>(step), -4, -1), Eigen::Vector3f(static_cast<float>(step + 8), 4, 3));
    map.insert(seen);
    model.insert(model.end(), seen.begin(), seen.end());
    auto outside = [&](const Eigen::Vector3f& p) { return ((p.cast<double>() - center).cwiseAbs().array() > half).any(); };
    const auto expected_removed = static_cast<std::size_t>(std::count_if(model.begin(), model.end(), outside));
    EXPECT_EQ(map.remove_outside(center), expected_removed) << "step " << step;
    model.erase(std::remove_if(model.begin(), model.end(), outside), model.end());
    expect_same_points(map, model);
    EXPECT_EQ(map.remove_outside(center), 0u);  // nothing left outside: the box test at the root
    for (int j = 0; j < 20; ++j) {
      const Eigen::Vector3f q = center.cast<float>() + random_cloud(rng, 1, Eigen::Vector3f::Constant(-8), Eigen::Vector3f::Constant(8))[0];
      expect_knn_exact(map, model, q, 5, 1.5);
    }
  }
  EXPECT_GT(model.size(), 1000u);
  EXPECT_LE(map.nodes(), 2 * map.size());  // deleted nodes were reclaimed, not only flagged
}

// A sensor moving in a line inserts points in sorted order, the worst case for a tree grown at the
// leaves (without re-balancing its depth would grow with the number of scans), and the moving box
// deletes at the other end.
TEST(KdTreeMapTest, StaysBalancedUnderSortedInsertsAndDeletes) {
  KdTreeMapParams params;
  params.downsample_voxel_size = 0.2;
  params.local_map_half_size = 15.0;
  KdTreeMap map(params);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::size_t peak = 0;
  for (int scan = 0; scan < 400; ++scan) {
    const float x0 = 0.1f * static_cast<float>(scan);
    Cloud cloud;
    // Sorted by x within the scan too: a line of points ahead of the sensor, on the ground and walls.
    for (int i = 0; i < 400; ++i) {
      const float x = x0 + 8.0f + 0.01f * static_cast<float>(i) + 0.005f * u(rng);
      switch (i % 3) {
        case 0:
          cloud.emplace_back(x, 10.0f * u(rng) - 5.0f, 0.02f * u(rng));
          break;
        case 1:
          cloud.emplace_back(x, 5.0f, 3.0f * u(rng));
          break;
        default:
          cloud.emplace_back(x, -5.0f, 3.0f * u(rng));
      }
    }
    map.insert(cloud);
    if (scan % 10 == 0) map.remove_outside(Eigen::Vector3d(x0, 0.0, 0.0));
    peak = std::max(peak, map.size());
    ASSERT_EQ(map.check(), "") << "scan " << scan;
    ASSERT_LE(map.depth(), depth_bound(map.nodes(), params.balance_alpha)) << "scan " << scan << ", " << map.nodes() << " nodes";
    ASSERT_LE(static_cast<double>(map.nodes() - map.size()), params.delete_ratio * static_cast<double>(map.nodes())) << "scan " << scan;
  }
  ASSERT_GT(peak, 10000u);
  // The usual statement of the bound, c log2(n), with the constant that alpha = 0.7 and subtrees of
  // 10 implies for maps this size (a tree grown at the leaves in sorted order would be far deeper).
  EXPECT_LE(map.depth(), static_cast<int>(2.5 * std::log2(static_cast<double>(map.nodes()))));

  // Many scattered deletes: lazily deleted nodes are reclaimed and the depth stays bounded.
  const Cloud before = map.points();
  for (int i = 0; i < 300; ++i) {
    const Eigen::Vector3f& p = before[static_cast<std::size_t>(rng() % before.size())];
    map.remove_box(p - Eigen::Vector3f::Constant(0.3f), p + Eigen::Vector3f::Constant(0.3f));
    ASSERT_EQ(map.check(), "");
    ASSERT_LE(map.depth(), depth_bound(map.nodes(), params.balance_alpha));
    ASSERT_LE(static_cast<double>(map.nodes() - map.size()), params.delete_ratio * static_cast<double>(map.nodes()));
  }
  EXPECT_LT(map.size(), before.size());
  EXPECT_LE(map.depth(), static_cast<int>(2.5 * std::log2(static_cast<double>(map.nodes()))));
}

// The two maps are interchangeable behind a template parameter: this compiles only while their
// interfaces match, and both must find a plane on a plane.
template <typename Map>
void fit_ground_plane(Map& map) {
  std::mt19937 rng(9);
  Cloud ground = random_cloud(rng, 4000, Eigen::Vector3f(-5, -5, 1.0f), Eigen::Vector3f(5, 5, 1.0f));
  EXPECT_GT(map.insert(ground), 0u);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d::Zero()), 0u);
  EXPECT_EQ(map.points().size(), map.size());
  Cloud neighbours;
  ASSERT_EQ(map.knn(Eigen::Vector3f(0.3f, -0.2f, 1.05f), 5, 1.5, neighbours), 5u);
  Plane plane;
  ASSERT_EQ(fit_plane(neighbours, 0.1, 0.02, plane), PlaneFit::ok);
  EXPECT_NEAR(std::fabs(plane.normal.z()), 1.0, 1e-4);
  EXPECT_NEAR(std::fabs(plane.d), 1.0, 1e-4);
}

TEST(KdTreeMapTest, InterchangeableWithVoxelMap) {
  VoxelMap voxel_map(VoxelMapParams{0.5, 20, 0.2, 150.0});
  fit_ground_plane(voxel_map);
  KdTreeMap kd_map(KdTreeMapParams{0.2, 150.0, 0.7, 0.5});
  fit_ground_plane(kd_map);
}

}  // namespace
}  // namespace asuka::lio
