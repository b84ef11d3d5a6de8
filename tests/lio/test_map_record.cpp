// #16 map.pcd's record of the run (asuka/lio/map_record.hpp): the kept points with their intensity,
// in the order taken, one per cell (a region taken again is not recorded twice), bounded by
// max_points.

#include <gtest/gtest.h>

#include <asuka/lio/map_record.hpp>

namespace asuka::lio {
namespace {

TEST(MapRecordTest, Issue16_TakesTheKeptPointsWithTheirIntensityOncePerCell) {
  MapRecord record(0.1, 1000000);
  ASSERT_TRUE(record.enabled());
  // 100 000 points 0.15 m apart along a line, so every one has its own 0.1 m cell.
  std::vector<Eigen::Vector3f> points;
  std::vector<float> intensity;
  for (int i = 0; i < 100000; ++i) {
    points.emplace_back(0.15f * static_cast<float>(i) + 0.01f, 1.05f, 2.05f);
    intensity.push_back(static_cast<float>(i % 251));
  }
  std::vector<std::uint32_t> kept;
  for (std::uint32_t i = 0; i < points.size(); i += 2) kept.push_back(i);  // 50 000
  ASSERT_TRUE(record.add(points, intensity, kept));
  EXPECT_EQ(record.size(), 50000u);
  // Taken again (the map dropped the region and took it back), and a point beside one taken: nothing new.
  ASSERT_TRUE(record.add(points, intensity, kept));
  const std::vector<Eigen::Vector3f> beside = {points[2] + Eigen::Vector3f(0.05f, 0.02f, 0.02f)};
  ASSERT_TRUE(record.add(beside, {99.0f}, {0}));
  EXPECT_EQ(record.size(), 50000u);
  ASSERT_TRUE(record.add(points, {}, {3, 5}));  // new cells without intensities: 0
  EXPECT_EQ(record.size(), 50002u);
  std::vector<Eigen::Vector3f> out;
  std::vector<float> out_intensity;
  record.copy_to(out, out_intensity);
  ASSERT_EQ(out.size(), 50002u);
  ASSERT_EQ(out_intensity.size(), 50002u);
  for (std::size_t i = 0; i < 50000; ++i) {
    ASSERT_EQ(out[i], points[2 * i]) << i;
    ASSERT_EQ(out_intensity[i], intensity[2 * i]) << i;
  }
  EXPECT_EQ(out[50000], points[3]);
  EXPECT_EQ(out_intensity[50000], 0.0f);
  EXPECT_EQ(out[50001], points[5]);
  EXPECT_GE(record.memory_bytes(), 50002u * 16u);
  record.clear();
  EXPECT_EQ(record.size(), 0u);
  record.copy_to(out, out_intensity);
  EXPECT_TRUE(out.empty());
}

// Cells are floor(p / cell) on both sides of zero, whatever block of 4 x 4 x 4 cells holds them.
TEST(MapRecordTest, Issue16_CellsAcrossZeroAndBlockBorders) {
  MapRecord record(0.1, 100);
  const std::vector<Eigen::Vector3f> points = {
      {-0.05f, 0.0f, 0.0f}, {0.05f, 0.0f, 0.0f},   // cells -1 and 0: two points
      {-0.08f, 0.01f, 0.01f},                      // cell -1 again: not taken
      {-0.35f, 0.0f, 0.0f}, {-0.45f, 0.0f, 0.0f},  // cells -4 and -5: blocks -1 and -2
      {0.35f, 0.0f, 0.0f}, {0.45f, 0.0f, 0.0f},    // cells 3 and 4: blocks 0 and 1
      {0.05f, -0.05f, -0.05f}, {0.05f, -0.05f, 0.05f}, {0.05f, 0.05f, -0.05f},  // the other cells around zero
      {0.05f, -0.02f, 0.02f}};                     // the second of these again
  std::vector<std::uint32_t> all(points.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  ASSERT_TRUE(record.add(points, {}, all));
  std::vector<Eigen::Vector3f> out;
  std::vector<float> intensity;
  record.copy_to(out, intensity);
  const std::vector<Eigen::Vector3f> expected = {points[0], points[1], points[3], points[4], points[5], points[6], points[7], points[8], points[9]};
  EXPECT_EQ(out, expected);
}

TEST(MapRecordTest, Issue16_StopsAtMaxPointsAndZeroTurnsItOff) {
  MapRecord record(0.1, 3);
  const std::vector<Eigen::Vector3f> points = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
  EXPECT_TRUE(record.add(points, {}, {0, 1}));
  EXPECT_FALSE(record.add(points, {}, {2, 3}));  // 3 did not fit
  EXPECT_EQ(record.size(), 3u);
  EXPECT_TRUE(record.add(points, {}, {1, 2}));   // full, but these have their cells: nothing is lost
  std::vector<Eigen::Vector3f> out;
  std::vector<float> intensity;
  record.copy_to(out, intensity);
  EXPECT_EQ(out.back(), points[2]);
  EXPECT_FALSE(MapRecord(0.1, 0).enabled());
}

}  // namespace
}  // namespace asuka::lio
