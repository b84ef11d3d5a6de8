// VoxelTable (#18): the chunked voxel storage and the table that grows by draining the old one a few
// slots per insert. Against std::unordered_map over inserts, lookups and box removals that cross many
// growths: every key is found at every moment (also while a grown table is being drained), indices
// stay put, and removal keeps exactly the voxels inside the box.

#include <random>
#include <unordered_map>

#include <gtest/gtest.h>

#include <asuka/lio/voxel_table.hpp>

namespace asuka::lio {
namespace {

struct TestVoxel {
  VoxelKey key{0, 0, 0};
  int value = -1;  // default-constructed voxels read -1
};

std::uint64_t pack(const VoxelKey& k) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.x)) << 42) ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.y)) << 21) ^
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.z));
}

TEST(VoxelTableTest, EveryKeyIsFoundThroughGrowthAndDraining) {
  VoxelTable<TestVoxel> table;
  std::unordered_map<std::uint64_t, std::pair<VoxelKey, int>> truth;  // key -> (key, value)
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> coord(-60, 60);
  bool saw_migration = false;
  for (int i = 0; i < 200000; ++i) {
    const VoxelKey key{coord(rng), coord(rng), coord(rng) / 4};
    std::size_t index = 0;
    TestVoxel& v = table.find_or_add(key, &index);
    auto it = truth.find(pack(key));
    if (it == truth.end()) {
      ASSERT_EQ(v.value, -1) << i;  // new: default-constructed
      v.value = i;
      truth.emplace(pack(key), std::make_pair(key, i));
    } else {
      ASSERT_EQ(v.value, it->second.second) << i;  // existing: the same voxel
    }
    ASSERT_EQ(&table.at(index), &v);
    saw_migration = saw_migration || table.migrating();
    // While draining, keys that are still only in the old table must be found too.
    if (i % 997 == 0) {
      for (const auto& [packed, entry] : truth) {
        const TestVoxel* found = table.find(entry.first);
        ASSERT_NE(found, nullptr) << i;
        ASSERT_EQ(found->value, entry.second) << i;
      }
      ASSERT_EQ(table.find(VoxelKey{1000, 1000, 1000}), nullptr);
    }
  }
  EXPECT_TRUE(saw_migration);
  EXPECT_EQ(table.size(), truth.size());
  EXPECT_GT(table.size(), 10 * VoxelTable<TestVoxel>::kChunk);  // many chunks, many growths
  std::size_t visited = 0;
  for (const auto& v : table.voxels()) {
    ASSERT_EQ(truth.at(pack(v.key)).second, v.value);
    ++visited;
  }
  EXPECT_EQ(visited, truth.size());
}

