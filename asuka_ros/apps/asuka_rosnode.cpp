// asuka_rosnode: the live node. Subscribes to the configured IMU and point cloud topics, publishes
// odometry, path, the registered cloud and TF for RViz, and on shutdown (Ctrl-C) waits for the
// frontend to finish, then saves (R-ROS-6: spin -> wait(true) -> save). See docs/ros.md.

#include <chrono>
#include <filesystem>
#include <mutex>

#include <CLI/CLI.hpp>
#include <nav_msgs/Path.h>
#include <ros/ros.h>
#include <tf2_ros/transform_broadcaster.h>
#include <topic_tools/shape_shifter.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>
#include <asuka_ros/app_support.hpp>
#include <asuka_ros/asuka_ros.hpp>
#include <asuka_ros/message_encoding.hpp>

int main(int argc, char** argv) {
  ros::init(argc, argv, "asuka_rosnode");  // removes ROS remapping arguments from argv

  CLI::App app{"asuka_rosnode: live LiDAR-inertial odometry on ROS 1 topics"};
  std::string config_dir = ASUKA_DEFAULT_CONFIG_DIR;
  std::string frontend;
  std::string sensor;
  bool list_sensors = false;
  std::string output_dir;
  std::vector<std::string> overrides;
  app.add_option("--config", config_dir, "Config directory holding config.json")->capture_default_str();
  app.add_option("--frontend", frontend, "Frontend name: config_odometry_NAME.json (the folder's, else the default one with the folder's sensor blocks), and so_name NAME");
  app.add_option("--sensor", sensor, "Sensor preset (topics, lidar type, scan lines, blind distance, lidar-IMU extrinsic): a name from --list-sensors or a "
                 "preset file. Fills what the config folder leaves out; --set wins. Default: config.json's \"sensor\"");
  app.add_flag("--list-sensors", list_sensors, "List the sensor presets and exit");
  app.add_option("--output", output_dir, "On shutdown, write trajectory.tum, map.pcd, config/ and report.json here (default: only the map, to map_saving_path)");
  app.add_option("--set", overrides, "Override a config value: FILE.KEY=VALUE (see asuka_rosbag --help)");
  CLI11_PARSE(app, argc, argv);

  auto logger = asuka::module_logger("ros");
  try {
    if (list_sensors) {
      asuka_ros::print_sensor_presets(config_dir, ASUKA_DEFAULT_CONFIG_DIR);
      return 0;
    }
    const auto configuration = asuka_ros::load_configuration({config_dir, ASUKA_DEFAULT_CONFIG_DIR, frontend, sensor, overrides});
    const auto sensor_setup = asuka_ros::log_sensor_setup(configuration);
    const auto params = asuka_ros::AsukaROSParams::from_config();
    const auto& world_frame = params.world_frame;
    const auto& body_frame = params.body_frame;

    if (!output_dir.empty()) {
      if (const std::string problem = asuka_ros::check_output_dir(output_dir); !problem.empty()) {
        logger->error("--output: {}; not starting", problem);
        return 2;
      }
    }
    asuka_ros::AsukaROS host(params);
    asuka::GlobalConfig::instance().warn_unknown_keys();

    ros::NodeHandle nh;
    auto odometry_pub = nh.advertise<nav_msgs::Odometry>("/asuka/odometry", 100);
    auto imu_odometry_pub = nh.advertise<nav_msgs::Odometry>("/asuka/odometry_imu", 1000);
    // The frontend's own high-rate stream (batchlio: one state per batch window, ~1 kHz).
    auto high_rate_pub = nh.advertise<nav_msgs::Odometry>("/asuka/odometry_high_rate", 2000);
    auto path_pub = nh.advertise<nav_msgs::Path>("/asuka/path", 10);
    auto cloud_pub = nh.advertise<sensor_msgs::PointCloud2>("/asuka/cloud_registered", 10);
    // A visual frontend's scan coloured by the image at its time (fastlivo): x y z rgb, world frame.
    auto coloured_pub = nh.advertise<sensor_msgs::PointCloud2>("/asuka/cloud_coloured", 10);
    tf2_ros::TransformBroadcaster tf_broadcaster;

    // Publishers run on the executor's worker thread (the slots fire there); ROS publishers are
    // thread-safe, and path is only touched on that thread.
    nav_msgs::Path path;
    path.header.frame_id = world_frame;
    auto on_frame = asuka::connect(asuka::OdometryCallbacks::on_new_frame, [&](const asuka::EstimationFrame::ConstPtr& f) {
      odometry_pub.publish(asuka_ros::to_odometry(f->pose_stamp, f->T_world_imu, f->v_world, world_frame, body_frame));
      tf_broadcaster.sendTransform(asuka_ros::to_transform(f->pose_stamp, f->T_world_imu, world_frame, body_frame));
      geometry_msgs::PoseStamped pose;
      pose.header.stamp.fromSec(f->pose_stamp);
      pose.header.frame_id = world_frame;
      pose.pose = asuka_ros::to_pose(f->T_world_imu);
      path.header.stamp = pose.header.stamp;
      path.poses.push_back(pose);
      path_pub.publish(path);
      if (f->points_imu && cloud_pub.getNumSubscribers() > 0) {
        cloud_pub.publish(asuka_ros::to_pointcloud2(*f->points_imu, f->T_world_imu, world_frame, f->pose_stamp));
      }
      if (f->points_imu && f->point_colours && coloured_pub.getNumSubscribers() > 0) {
        coloured_pub.publish(asuka_ros::to_pointcloud2_rgb(*f->points_imu, *f->point_colours, f->T_world_imu, world_frame, f->pose_stamp));
      }
    });
    auto on_prediction = asuka::connect(asuka::OdometryCallbacks::on_imu_prediction, [&](const asuka::PredictedState& s) {
      imu_odometry_pub.publish(asuka_ros::to_odometry(s.stamp, s.T_world_imu, s.v_world, world_frame, body_frame));
    });
    auto on_high_rate = asuka::connect(asuka::OdometryCallbacks::on_high_rate_pose, [&](const asuka::HighRatePose& s) {
      high_rate_pub.publish(asuka_ros::to_odometry(s.stamp, s.T_world_imu, s.v_world, world_frame, body_frame));
    });

    // Subscribers: the IMU as sensor_msgs/Imu; the cloud topic accepts any supported type and is
    // dispatched on the type the publisher announces.
    auto imu_sub = nh.subscribe<sensor_msgs::Imu>(params.imu_topic, 4000, [&](const sensor_msgs::Imu::ConstPtr& msg) { host.insert_imu(*msg); },
                                                  ros::VoidConstPtr(), ros::TransportHints().tcpNoDelay());
    bool warned_type = false;
    auto cloud_sub = nh.subscribe<topic_tools::ShapeShifter>(params.points_topic, 50, [&](const topic_tools::ShapeShifter::ConstPtr& msg) {
      const std::string& type = msg->getDataType();
      if (type == "sensor_msgs/PointCloud2") {
        host.insert_frame(*msg->instantiate<sensor_msgs::PointCloud2>());
      } else if (type == "livox_ros_driver/CustomMsg") {
        host.insert_frame(*msg->instantiate<asuka_ros::LivoxCustomMsg>());
      } else if (type == "livox_ros_driver2/CustomMsg") {
        host.insert_frame(*msg->instantiate<asuka_ros::Livox2CustomMsg>());
      } else if (!warned_type) {
        warned_type = true;
        logger->error("topic '{}' carries {}, expected sensor_msgs/PointCloud2, livox_ros_driver/CustomMsg or livox_ros_driver2/CustomMsg; ignored",
                      params.points_topic, type);
      }
    });
    // The camera (#13), when image_topic is set: sensor_msgs/Image or sensor_msgs/CompressedImage.
    bool warned_image_type = false;
    ros::Subscriber image_sub;
    if (!params.image_topic.empty()) {
      image_sub = nh.subscribe<topic_tools::ShapeShifter>(params.image_topic, 50, [&](const topic_tools::ShapeShifter::ConstPtr& msg) {
        const std::string& type = msg->getDataType();
        if (type == "sensor_msgs/Image") {
          host.insert_image(sensor_msgs::Image::ConstPtr(msg->instantiate<sensor_msgs::Image>()));
        } else if (type == "sensor_msgs/CompressedImage") {
          host.insert_image(*msg->instantiate<sensor_msgs::CompressedImage>());
        } else if (!warned_image_type) {
          warned_image_type = true;
          logger->error("topic '{}' carries {}, expected sensor_msgs/Image or sensor_msgs/CompressedImage; ignored", params.image_topic, type);
        }
      });
      logger->info("camera: listening on '{}'", params.image_topic);
    }
    logger->info("listening on '{}' and '{}'; publishing /asuka/odometry, /asuka/odometry_imu, /asuka/path, /asuka/cloud_registered (and /asuka/cloud_coloured from a visual frontend), TF {} -> {}",
                 params.imu_topic, params.points_topic, world_frame, body_frame);

    const auto wall_start = std::chrono::steady_clock::now();
    ros::spin();  // until Ctrl-C / rosnode kill
    logger->info("shutting down: waiting for the frontend to finish");
    imu_sub.shutdown();
    cloud_sub.shutdown();
    image_sub.shutdown();
    host.wait(true);
    on_frame.disconnect();
    on_prediction.disconnect();

    const auto map_path = !output_dir.empty() ? (std::filesystem::path(output_dir) / "map.pcd").string() : params.map_saving_path;
    if (!output_dir.empty()) std::filesystem::create_directories(output_dir);
    const bool map_saved = host.save(map_path);  // stops the executor first (R-ROS-5)
    if (!map_path.empty() && !map_saved) logger->warn("the frontend did not save a map to '{}'", map_path);
    if (!output_dir.empty()) {
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      asuka_ros::write_outputs(host, output_dir, map_saved, asuka_ros::RunSummary{{params.imu_topic, params.points_topic}, wall, wall, false, "", sensor_setup});
    }
    if (const std::string input_error = host.input_error(); !input_error.empty()) {
      logger->error("the input was unusable: {}", input_error);
      return 2;
    }
    return host.executor().ok() ? 0 : 3;
  } catch (const asuka::ConfigError& e) {
    logger->error("configuration: {}", e.what());
    return 2;
  } catch (const std::exception& e) {
    logger->error("{}", e.what());
    return 1;
  }
}
