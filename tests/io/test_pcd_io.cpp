// PCD I/O (asuka/io/pcd_io.hpp): the binary map files PCL and CloudCompare read.

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <asuka/io/pcd_io.hpp>

namespace asuka {
namespace {

TEST(PcdTest, BinaryRoundTrip) {
  const auto path = (std::filesystem::temp_directory_path() / ("asuka_pcd_" + std::to_string(::getpid()) + ".pcd")).string();
  const std::vector<Eigen::Vector3f> points = {{1, 2, 3}, {-4.5f, 0.25f, 1e3f}};
  ASSERT_TRUE(write_pcd(path, points));
  std::vector<Eigen::Vector3f> back;
  std::string error;
  ASSERT_TRUE(read_pcd(path, back, &error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1], points[1]);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace asuka
