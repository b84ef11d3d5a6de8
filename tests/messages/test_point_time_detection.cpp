// #12 item 8: the per-point time convention of a topic is decided on robust statistics of the first
// cloud (one wild point must not switch the unit) and re-checked on later clouds.

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/messages/cloud_decoder.hpp>

namespace asuka::msg {
namespace {

/// A Velodyne-style cloud: x y z float32, time float32 seconds relative to the header, `n` points
/// over one 0.1 s sweep; `outlier` (if not 0) replaces one point's time.
struct OwnedCloud {
  PointCloud2 msg;
  std::vector<std::uint8_t> data;
};

OwnedCloud velodyne(int k, int n, float outlier = 0.0f, float unit = 1.0f) {
  OwnedCloud c;
  c.msg.header.stamp = {1700000000 + k / 10, static_cast<std::uint32_t>((k % 10) * 100000000)};
  c.msg.height = 1;
  c.msg.width = static_cast<std::uint32_t>(n);
  c.msg.fields = {{"x", 0, PointField::FLOAT32, 1}, {"y", 4, PointField::FLOAT32, 1}, {"z", 8, PointField::FLOAT32, 1}, {"time", 12, PointField::FLOAT32, 1}};
  c.msg.point_step = 16;
  c.msg.row_step = 16 * static_cast<std::uint32_t>(n);
  c.data.resize(static_cast<std::size_t>(16 * n));
  for (int j = 0; j < n; ++j) {
    float p[4] = {5.0f, 0.01f * static_cast<float>(j), 0.0f, unit * 0.1f * static_cast<float>(j) / static_cast<float>(n)};
    if (outlier != 0.0f && j == n / 2) p[3] = outlier;
    std::memcpy(c.data.data() + 16 * j, p, 16);
  }
  c.msg.data = Span<std::uint8_t>(c.data);
  return c;
}

TEST(PointTimeDetectionTest, OneWildPointInTheFirstCloudDoesNotChangeTheUnit) {
  CloudDecoder decoder(LidarType::VELODYNE, {});
  const auto first = velodyne(0, 2000, 100.0f);  // one point claims 100 s: with min/max that read as ms
  const auto decoded = decoder.decode(first.msg);
  ASSERT_TRUE(decoded.frame);
  ASSERT_TRUE(decoder.convention());
  EXPECT_EQ(decoder.convention()->unit, TimeUnit::SECONDS) << decoder.convention()->reason;
  EXPECT_EQ(decoder.convention()->reference, TimeReference::RELATIVE);
  // The other points keep their times in ms from the frame start (the wild one is the preprocessor's to drop).
  EXPECT_NEAR(decoded.frame->points[1000 - 1].offset_ms, 0.1f * 999.0f / 2000.0f * 1e3f, 1e-3);
}

TEST(PointTimeDetectionTest, ALaterDisagreementIsWarnedAndTheDecisionStays) {
  CloudDecoder decoder(LidarType::VELODYNE, {});
  std::size_t changed = 0;
  for (int k = 0; k < 120; ++k) {
    // From cloud 60 on the driver writes milliseconds (restarted in another mode).
    const auto cloud = velodyne(k, 500, 0.0f, k < 60 ? 1.0f : 1000.0f);
    const auto decoded = decoder.decode(cloud.msg);
    for (const auto& w : decoded.warnings) {
      if (w.kind == "point_time_changed") {
        ++changed;
        EXPECT_NE(w.message.find("relative ms"), std::string::npos) << w.message;
        EXPECT_NE(w.message.find("kept relative s"), std::string::npos) << w.message;
      }
    }
  }
  EXPECT_EQ(changed, 1u);  // checked at clouds 51 and 101: only the second disagrees
  EXPECT_EQ(decoder.convention()->unit, TimeUnit::SECONDS);
}

TEST(PointTimeDetectionTest, CleanCloudsAreNeverWarned) {
  CloudDecoder decoder(LidarType::VELODYNE, {});
  for (int k = 0; k < 200; ++k) {
    const auto cloud = velodyne(k, 300);
    for (const auto& w : decoder.decode(cloud.msg).warnings) EXPECT_NE(w.kind, "point_time_changed") << w.message;
  }
}

}  // namespace
}  // namespace asuka::msg
