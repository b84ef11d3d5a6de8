#pragma once
// AsukaROS: the ROS 1 adapter of the host (R-ROS-1). It converts ROS messages (Imu, PointCloud2,
// Livox CustomMsg) into the ROS-free sensor messages and hands them to asuka::MessageHost
// (asuka/host/message_host.hpp), which decodes them (by field name) and feeds asuka::Host: the
// frontend, the executor, the extensions and every ROS-free input rule (loop-back, offsets,
// acc_scale, reorder window, back-pressure, recording). The live node and the bag player both feed
// it, from one producer thread.

#include <optional>
#include <string>

#include <asuka/host/message_host.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace asuka_ros {

/// The message host's parameters plus what only the ROS apps need (map saving, frames).
struct AsukaROSParams : asuka::MessageHostParams {
  std::string map_saving_path;        ///< where the live node's save() writes the map ("" = do not save)
  std::string world_frame = "world";  ///< frame id of published poses (asuka_rosnode)
  std::string body_frame = "body";    ///< frame id of the IMU/body frame (asuka_rosnode)
  /// #16: the live node's topic names: "asuka" (/asuka/odometry, ...) or "fast_lio" (/Odometry, /path,
  /// /cloud_registered, /cloud_registered_body; frames camera_init and body unless frames.* are set).
  std::string output_names = "asuka";
  /// #18: the published path's bound (asuka_ros/bounded_path.hpp): every pose until it holds this
  /// many, then evenly thinned (config_ros path_max_poses).
  int path_max_poses = 4000;

  /// From GlobalConfig: config_ros (topics, lidar_type, offsets, acc_scale, point_time, executor,
  /// map_saving_path, frames) and config_odometry (so_name). Throws ConfigError naming file, key,
  /// value and what was expected.
  static AsukaROSParams from_config();
};

/// The live node's published topics (docs/ros.md).
struct OutputTopics {
  std::string odometry, odometry_imu, odometry_high_rate, path;
  std::string cloud_registered;       ///< the scan in the world frame: dense when the frontend gives it (output.dense_scan), else the registered points
  std::string cloud_registered_body;  ///< the same in the body (IMU) frame
  std::string cloud_coloured;
  std::string map;                    ///< the map (world frame), every config_ros.map_publish_every scans
  std::string localizability;         ///< #21: each registered scan's localizability (to_localizability)
};
OutputTopics output_topics(const std::string& output_names);

using AsukaROSStats = asuka::HostStats;

class AsukaROS : public asuka::MessageHost {
public:
  /// Loads the frontend and the extensions (asuka::Host). Throws ConfigError or std::runtime_error
  /// with a clear message when the frontend or an extension cannot be loaded.
  explicit AsukaROS(const AsukaROSParams& params);

  // ---- ROS messages (R-ROS-3, R-ROS-4); producer thread -------------------------------------
  void insert_imu(const sensor_msgs::Imu& msg);
  void insert_frame(const sensor_msgs::PointCloud2& msg);
  void insert_frame(const LivoxCustomMsg& msg);
  void insert_frame(const Livox2CustomMsg& msg);
  /// Camera (#13): a raw image keeps its pixels in the message (held while the image lives).
  void insert_image(const sensor_msgs::Image::ConstPtr& msg);
  void insert_image(const sensor_msgs::CompressedImage& msg);
  // ---- sensor messages and decoded data: straight to the message host --------------------------
  using asuka::MessageHost::insert_frame;
  using asuka::MessageHost::insert_image;
  using asuka::MessageHost::insert_imu;

  const AsukaROSParams& params() const { return params_; }

private:
  AsukaROSParams params_;
  std::vector<asuka::msg::LivoxPoint> livox_points_;  ///< reused buffer of the Livox conversion
};

}  // namespace asuka_ros
