// Livox CustomMsg types: the MD5, datatype and definition that bags and drivers use.


#include <gtest/gtest.h>
#include <ros/serialization.h>

#include <asuka_ros/livox_msgs.hpp>

#include "ros_test_support.hpp"

namespace asuka_ros {
namespace {

TEST(LivoxMsgsTest, Md5AndDatatypesMatchTheDrivers) {
  EXPECT_STREQ(ros::message_traits::MD5Sum<LivoxCustomMsg>::value(), "e4d6829bdfe657cb6c21a746c86b21a6");
  EXPECT_STREQ(ros::message_traits::MD5Sum<Livox2CustomMsg>::value(), "e4d6829bdfe657cb6c21a746c86b21a6");
  EXPECT_STREQ(ros::message_traits::DataType<LivoxCustomMsg>::value(), "livox_ros_driver/CustomMsg");
  EXPECT_STREQ(ros::message_traits::DataType<Livox2CustomMsg>::value(), "livox_ros_driver2/CustomMsg");
  const std::string definition = ros::message_traits::Definition<LivoxCustomMsg>::value();
  EXPECT_EQ(definition.rfind(livox::custom_msg_text(), 0), 0u);
  EXPECT_NE(definition.find("\nMSG: std_msgs/Header\n"), std::string::npos);
  EXPECT_NE(definition.find("\nMSG: livox_ros_driver/CustomPoint\n"), std::string::npos);
  EXPECT_NE(std::string(ros::message_traits::Definition<Livox2CustomMsg>::value()).find("\nMSG: livox_ros_driver2/CustomPoint\n"), std::string::npos);
}

TEST(LivoxMsgsTest, SerializationRoundTripsWithTheWireSize) {
  const auto msg = test::make_livox(1700000000123456789ULL, {0, 1000, 2000});
  const std::uint32_t size = ros::serialization::serializationLength(msg);
  // After the header: timebase 8, point_num 4, lidar_id 1, rsvd 3, then a length and 19 bytes a point.
  std::vector<std::uint8_t> buffer(size);
  ros::serialization::OStream out(buffer.data(), size);
  ros::serialization::serialize(out, msg);
  LivoxCustomMsg back;
  ros::serialization::IStream in(buffer.data(), size);
  ros::serialization::deserialize(in, back);
  EXPECT_EQ(back.timebase, msg.timebase);
  ASSERT_EQ(back.points.size(), 3u);
  EXPECT_EQ(back.points[2].offset_time, 2000u);
  EXPECT_FLOAT_EQ(back.points[1].x, 6.0f);
  EXPECT_EQ(back.points[1].line, 1);
  EXPECT_EQ(back.points[1].tag, 0x10);
  EXPECT_EQ(back.points[1].reflectivity, 42);
  const std::uint32_t header_size = ros::serialization::serializationLength(msg.header);
  EXPECT_EQ(size, header_size + 8 + 4 + 1 + 3 + 4 + 3 * 19);
}

}  // namespace
}  // namespace asuka_ros
