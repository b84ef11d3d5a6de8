#include <asuka_ros/message_decoding.hpp>

namespace asuka_ros {

namespace {

template <typename M>
std::string datatype_of() {
  return ros::message_traits::DataType<M>::value();
}

}  // namespace

std::vector<asuka::msg::TopicWanted> wanted_topics(const std::string& imu_topic, const std::string& points_topic, const std::string& image_topic) {
  std::vector<asuka::msg::TopicWanted> wanted{
      {imu_topic, "IMU", "imu_topic", [](const std::string& t) { return t == datatype_of<sensor_msgs::Imu>(); }, datatype_of<sensor_msgs::Imu>()},
      {points_topic, "lidar", "points_topic",
       [](const std::string& t) { return t == datatype_of<sensor_msgs::PointCloud2>() || t == datatype_of<LivoxCustomMsg>() || t == datatype_of<Livox2CustomMsg>(); },
       "sensor_msgs/PointCloud2, livox_ros_driver/CustomMsg or livox_ros_driver2/CustomMsg"}};
  if (!image_topic.empty()) {
    wanted.push_back({image_topic, "camera", "image_topic",
                      [](const std::string& t) { return t == datatype_of<sensor_msgs::Image>() || t == datatype_of<sensor_msgs::CompressedImage>(); },
                      "sensor_msgs/Image or sensor_msgs/CompressedImage"});
  }
  return wanted;
}

asuka::msg::Header to_message(const std_msgs::Header& header) {
  asuka::msg::Header out;
  out.stamp.sec = header.stamp.sec;
  out.stamp.nanosec = header.stamp.nsec;
  out.frame_id = header.frame_id;
  return out;
}

asuka::msg::Imu to_message(const sensor_msgs::Imu& msg) {
  asuka::msg::Imu out;
  out.header = to_message(msg.header);
  out.orientation = {msg.orientation.x, msg.orientation.y, msg.orientation.z, msg.orientation.w};
  out.angular_velocity = {msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z};
  out.linear_acceleration = {msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z};
  for (int i = 0; i < 9; ++i) {
    out.orientation_covariance[i] = msg.orientation_covariance[i];
    out.angular_velocity_covariance[i] = msg.angular_velocity_covariance[i];
    out.linear_acceleration_covariance[i] = msg.linear_acceleration_covariance[i];
  }
  return out;
}

asuka::msg::PointCloud2 to_message(const sensor_msgs::PointCloud2& msg) {
  asuka::msg::PointCloud2 out;
  out.header = to_message(msg.header);
  out.height = msg.height;
  out.width = msg.width;
  out.fields.reserve(msg.fields.size());
  for (const auto& f : msg.fields) out.fields.push_back(asuka::msg::PointField{f.name, f.offset, f.datatype, f.count});
  out.is_bigendian = msg.is_bigendian;
  out.point_step = msg.point_step;
  out.row_step = msg.row_step;
  out.data = asuka::msg::Span<std::uint8_t>(msg.data);
  out.is_dense = msg.is_dense;
  return out;
}

asuka::msg::Image to_message(const sensor_msgs::Image& msg) {
  asuka::msg::Image out;
  out.header = to_message(msg.header);
  out.height = msg.height;
  out.width = msg.width;
  out.encoding = msg.encoding;
  out.is_bigendian = msg.is_bigendian != 0;
  out.step = msg.step;
  out.data = asuka::msg::Span<std::uint8_t>(msg.data);
  return out;
}

asuka::msg::CompressedImage to_message(const sensor_msgs::CompressedImage& msg) {
  asuka::msg::CompressedImage out;
  out.header = to_message(msg.header);
  out.format = msg.format;
  out.data = asuka::msg::Span<std::uint8_t>(msg.data);
  return out;
}

DecodedImu decode_imu(const sensor_msgs::Imu& msg) { return asuka::msg::decode_imu(to_message(msg)); }

DecodedFrame CloudDecoder::decode(const sensor_msgs::PointCloud2& msg) { return decode(to_message(msg)); }

DecodedFrame CloudDecoder::decode(const LivoxCustomMsg& msg) {
  std::vector<asuka::msg::LivoxPoint> points;
  return decode(to_message(msg, points));
}

DecodedFrame CloudDecoder::decode(const Livox2CustomMsg& msg) {
  std::vector<asuka::msg::LivoxPoint> points;
  return decode(to_message(msg, points));
}

}  // namespace asuka_ros