TEST(VoxelTableTest, RemovalKeepsTheBoxAndLaterInsertsStartFresh) {
  VoxelTable<TestVoxel> table;
  std::unordered_map<std::uint64_t, std::pair<VoxelKey, int>> truth;
  int next = 0;
  const auto fill = [&](int x0, int x1) {
    for (int x = x0; x < x1; ++x) {
      for (int y = -20; y < 20; ++y) {
        for (int z = 0; z < 4; ++z) {
          const VoxelKey key{x, y, z};
          TestVoxel& v = table.find_or_add(key);
          if (v.value < 0) {
            v.value = next++;
            truth[pack(key)] = {key, v.value};
          }
        }
      }
    }
  };
  fill(-100, 100);  // 32 000 voxels
  // Keep |centre| <= 30.5 on every axis (voxel size 1: centres at k + 0.5).
  std::size_t expected_removed = 0;
  for (auto it = truth.begin(); it != truth.end();) {
    const auto& k = it->second.first;
    if (std::abs(k.x + 0.5) > 30.5 || std::abs(k.y + 0.5) > 30.5 || std::abs(k.z + 0.5) > 30.5) {
      it = truth.erase(it);
      ++expected_removed;
    } else {
      ++it;
    }
  }
  // A box that holds every voxel removes nothing (decided from the keys' bounds), nor does one whose
  // faces touch the outermost centres.
  std::size_t seen = 0;
  EXPECT_EQ(table.remove_outside(Eigen::Vector3d::Zero(), 500.0, 1.0, [&](const TestVoxel&) { ++seen; }), 0u);
  EXPECT_EQ(table.remove_outside(Eigen::Vector3d(0.0, 0.0, 2.0), 99.5, 1.0, [&](const TestVoxel&) { ++seen; }), 0u);
  EXPECT_EQ(seen, 0u);
  // Just outside by one voxel on +x: exactly the x = 99 slab goes (then it is put back).
  EXPECT_EQ(table.remove_outside(Eigen::Vector3d(-0.5, 0.0, 2.0), 99.0, 1.0, [&](const TestVoxel&) { ++seen; }), 160u);
  for (int y = -20; y < 20; ++y) {
    for (int z = 0; z < 4; ++z) {
      EXPECT_EQ(table.find(VoxelKey{99, y, z}), nullptr);
      table.find_or_add(VoxelKey{99, y, z}).value = truth.count(pack(VoxelKey{99, y, z})) ? truth[pack(VoxelKey{99, y, z})].second : -2;
    }
  }
  seen = 0;
  EXPECT_EQ(table.remove_outside(Eigen::Vector3d::Zero(), 30.5, 1.0, [&](const TestVoxel&) { ++seen; }), expected_removed);
  EXPECT_EQ(seen, expected_removed);
  ASSERT_EQ(table.size(), truth.size());
  for (const auto& [packed, entry] : truth) {
    const TestVoxel* v = table.find(entry.first);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->value, entry.second);
  }
  EXPECT_EQ(table.find(VoxelKey{90, 0, 0}), nullptr);
  // Positions freed by the removal are handed out again as fresh voxels.
  fill(200, 300);
  for (const auto& [packed, entry] : truth) ASSERT_EQ(table.find(entry.first)->value, entry.second);
  EXPECT_EQ(table.size(), truth.size());
}

/// A few voxels at a time go (erased in place: backward shift in the table, the last voxels moved
/// into the holes) between inserts, while tables grow and drain: every remaining key is still found
/// with its own voxel, and no removed key is.
TEST(VoxelTableTest, SmallRemovalsInterleavedWithInsertsKeepEveryKeyReachable) {
  VoxelTable<TestVoxel> table;
  std::unordered_map<std::uint64_t, std::pair<VoxelKey, int>> truth;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> coord(-80, 80);
  int next = 0;
  for (int round = 0; round < 300; ++round) {
    for (int i = 0; i < 400; ++i) {
      const VoxelKey key{coord(rng), coord(rng), coord(rng) / 8};
      TestVoxel& v = table.find_or_add(key);
      if (v.value < 0) {
        v.value = next++;
        truth[pack(key)] = {key, v.value};
      }
    }
    // Remove the voxels of one random x column (a few dozen of many thousands).
    const int x = coord(rng);
    std::size_t expected = 0;
    for (auto it = truth.begin(); it != truth.end();) {
      if (it->second.first.x == x) {
        it = truth.erase(it);
        ++expected;
      } else {
        ++it;
      }
    }
    ASSERT_EQ(table.remove_if([x](const TestVoxel& v) { return v.key.x == x; }), expected) << round;
    ASSERT_EQ(table.size(), truth.size()) << round;
    if (round % 10 == 0 || round == 299) {
      for (const auto& [packed, entry] : truth) {
        const TestVoxel* v = table.find(entry.first);
        ASSERT_NE(v, nullptr) << round;
        ASSERT_EQ(v->value, entry.second) << round;
      }
      for (int y = -80; y <= 80; y += 7) ASSERT_EQ(table.find(VoxelKey{x, y, 0}), nullptr) << round;
    }
  }
  std::size_t visited = 0;
  for (const auto& v : table.voxels()) {
    ASSERT_EQ(truth.at(pack(v.key)).second, v.value);
    ++visited;
  }
  EXPECT_EQ(visited, truth.size());
}

}  // namespace
}  // namespace asuka::lio
