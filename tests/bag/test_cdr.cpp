// CDR (XCDR1) of the ROS 2 messages asuka reads (#15): round trips, big-endian input, alignment,
// and clear errors for truncated or lying messages.

#include <gtest/gtest.h>

#include <asuka/bag/cdr.hpp>

#include "bag/bag_test_support.hpp"

namespace asuka::bag {
namespace {

using msg::Span;

TEST(CdrTest, ImuRoundTripKeepsEveryField) {
  const auto in = test::imu(7);
  const auto bytes = write_imu(in);
  ASSERT_EQ(bytes[0], 0x00);
  ASSERT_EQ(bytes[1], 0x01);  // little endian
  const auto out = read_imu(Span<std::uint8_t>(bytes));
  EXPECT_EQ(out.header.stamp.sec, in.header.stamp.sec);
  EXPECT_EQ(out.header.stamp.nanosec, in.header.stamp.nanosec);
  EXPECT_EQ(out.header.frame_id, "imu_link");
  EXPECT_EQ(out.orientation, in.orientation);
  EXPECT_EQ(out.orientation_covariance, in.orientation_covariance);
  EXPECT_EQ(out.angular_velocity, in.angular_velocity);
  EXPECT_EQ(out.linear_acceleration, in.linear_acceleration);
  EXPECT_EQ(out.linear_acceleration_covariance, in.linear_acceleration_covariance);
}

TEST(CdrTest, ImuLayoutIsAlignedFromTheEndOfTheEncapsulationHeader) {
  // header: sec (4) nanosec (4) frame_id "imu_link" (4 + 9) = 21 bytes, padded to 24 for the first
  // float64; then 4 + 9 + 3 + 9 + 3 + 9 doubles.
  const auto bytes = write_imu(test::imu(0));
  EXPECT_EQ(bytes.size(), 4u + 24u + 37u * 8u);
}

TEST(CdrTest, PointCloud2RoundTripViewsTheData) {
  const auto in = test::cloud(2, 11);
  const auto bytes = write_point_cloud2(in.msg);
  const auto out = read_point_cloud2(Span<std::uint8_t>(bytes));
  EXPECT_EQ(out.width, 11u);
  EXPECT_EQ(out.height, 1u);
  ASSERT_EQ(out.fields.size(), 6u);
  EXPECT_EQ(out.fields[4].name, "ring");
  EXPECT_EQ(out.fields[4].offset, 16u);
  EXPECT_EQ(out.fields[4].datatype, msg::PointField::UINT16);
  EXPECT_EQ(out.point_step, 24u);
  EXPECT_EQ(out.row_step, 24u * 11u);
  EXPECT_TRUE(out.is_dense);
  ASSERT_EQ(out.data.size(), in.data.size());
  EXPECT_TRUE(std::equal(out.data.begin(), out.data.end(), in.data.begin()));
  // A view into the serialized bytes, not a copy.
  EXPECT_GE(out.data.data(), bytes.data());
  EXPECT_LT(out.data.data(), bytes.data() + bytes.size());
}

TEST(CdrTest, LivoxCustomMsgRoundTripKeepsEveryPoint) {
  const auto in = test::livox(1, 9);
  const auto bytes = write_livox_custom_msg(in.msg);
  std::vector<msg::LivoxPoint> points;
  const auto out = read_livox_custom_msg(Span<std::uint8_t>(bytes), points);
  EXPECT_EQ(out.timebase, in.msg.timebase);
  EXPECT_EQ(out.point_num, 9u);
  EXPECT_EQ(out.lidar_id, 3);
  EXPECT_EQ(out.rsvd, in.msg.rsvd);
  ASSERT_EQ(out.points.size(), 9u);
  for (std::size_t j = 0; j < 9; ++j) {
    EXPECT_EQ(out.points[j].offset_time, in.points[j].offset_time);
    EXPECT_EQ(out.points[j].x, in.points[j].x);
    EXPECT_EQ(out.points[j].y, in.points[j].y);
    EXPECT_EQ(out.points[j].z, in.points[j].z);
    EXPECT_EQ(out.points[j].reflectivity, in.points[j].reflectivity);
    EXPECT_EQ(out.points[j].tag, in.points[j].tag);
    EXPECT_EQ(out.points[j].line, in.points[j].line);
  }
}

TEST(CdrTest, ImageAndCompressedImageRoundTrip) {
  std::vector<std::uint8_t> pixels(4 * 5);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 3);
  msg::Image image;
  image.header.frame_id = "cam";
  image.height = 4;
  image.width = 5;
  image.encoding = "mono8";
  image.step = 5;
  image.data = Span<std::uint8_t>(pixels);
  const auto ib = write_image(image);
  const auto io = read_image(Span<std::uint8_t>(ib));
  EXPECT_EQ(io.encoding, "mono8");
  EXPECT_EQ(io.step, 5u);
  EXPECT_TRUE(std::equal(io.data.begin(), io.data.end(), pixels.begin(), pixels.end()));

