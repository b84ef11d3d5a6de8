#pragma once
// Livox's ROS 1 point cloud message, livox_ros_driver/CustomMsg and livox_ros_driver2/CustomMsg,
// declared here so that asuka reads Livox bags and topics without the driver installed.
//
// The wire format, datatype names, MD5 sums and definition text are those the drivers publish (the
// MD5 e4d6829bdfe657cb6c21a746c86b21a6 is the same for both packages: the definition is identical),
// so rosbag's instantiate<>() and roscpp's subscriber handshake accept them. Tests check the MD5
// against genmsg's rule (tests/ros/test_livox_msgs.cpp).
//
//   CustomMsg:   Header header, uint64 timebase [ns], uint32 point_num, uint8 lidar_id, uint8[3] rsvd,
//                CustomPoint[] points
//   CustomPoint: uint32 offset_time [ns from timebase], float32 x, y, z [m], uint8 reflectivity,
//                uint8 tag, uint8 line

#include <cstdint>
#include <string>
#include <vector>

#include <boost/array.hpp>
#include <boost/shared_ptr.hpp>
#include <ros/message_traits.h>
#include <ros/serialization.h>
#include <std_msgs/Header.h>

namespace asuka_ros::livox {

struct DriverV1 {
  static constexpr const char* package = "livox_ros_driver";
};
struct DriverV2 {
  static constexpr const char* package = "livox_ros_driver2";
};

template <typename Driver>
struct CustomPointT {
  std::uint32_t offset_time = 0;  ///< [ns] from the message's timebase
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  std::uint8_t reflectivity = 0;
  std::uint8_t tag = 0;
  std::uint8_t line = 0;
};

template <typename Driver>
struct CustomMsgT {
  using Ptr = boost::shared_ptr<CustomMsgT>;
  using ConstPtr = boost::shared_ptr<const CustomMsgT>;

  std_msgs::Header header;
  std::uint64_t timebase = 0;  ///< [ns] time of the first point
  std::uint32_t point_num = 0;
  std::uint8_t lidar_id = 0;
  boost::array<std::uint8_t, 3> rsvd{{0, 0, 0}};
  std::vector<CustomPointT<Driver>> points;
};

/// The message text of each type as the drivers ship it (comments included: they are part of the
/// definition a bag stores, though not of the MD5).
inline const char* custom_point_text() {
  return "# Livox costom pointcloud format.\n"
         "\n"
         "uint32 offset_time      # offset time relative to the base time\n"
         "float32 x               # X axis, unit:m\n"
         "float32 y               # Y axis, unit:m\n"
         "float32 z               # Z axis, unit:m\n"
         "uint8 reflectivity      # reflectivity, 0~255\n"
         "uint8 tag               # livox tag\n"
         "uint8 line              # laser number in lidar\n"
         "\n";
}

inline const char* custom_msg_text() {
  return "# Livox publish pointcloud msg format.\n"
         "\n"
         "Header header             # ROS standard message header\n"
         "uint64 timebase           # The time of first point\n"
         "uint32 point_num          # Total number of pointclouds\n"
         "uint8  lidar_id           # Lidar device id number\n"
         "uint8[3]  rsvd            # Reserved use\n"
         "CustomPoint[] points      # Pointcloud data\n"
         "\n";
}

/// genmsg's full text: the message, then each dependency after a line of 80 '='.
template <typename Driver>
const std::string& custom_msg_full_text() {
  static const std::string text = std::string(custom_msg_text()) + "\n" + std::string(80, '=') + "\nMSG: std_msgs/Header\n" +
                                  ros::message_traits::Definition<std_msgs::Header>::value() + "\n" + std::string(80, '=') + "\nMSG: " +
                                  Driver::package + "/CustomPoint\n" + custom_point_text();
  return text;
}

template <typename Driver>
const std::string& custom_point_datatype() {
  static const std::string name = std::string(Driver::package) + "/CustomPoint";
  return name;
}

template <typename Driver>
const std::string& custom_msg_datatype() {
  static const std::string name = std::string(Driver::package) + "/CustomMsg";
  return name;
}

constexpr const char* kCustomMsgMd5 = "e4d6829bdfe657cb6c21a746c86b21a6";
constexpr const char* kCustomPointMd5 = "109a3cc548bb1f96626be89a5008bd6d";

}  // namespace asuka_ros::livox

