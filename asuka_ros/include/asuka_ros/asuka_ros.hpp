#pragma once
// AsukaROS: the ROS 1 adapter of the host (R-ROS-1). It decodes ROS messages (Imu, PointCloud2 by
// field name, Livox CustomMsg) and hands the decoded data to asuka::Host (asuka/host/host.hpp), which
// owns the frontend, the executor, the extensions and every ROS-free input rule (loop-back, offsets,
// acc_scale, reorder window, back-pressure, recording). The live node and the bag player both feed
// it, from one producer thread.

#include <optional>
#include <string>

#include <asuka/host/host.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace asuka_ros {

/// The host's parameters plus what only the ROS layer needs (topics, cloud layout, frames).
struct AsukaROSParams : asuka::HostParams {
  std::string imu_topic = "/livox/imu";
  std::string points_topic = "/livox/lidar";
  asuka::LidarType lidar_type = asuka::LidarType::LIVOX;
  std::string map_saving_path;        ///< where the live node's save() writes the map ("" = do not save)
  PointTimeOptions point_time;
  std::string world_frame = "world";  ///< frame id of published poses (asuka_rosnode)
  std::string body_frame = "body";    ///< frame id of the IMU/body frame (asuka_rosnode)

  /// From GlobalConfig: config_ros (topics, lidar_type, offsets, acc_scale, point_time, executor) and
  /// config_odometry (so_name). Throws ConfigError naming file, key, value and what was expected.
  static AsukaROSParams from_config();
};

using AsukaROSStats = asuka::HostStats;

class AsukaROS : public asuka::Host {
public:
  /// Loads the frontend and the extensions (asuka::Host). Throws std::runtime_error with a clear
  /// message when the frontend or an extension cannot be loaded.
  explicit AsukaROS(const AsukaROSParams& params);

  // ---- ROS messages (R-ROS-3, R-ROS-4); producer thread -------------------------------------
  void insert_imu(const sensor_msgs::Imu& msg);
  void insert_frame(const sensor_msgs::PointCloud2& msg);
  void insert_frame(const LivoxCustomMsg& msg);
  void insert_frame(const Livox2CustomMsg& msg);
  // ---- decoded data: straight to the host ------------------------------------------------------
  using asuka::Host::insert_frame;
  using asuka::Host::insert_imu;

  const AsukaROSParams& params() const { return params_; }
  /// Time convention of the point clouds, once known.
  std::optional<PointTimeConvention> point_time_convention() const { return decoder_.convention(); }

private:
  template <typename Msg>
  void decode_and_insert(const Msg& msg);
  void after_decode(DecodedFrame decoded, double decode_seconds);

  AsukaROSParams params_;
  CloudDecoder decoder_;
};

}  // namespace asuka_ros
