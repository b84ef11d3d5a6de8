// PCD I/O (asuka/io/pcd_io.hpp): the binary map files PCL and CloudCompare read.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include <gtest/gtest.h>

#include <asuka/io/pcd_io.hpp>

namespace asuka {
namespace {

std::string temp_pcd(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("asuka_pcd_" + name + "_" + std::to_string(::getpid()) + ".pcd")).string();
}

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

// #16: map.pcd's intensity reads back bit-exactly, binary and ASCII; a file without one is an error
// naming it.
TEST(PcdTest, Issue16_IntensityRoundTrip) {
  const auto path = temp_pcd("intensity");
  const std::vector<Eigen::Vector3f> points = {{1, 2, 3}, {-4.5f, 0.25f, 1e3f}};
  ASSERT_TRUE(write_pcd(path, points, {17.5f, 4095.0f}));
  std::vector<Eigen::Vector3f> back;
  std::vector<float> intensity;
  std::string error;
  ASSERT_TRUE(read_pcd_intensity(path, back, intensity, &error)) << error;
  ASSERT_EQ(intensity.size(), 2u);
  EXPECT_EQ(back[1], points[1]);
  EXPECT_EQ(intensity[0], 17.5f);
  EXPECT_EQ(intensity[1], 4095.0f);
  {
    std::ofstream ascii(path);
    ascii << "VERSION 0.7\nFIELDS x y z intensity ring\nSIZE 4 4 4 4 2\nTYPE F F F F U\nCOUNT 1 1 1 1 1\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n"
          << "1 2 3 42.25 7\n";
  }
  ASSERT_TRUE(read_pcd_intensity(path, back, intensity, &error)) << error;
  ASSERT_EQ(intensity.size(), 1u);
  EXPECT_EQ(intensity[0], 42.25f);
  ASSERT_TRUE(write_pcd_rgb(path, points, {{1, 2, 3}, {4, 5, 6}}));
  EXPECT_FALSE(read_pcd_intensity(path, back, intensity, &error));
  EXPECT_NE(error.find("no intensity field"), std::string::npos) << error;
  std::filesystem::remove(path);
}

// A coloured map as write_pcd_rgb writes it reads back bit-exactly, colours included (the colour check
// of simulated maps reads them so); the plain reader takes its x y z; a map without colours is an error.
TEST(PcdTest, RgbBinaryRoundTrip) {
  const auto path = temp_pcd("rgb");
  const std::vector<Eigen::Vector3f> points = {{1, 2, 3}, {-4.5f, 0.25f, 1e3f}, {0, 0, -7}};
  const std::vector<std::array<std::uint8_t, 3>> rgb = {{255, 0, 17}, {0, 0, 0}, {12, 200, 255}};
  ASSERT_TRUE(write_pcd_rgb(path, points, rgb));
  std::vector<Eigen::Vector3f> back;
  std::vector<std::array<std::uint8_t, 3>> rgb_back;
  std::string error;
  ASSERT_TRUE(read_pcd_rgb(path, back, rgb_back, &error)) << error;
  ASSERT_EQ(back.size(), points.size());
  ASSERT_EQ(rgb_back.size(), rgb.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(back[i], points[i]) << i;
    EXPECT_EQ(rgb_back[i], rgb[i]) << i;
  }
  std::vector<Eigen::Vector3f> xyz;
  ASSERT_TRUE(read_pcd(path, xyz, &error)) << error;
  ASSERT_EQ(xyz.size(), points.size());
  EXPECT_EQ(xyz[2], points[2]);

  const auto plain = temp_pcd("plain");
  ASSERT_TRUE(write_pcd(plain, points));
  error.clear();
  EXPECT_FALSE(read_pcd_rgb(plain, back, rgb_back, &error));
  EXPECT_NE(error.find("rgb"), std::string::npos) << error;
  std::filesystem::remove(path);
  std::filesystem::remove(plain);
}

// ASCII files as PCL writes them: a float rgb printed as its (denormal) value, or an integer rgba, after
// a field with COUNT 3 that shifts the columns.
TEST(PcdTest, RgbAscii) {
  const std::uint32_t packed = 0x00C86432;  // (200, 100, 50)
  float as_float = 0.0f;
  std::memcpy(&as_float, &packed, sizeof(packed));
  const auto path_f = temp_pcd("ascii_f");
  {
    std::ofstream out(path_f);
    out << "VERSION 0.7\nFIELDS normal x y z rgb\nSIZE 4 4 4 4 4\nTYPE F F F F F\nCOUNT 3 1 1 1 1\nWIDTH 2\nHEIGHT 1\nPOINTS 2\nDATA ascii\n"
        << std::setprecision(9) << "0 0 1 1.5 -2 3 " << as_float << "\n0 1 0 4 5 6 0\n";
  }
  const auto path_u = temp_pcd("ascii_u");
  {
    std::ofstream out(path_u);
    out << "VERSION 0.7\nFIELDS x y z rgba\nSIZE 4 4 4 4\nTYPE F F F U\nCOUNT 1 1 1 1\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n"
        << "1.5 -2 3 " << (0xFF000000u | packed) << "\n";
  }
  for (const auto& path : {path_f, path_u}) {
    std::vector<Eigen::Vector3f> points;
    std::vector<std::array<std::uint8_t, 3>> rgb;
    std::string error;
    ASSERT_TRUE(read_pcd_rgb(path, points, rgb, &error)) << error;
    ASSERT_GE(points.size(), 1u);
    EXPECT_EQ(points[0], Eigen::Vector3f(1.5f, -2.0f, 3.0f)) << path;
    EXPECT_EQ(rgb[0], (std::array<std::uint8_t, 3>{200, 100, 50})) << path;
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace asuka
