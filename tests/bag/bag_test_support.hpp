#pragma once
// Small messages with known contents for the bag tests, and a scratch directory per test.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <asuka/bag/cdr.hpp>
#include <asuka/messages/messages.hpp>

namespace asuka::bag::test {

inline std::string scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("asuka_bag_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline msg::Imu imu(int i) {
  msg::Imu m;
  m.header.stamp = {1700000000 + i / 200, static_cast<std::uint32_t>((i % 200) * 5000000)};
  m.header.frame_id = "imu_link";
  m.orientation = {0.1, -0.2, 0.3, 0.9 + 1e-3 * i};
  for (int k = 0; k < 9; ++k) m.orientation_covariance[k] = k + i;
  m.angular_velocity = {0.01 * i, -0.02 * i, 0.5};
  m.linear_acceleration = {0.1, 0.2 + 1e-3 * i, 9.81};
  m.linear_acceleration_covariance[4] = 0.01;
  return m;
}

/// A PointCloud2 with x y z intensity (float32), ring (uint16), time (float32 s): `n` points.
struct OwnedCloud {
  msg::PointCloud2 msg;
  std::vector<std::uint8_t> data;
};

inline OwnedCloud cloud(int k, std::uint32_t n) {
  OwnedCloud c;
  auto& m = c.msg;
  m.header.stamp = {1700000000, static_cast<std::uint32_t>(k * 100000000)};
  m.header.frame_id = "lidar";
  m.height = 1;
  m.width = n;
  m.fields = {{"x", 0, msg::PointField::FLOAT32, 1},         {"y", 4, msg::PointField::FLOAT32, 1},
              {"z", 8, msg::PointField::FLOAT32, 1},         {"intensity", 12, msg::PointField::FLOAT32, 1},
              {"ring", 16, msg::PointField::UINT16, 1},      {"time", 20, msg::PointField::FLOAT32, 1}};
  m.point_step = 24;
  m.row_step = 24 * n;
  m.is_dense = true;
  c.data.assign(m.row_step, 0);
  for (std::uint32_t j = 0; j < n; ++j) {
    const float v[4] = {static_cast<float>(k) + 0.01f * static_cast<float>(j), -0.5f * static_cast<float>(j), 0.25f, static_cast<float>(j % 17)};
    std::memcpy(c.data.data() + j * 24, v, 16);
    const std::uint16_t ring = static_cast<std::uint16_t>(j % 16);
    std::memcpy(c.data.data() + j * 24 + 16, &ring, 2);
    const float t = 1e-4f * static_cast<float>(j);
    std::memcpy(c.data.data() + j * 24 + 20, &t, 4);
  }
  m.data = msg::Span<std::uint8_t>(c.data);
  return c;
}

struct OwnedLivox {
  msg::LivoxCustomMsg msg;
  std::vector<msg::LivoxPoint> points;
};

inline OwnedLivox livox(int k, std::uint32_t n) {
  OwnedLivox l;
  l.msg.header.stamp = {1700000000, static_cast<std::uint32_t>(k * 100000000)};
  l.msg.header.frame_id = "livox_frame";
  l.msg.timebase = 1700000000ULL * 1000000000ULL + static_cast<std::uint64_t>(k) * 100000000ULL;
  l.msg.point_num = n;
  l.msg.lidar_id = 3;
  l.msg.rsvd = {1, 2, 3};
  for (std::uint32_t j = 0; j < n; ++j) {
    l.points.push_back(msg::LivoxPoint{1000 * j, 1.0f + static_cast<float>(j), 2.0f - 0.5f * static_cast<float>(j), 0.125f * static_cast<float>(j),
                                       static_cast<std::uint8_t>(10 + j), 0x10, static_cast<std::uint8_t>(j % 6)});
  }
  l.msg.points = msg::Span<msg::LivoxPoint>(l.points);
  return l;
}

}  // namespace asuka::bag::test
