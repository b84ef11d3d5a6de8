#pragma once
// MessageHost: the host fed with sensor messages (asuka/messages) instead of decoded data. It owns
// the cloud decoder of the lidar topic and counts what decoding saw; every message source uses it:
// the ROS 1 layer (AsukaROS converts its messages and calls in here), the rosbag2 player, tests.

#include <optional>
#include <string>

#include <asuka/host/host.hpp>
#include <asuka/messages/cloud_decoder.hpp>
#include <asuka/messages/image_decoder.hpp>

namespace asuka {

/// The host's parameters plus what reading messages needs: topics, the cloud layout, point times.
struct MessageHostParams : HostParams {
  std::string imu_topic = "/livox/imu";
  std::string points_topic = "/livox/lidar";
  std::string image_topic;  ///< "" = no camera (#13)
  LidarType lidar_type = LidarType::LIVOX;
  msg::PointTimeOptions point_time;

  /// From config_ros (topics, lidar_type, point_time, and everything HostParams reads) and
  /// config_odometry (so_name). Throws ConfigError naming file, key, value and what was expected.
  static MessageHostParams from_config();
};

class MessageHost : public Host {
public:
  explicit MessageHost(const MessageHostParams& params);

  // ---- messages; producer thread ----------------------------------------------------------------
  void insert_imu(const msg::Imu& msg);
  void insert_frame(const msg::PointCloud2& msg);
  void insert_frame(const msg::LivoxCustomMsg& msg);
  /// Camera messages (#13), decoded by image_decoder.hpp. `owner` keeps a raw image's bytes alive so
  /// that its pixels are not copied.
  void insert_image(const msg::Image& msg, std::shared_ptr<const void> owner = nullptr);
  void insert_image(const msg::CompressedImage& msg);
  // ---- decoded data: straight to the host ------------------------------------------------------
  using Host::insert_frame;
  using Host::insert_image;
  using Host::insert_imu;

  const MessageHostParams& message_params() const { return params_; }
  /// Time convention of the point clouds, once known.
  std::optional<msg::PointTimeConvention> point_time_convention() const { return decoder_.convention(); }

private:
  template <typename Msg>
  void decode_and_insert(const Msg& msg);
  void insert_decoded_image(msg::DecodedImage decoded, double decode_seconds);

  MessageHostParams params_;
  msg::CloudDecoder decoder_;
};

}  // namespace asuka
