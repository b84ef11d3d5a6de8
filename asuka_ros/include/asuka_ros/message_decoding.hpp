#pragma once
// ROS 1 messages -> the ROS-free sensor messages (asuka/messages/messages.hpp), which the one decoding
// path (asuka/messages/cloud_decoder.hpp) turns into core types. Bulk data is not copied: the views
// point into the ROS message, valid while it lives. Livox points are copied (their ROS 1 struct is
// not the neutral one).

#include <vector>

#include <sensor_msgs/CompressedImage.h>
#include <sensor_msgs/Image.h>
#include <sensor_msgs/Imu.h>
#include <sensor_msgs/PointCloud2.h>

#include <asuka/messages/cloud_decoder.hpp>
#include <asuka/messages/topic_check.hpp>
#include <asuka_ros/livox_msgs.hpp>

namespace asuka_ros {

using asuka::msg::DecodedFrame;
using asuka::msg::DecodedImu;
using asuka::msg::DecodeIssue;
using asuka::msg::PointTimeConvention;
using asuka::msg::PointTimeOptions;
using asuka::msg::TimeReference;
using asuka::msg::TimeUnit;
using asuka::msg::detect_point_time;
using asuka::msg::point_field_size;
using asuka::msg::to_string;

/// The ROS 1 topics a run reads and the message types each accepts (IMU, cloud, and the camera when
/// `image_topic` is set), for asuka/messages/topic_check.hpp: the bag player's check and the live
/// node's silent-topic warning.
std::vector<asuka::msg::TopicWanted> wanted_topics(const std::string& imu_topic, const std::string& points_topic, const std::string& image_topic);

asuka::msg::Header to_message(const std_msgs::Header& header);
asuka::msg::Imu to_message(const sensor_msgs::Imu& msg);
/// A view of `msg` (its data is not copied).
asuka::msg::PointCloud2 to_message(const sensor_msgs::PointCloud2& msg);
asuka::msg::Image to_message(const sensor_msgs::Image& msg);
asuka::msg::CompressedImage to_message(const sensor_msgs::CompressedImage& msg);
/// Livox CustomMsg: the points go into `points`, which the result views.
template <typename Driver>
asuka::msg::LivoxCustomMsg to_message(const livox::CustomMsgT<Driver>& msg, std::vector<asuka::msg::LivoxPoint>& points);

DecodedImu decode_imu(const sensor_msgs::Imu& msg);

/// The ROS-free decoder with ROS 1 message overloads: each converts, then decodes.
class CloudDecoder : public asuka::msg::CloudDecoder {
public:
  using asuka::msg::CloudDecoder::CloudDecoder;
  using asuka::msg::CloudDecoder::decode;
  DecodedFrame decode(const sensor_msgs::PointCloud2& msg);
  DecodedFrame decode(const LivoxCustomMsg& msg);
  DecodedFrame decode(const Livox2CustomMsg& msg);
};

// ---- implementation ----------------------------------------------------------------------------

template <typename Driver>
asuka::msg::LivoxCustomMsg to_message(const livox::CustomMsgT<Driver>& msg, std::vector<asuka::msg::LivoxPoint>& points) {
  asuka::msg::LivoxCustomMsg out;
  out.header = to_message(msg.header);
  out.timebase = msg.timebase;
  out.point_num = msg.point_num;
  out.lidar_id = msg.lidar_id;
  out.rsvd = {msg.rsvd[0], msg.rsvd[1], msg.rsvd[2]};
  points.resize(msg.points.size());
  for (std::size_t i = 0; i < msg.points.size(); ++i) {
    const auto& p = msg.points[i];
    points[i] = asuka::msg::LivoxPoint{p.offset_time, p.x, p.y, p.z, p.reflectivity, p.tag, p.line};
  }
  out.points = asuka::msg::Span<asuka::msg::LivoxPoint>(points);
  return out;
}

}  // namespace asuka_ros