namespace asuka_ros {
/// livox_ros_driver/CustomMsg
using LivoxCustomMsg = livox::CustomMsgT<livox::DriverV1>;
/// livox_ros_driver2/CustomMsg
using Livox2CustomMsg = livox::CustomMsgT<livox::DriverV2>;
}  // namespace asuka_ros

namespace ros {
namespace message_traits {

template <typename D>
struct IsMessage<asuka_ros::livox::CustomPointT<D>> : TrueType {};
template <typename D>
struct IsMessage<const asuka_ros::livox::CustomPointT<D>> : TrueType {};
template <typename D>
struct IsFixedSize<asuka_ros::livox::CustomPointT<D>> : TrueType {};
template <typename D>
struct MD5Sum<asuka_ros::livox::CustomPointT<D>> {
  static const char* value() { return asuka_ros::livox::kCustomPointMd5; }
  static const char* value(const asuka_ros::livox::CustomPointT<D>&) { return value(); }
};
template <typename D>
struct DataType<asuka_ros::livox::CustomPointT<D>> {
  static const char* value() { return asuka_ros::livox::custom_point_datatype<D>().c_str(); }
  static const char* value(const asuka_ros::livox::CustomPointT<D>&) { return value(); }
};
template <typename D>
struct Definition<asuka_ros::livox::CustomPointT<D>> {
  static const char* value() { return asuka_ros::livox::custom_point_text(); }
  static const char* value(const asuka_ros::livox::CustomPointT<D>&) { return value(); }
};

template <typename D>
struct IsMessage<asuka_ros::livox::CustomMsgT<D>> : TrueType {};
template <typename D>
struct IsMessage<const asuka_ros::livox::CustomMsgT<D>> : TrueType {};
template <typename D>
struct HasHeader<asuka_ros::livox::CustomMsgT<D>> : TrueType {};
template <typename D>
struct HasHeader<const asuka_ros::livox::CustomMsgT<D>> : TrueType {};
template <typename D>
struct MD5Sum<asuka_ros::livox::CustomMsgT<D>> {
  static const char* value() { return asuka_ros::livox::kCustomMsgMd5; }
  static const char* value(const asuka_ros::livox::CustomMsgT<D>&) { return value(); }
};
template <typename D>
struct DataType<asuka_ros::livox::CustomMsgT<D>> {
  static const char* value() { return asuka_ros::livox::custom_msg_datatype<D>().c_str(); }
  static const char* value(const asuka_ros::livox::CustomMsgT<D>&) { return value(); }
};
template <typename D>
struct Definition<asuka_ros::livox::CustomMsgT<D>> {
  static const char* value() { return asuka_ros::livox::custom_msg_full_text<D>().c_str(); }
  static const char* value(const asuka_ros::livox::CustomMsgT<D>&) { return value(); }
};

}  // namespace message_traits

namespace serialization {

template <typename D>
struct Serializer<asuka_ros::livox::CustomPointT<D>> {
  template <typename Stream, typename T>
  inline static void allInOne(Stream& stream, T m) {
    stream.next(m.offset_time);
    stream.next(m.x);
    stream.next(m.y);
    stream.next(m.z);
    stream.next(m.reflectivity);
    stream.next(m.tag);
    stream.next(m.line);
  }
  ROS_DECLARE_ALLINONE_SERIALIZER
};

template <typename D>
struct Serializer<asuka_ros::livox::CustomMsgT<D>> {
  template <typename Stream, typename T>
  inline static void allInOne(Stream& stream, T m) {
    stream.next(m.header);
    stream.next(m.timebase);
    stream.next(m.point_num);
    stream.next(m.lidar_id);
    stream.next(m.rsvd);
    stream.next(m.points);
  }
  ROS_DECLARE_ALLINONE_SERIALIZER
};

}  // namespace serialization
}  // namespace ros
