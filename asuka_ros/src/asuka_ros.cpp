#include <asuka_ros/asuka_ros.hpp>

#include <asuka/config/config.hpp>

namespace asuka_ros {

AsukaROSParams AsukaROSParams::from_config() {
  const auto& ros = asuka::GlobalConfig::instance().module("config_ros");
  AsukaROSParams p;
  static_cast<asuka::MessageHostParams&>(p) = asuka::MessageHostParams::from_config();
  p.map_saving_path = ros.get<std::string>("map_saving_path", "");
  p.output_names = ros.get_enum("output_names", p.output_names, {"asuka", "fast_lio"});
  p.path_max_poses = ros.get_in_range("path_max_poses", p.path_max_poses, 2, 100000000);
  const bool fast_lio = p.output_names == "fast_lio";
  p.world_frame = ros.get<std::string>("frames.world", fast_lio ? "camera_init" : p.world_frame);
  p.body_frame = ros.get<std::string>("frames.body", p.body_frame);
  return p;
}

OutputTopics output_topics(const std::string& output_names) {
  if (output_names == "fast_lio") {
    return {"/Odometry", "/asuka/odometry_imu", "/asuka/odometry_high_rate", "/path", "/cloud_registered", "/cloud_registered_body", "/asuka/cloud_coloured",
            "/Laser_map", "/asuka/localizability"};
  }
  return {"/asuka/odometry", "/asuka/odometry_imu", "/asuka/odometry_high_rate", "/asuka/path", "/asuka/cloud_registered", "/asuka/cloud_registered_body",
          "/asuka/cloud_coloured", "/asuka/map", "/asuka/localizability"};
}

AsukaROS::AsukaROS(const AsukaROSParams& params) : asuka::MessageHost(params), params_(params) {}

void AsukaROS::insert_imu(const sensor_msgs::Imu& msg) { insert_imu(to_message(msg)); }
void AsukaROS::insert_frame(const sensor_msgs::PointCloud2& msg) { insert_frame(to_message(msg)); }
void AsukaROS::insert_frame(const LivoxCustomMsg& msg) { insert_frame(to_message(msg, livox_points_)); }
void AsukaROS::insert_frame(const Livox2CustomMsg& msg) { insert_frame(to_message(msg, livox_points_)); }

void AsukaROS::insert_image(const sensor_msgs::Image::ConstPtr& msg) {
  if (!msg) return;
  // The ROS message owns the pixels: a std::shared_ptr that holds the boost one keeps it alive.
  std::shared_ptr<const void> owner(msg.get(), [keep = msg](const void*) mutable { keep.reset(); });
  insert_image(to_message(*msg), std::move(owner));
}

void AsukaROS::insert_image(const sensor_msgs::CompressedImage& msg) { insert_image(to_message(msg)); }

}  // namespace asuka_ros
