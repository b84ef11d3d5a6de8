// Core types: conventions of types.hpp (R-PRE-2 offsets in ms, frame stamp = start).

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <asuka/core/types.hpp>

namespace asuka {
namespace {

TEST(TypesTest, R_PRE_2_FrameEndUsesMaximumOffsetInMilliseconds) {
  LidarFrame frame;
  frame.stamp = 100.0;
  EXPECT_FLOAT_EQ(frame.max_offset_ms(), 0.0f);
  EXPECT_DOUBLE_EQ(frame.end_stamp(), 100.0);  // an empty frame ends where it starts

  frame.points.resize(3);
  frame.points[0].offset_ms = 10.0f;
  frame.points[1].offset_ms = 99.5f;  // not in time order: the maximum counts, not the last point
  frame.points[2].offset_ms = 50.0f;
  EXPECT_FLOAT_EQ(frame.max_offset_ms(), 99.5f);
  EXPECT_NEAR(frame.end_stamp(), 100.0995, 1e-9);
}

TEST(TypesTest, PointIsSmallPlainDataWithRangeAndFiniteCheck) {
  static_assert(sizeof(Point) == 24, "Point layout is part of the plugin ABI");
  Point p;
  p.x = 3.0f;
  p.y = 4.0f;
  EXPECT_DOUBLE_EQ(p.range(), 5.0);
  EXPECT_TRUE(p.is_finite());
  p.z = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(p.is_finite());
  p.z = 0.0f;
  p.offset_ms = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(p.is_finite());
}

TEST(TypesTest, LidarTypeNamesRoundTrip) {
  for (const auto& name : lidar_type_names()) {
    LidarType type = LidarType::LIVOX;
    ASSERT_TRUE(lidar_type_from_string(name, type)) << name;
    EXPECT_EQ(name, to_string(type));
  }
  LidarType type = LidarType::OUSTER;
  EXPECT_FALSE(lidar_type_from_string("Velodyne", type));  // names are exact and lower-case
  EXPECT_EQ(type, LidarType::OUSTER);
}

TEST(TypesTest, StreamIdValuesAreFixed) {
  // R-ROS-2 relies on these three ids; their numeric values appear in logs and reports.
  EXPECT_EQ(static_cast<int>(StreamId::NONE), 0);
  EXPECT_EQ(static_cast<int>(StreamId::LIDAR), 1);
  EXPECT_EQ(static_cast<int>(StreamId::IMU), 2);
  EXPECT_STREQ(to_string(StreamId::LIDAR), "lidar");
  EXPECT_STREQ(to_string(StreamId::IMU), "imu");
  EXPECT_STREQ(to_string(StreamId::NONE), "none");
}

TEST(TypesTest, KeyFrameCarriesScanStartAndPoseTime) {
  KeyFrame kf;
  kf.stamp = 1.0;       // scan start
  kf.pose_stamp = 1.1;  // the pose holds at the scan end
  EXPECT_LT(kf.stamp, kf.pose_stamp);
  EXPECT_TRUE(kf.T_world_imu.matrix().isIdentity());
}

}  // namespace
}  // namespace asuka