  msg::CompressedImage jpeg;
  jpeg.format = "jpeg";
  jpeg.data = Span<std::uint8_t>(pixels);
  const auto cb = write_compressed_image(jpeg);
  const auto co = read_compressed_image(Span<std::uint8_t>(cb));
  EXPECT_EQ(co.format, "jpeg");
  EXPECT_EQ(co.data.size(), pixels.size());
}

/// A big-endian Imu written by hand: the same values must come out.
TEST(CdrTest, BigEndianMessagesAreByteSwapped) {
  std::vector<std::uint8_t> b = {0x00, 0x00, 0x00, 0x00};  // CDR_BE
  auto put_be = [&](const void* p, std::size_t n) {
    while ((b.size() - 4) % n != 0) b.push_back(0);
    const auto* bytes = static_cast<const std::uint8_t*>(p);
    for (std::size_t i = 0; i < n; ++i) b.push_back(bytes[n - 1 - i]);
  };
  const std::int32_t sec = 1700000000;
  const std::uint32_t nsec = 5;
  put_be(&sec, 4);
  put_be(&nsec, 4);
  const std::uint32_t len = 2;
  put_be(&len, 4);
  b.push_back('x');
  b.push_back(0);
  for (int i = 0; i < 37; ++i) {
    const double v = 0.5 * i;
    put_be(&v, 8);
  }
  const auto m = read_imu(Span<std::uint8_t>(b));
  EXPECT_EQ(m.header.stamp.sec, sec);
  EXPECT_EQ(m.header.stamp.nanosec, nsec);
  EXPECT_EQ(m.header.frame_id, "x");
  EXPECT_EQ(m.orientation[1], 0.5);
  EXPECT_EQ(m.angular_velocity[0], 0.5 * 13);
  EXPECT_EQ(m.linear_acceleration_covariance[8], 0.5 * 36);
}

TEST(CdrTest, TruncatedMessageNamesTheField) {
  auto bytes = write_imu(test::imu(1));
  bytes.resize(bytes.size() - 3);
  try {
    read_imu(Span<std::uint8_t>(bytes));
    FAIL() << "no error";
  } catch (const CdrError& e) {
    EXPECT_NE(std::string(e.what()).find("linear_acceleration_covariance"), std::string::npos) << e.what();
  }
}

TEST(CdrTest, ASequenceLongerThanTheMessageIsAnErrorNotAnAllocation) {
  auto in = test::livox(0, 2);
  auto bytes = write_livox_custom_msg(in.msg);
  // The points count sits right before the points: make it claim four billion points.
  const std::size_t count_at = bytes.size() - 2 * 20 + 1 - 4;  // 2 points of 19 bytes, padded to 20 between
  std::uint32_t huge = 0xFFFFFFF0u;
  std::uint32_t was;
  std::memcpy(&was, bytes.data() + count_at, 4);
  ASSERT_EQ(was, 2u);
  std::memcpy(bytes.data() + count_at, &huge, 4);
  std::vector<msg::LivoxPoint> points;
  EXPECT_THROW(read_livox_custom_msg(Span<std::uint8_t>(bytes), points), CdrError);
  EXPECT_LT(points.capacity(), 1000u);
}

TEST(CdrTest, OtherEncapsulationsAreRefusedByName) {
  std::vector<std::uint8_t> xcdr2 = {0x00, 0x07, 0x00, 0x00, 1, 2, 3, 4};
  try {
    read_imu(Span<std::uint8_t>(xcdr2));
    FAIL();
  } catch (const CdrError& e) {
    EXPECT_NE(std::string(e.what()).find("XCDR2"), std::string::npos) << e.what();
  }
  std::vector<std::uint8_t> tiny = {0x00};
  EXPECT_THROW(read_imu(Span<std::uint8_t>(tiny)), CdrError);
}

TEST(CdrTest, DefinitionsAreCheckedFieldByField) {
  for (const char* type : {type_names::kImu, type_names::kPointCloud2, type_names::kLivoxCustomMsg, type_names::kImage, type_names::kCompressedImage}) {
    EXPECT_FALSE(definition_of(type).empty()) << type;
    EXPECT_EQ(check_definition(type, definition_of(type)), "") << type;
  }
  // Comments, constants, defaults, package paths and the dependency header style do not matter.
  const std::string livox =
    "# Livox publish pointcloud msg format.\nstd_msgs/msg/Header header  # ROS standard message header\nuint64 timebase\nuint32 point_num\n"
    "uint8 lidar_id\nuint8[3] rsvd\nlivox_ros_driver2/msg/CustomPoint[] points\nuint8 SOME_CONSTANT=4\n" +
    std::string(80, '=') + "\nMSG: livox_ros_driver2/msg/CustomPoint\nuint32 offset_time\n";
  EXPECT_EQ(check_definition(type_names::kLivoxCustomMsg, livox), "");
  // A changed layout is named.
  const std::string changed = "std_msgs/Header header\nuint64 timebase\nuint32 point_num\nuint8 lidar_id\nCustomPoint[] points\n";
  const auto problem = check_definition(type_names::kLivoxCustomMsg, changed);
  EXPECT_NE(problem.find("rsvd"), std::string::npos) << problem;
  // Unknown types and absent definitions are not checked.
  EXPECT_EQ(check_definition("my_msgs/msg/Thing", "int32 a\n"), "");
  EXPECT_EQ(check_definition(type_names::kImu, ""), "");
}

}  // namespace
}  // namespace asuka::bag
