// asuka_rosnode: the live node. Subscribes to the configured IMU and point cloud topics, publishes
// odometry (with the pose covariance), path, the registered cloud in the world and body frames and TF
// for RViz, and on shutdown (Ctrl-C) waits for the frontend to finish, then saves (R-ROS-6: spin ->
// wait(true) -> save). Topic names: asuka's or FAST-LIO's (config_ros.output_names). Private ROS
// parameters ~config_ros/KEY, ~config_odometry/KEY/SUBKEY, ... override the JSON config as --set does
// (before --set). A topic that stays silent is named after a few seconds with what the ROS graph has.
// See docs/ros.md.

#include <chrono>
#include <filesystem>
#include <limits>
#include <mutex>

#include <CLI/CLI.hpp>
#include <nav_msgs/Path.h>
#include <ros/master.h>
#include <ros/ros.h>
#include <tf2_ros/transform_broadcaster.h>
#include <topic_tools/shape_shifter.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/messages/topic_check.hpp>
#include <asuka/util/logging.hpp>
#include <asuka_ros/app_support.hpp>
#include <asuka_ros/asuka_ros.hpp>
#include <asuka_ros/bounded_path.hpp>
#include <asuka_ros/message_encoding.hpp>

namespace {

/// A ROS parameter's value as JSON text for Config::set (strings quoted, lists as arrays).
std::string to_json_text(XmlRpc::XmlRpcValue& v) {
  switch (v.getType()) {
    case XmlRpc::XmlRpcValue::TypeBoolean: return static_cast<bool>(v) ? "true" : "false";
    case XmlRpc::XmlRpcValue::TypeInt: return std::to_string(static_cast<int>(v));
    case XmlRpc::XmlRpcValue::TypeDouble: return fmt::format("{}", static_cast<double>(v));
    case XmlRpc::XmlRpcValue::TypeString: {
      std::string quoted = "\"";
      for (char ch : static_cast<std::string>(v)) quoted += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
      return quoted + "\"";
    }
    case XmlRpc::XmlRpcValue::TypeArray: {
      std::string out = "[";
      for (int i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ",") + to_json_text(v[i]);
      return out + "]";
    }
    default: return "null";
  }
}

/// #16: private parameters under ~config, ~config_ros, ~config_odometry, ... as "FILE.KEY=VALUE"
/// overrides (~config_ros/imu_topic -> config_ros.imu_topic), sorted by name.
std::vector<std::string> overrides_from_ros_params(const ros::NodeHandle& private_nh) {
  std::vector<std::string> names, out;
  ros::param::getParamNames(names);
  std::sort(names.begin(), names.end());
  const std::string prefix = private_nh.getNamespace() + "/";
  for (const auto& name : names) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::string key = name.substr(prefix.size());
    if (key.rfind("config", 0) != 0) continue;
    XmlRpc::XmlRpcValue value;
    if (!ros::param::get(name, value) || value.getType() == XmlRpc::XmlRpcValue::TypeStruct) continue;
    std::replace(key.begin(), key.end(), '/', '.');
    out.push_back(key + "=" + to_json_text(value));
  }
  return out;
}

}  // namespace

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
    ros::NodeHandle private_nh("~");
    std::vector<std::string> all_overrides = overrides_from_ros_params(private_nh);
    for (const auto& o : all_overrides) logger->info("ROS parameter: {}", o);
    all_overrides.insert(all_overrides.end(), overrides.begin(), overrides.end());  // the command line wins
    const auto configuration = asuka_ros::load_configuration({config_dir, ASUKA_DEFAULT_CONFIG_DIR, frontend, sensor, all_overrides});
    // Live, the dense de-skewed scan is what RViz shows (FAST-LIO's /cloud_registered); a config that
    // says otherwise wins.
    auto& odometry_config = asuka::GlobalConfig::instance().module("config_odometry");
    if (!odometry_config.has("output.dense_scan")) odometry_config.set("output.dense_scan", "true");
    const auto sensor_setup = asuka_ros::log_sensor_setup(configuration);
    auto params = asuka_ros::AsukaROSParams::from_config();
    params.map_save_path = !output_dir.empty() ? (std::filesystem::path(output_dir) / "map.pcd").string() : params.map_saving_path;  // map_save_every
    // #18: the trajectory and per-scan record stream into --output as they come; without one they are
    // only counted (nothing would write them, and a live run may last hours).
    params.record_dir = output_dir;
    params.record_summary_only = output_dir.empty();
    const auto& world_frame = params.world_frame;
    const auto& body_frame = params.body_frame;
    const auto names = asuka_ros::output_topics(params.output_names);

    if (!output_dir.empty()) {
      if (const std::string problem = asuka_ros::check_output_dir(output_dir); !problem.empty()) {
        logger->error("--output: {}; not starting", problem);
        return 2;
      }
    }
    asuka_ros::AsukaROS host(params);
    asuka::GlobalConfig::instance().warn_unknown_keys();

    ros::NodeHandle nh;
    auto odometry_pub = nh.advertise<nav_msgs::Odometry>(names.odometry, 100);
    auto imu_odometry_pub = nh.advertise<nav_msgs::Odometry>(names.odometry_imu, 1000);
    // The frontend's own high-rate stream (batchlio: one state per batch window, ~1 kHz).
    auto high_rate_pub = nh.advertise<nav_msgs::Odometry>(names.odometry_high_rate, 2000);
    auto path_pub = nh.advertise<nav_msgs::Path>(names.path, 10);
    auto cloud_pub = nh.advertise<sensor_msgs::PointCloud2>(names.cloud_registered, 10);
    auto cloud_body_pub = nh.advertise<sensor_msgs::PointCloud2>(names.cloud_registered_body, 10);
    // A visual frontend's scan coloured by the image at its time (fastlivo): x y z rgb, world frame.
    auto coloured_pub = nh.advertise<sensor_msgs::PointCloud2>(names.cloud_coloured, 10);
    // #16: the map every config_ros.map_publish_every scans (latched: RViz started later sees the last one).
    auto map_pub = nh.advertise<sensor_msgs::PointCloud2>(names.map, 1, true);
    if (params.map_publish_every > 0) {
      host.set_map_listener([&](double stamp, std::shared_ptr<const std::vector<Eigen::Vector3f>> points) {
        std::vector<asuka::Point> cloud(points->size());
        for (std::size_t i = 0; i < points->size(); ++i) {
          cloud[i].x = (*points)[i].x();
          cloud[i].y = (*points)[i].y();
          cloud[i].z = (*points)[i].z();
        }
        map_pub.publish(asuka_ros::to_pointcloud2(cloud, Eigen::Isometry3d::Identity(), world_frame, stamp));
      });
    }
    // #21: each registered scan's localizability (docs/ros.md: the 47 values and their order).
    auto localizability_pub = nh.advertise<std_msgs::Float64MultiArray>(names.localizability, 100);
    tf2_ros::TransformBroadcaster tf_broadcaster;

    // Publishers run on the executor's worker thread (the slots fire there); ROS publishers are
    // thread-safe, and path is only touched on that thread.
    asuka_ros::BoundedPath path(static_cast<std::size_t>(params.path_max_poses));  // #18: bounded over a long run
    path.path().header.frame_id = world_frame;
    auto on_frame = asuka::connect(asuka::OdometryCallbacks::on_new_frame, [&](const asuka::EstimationFrame::ConstPtr& f) {
      odometry_pub.publish(asuka_ros::to_odometry(f->pose_stamp, f->T_world_imu, f->v_world, world_frame, body_frame, &f->pose_covariance));
      tf_broadcaster.sendTransform(asuka_ros::to_transform(f->pose_stamp, f->T_world_imu, world_frame, body_frame));
      geometry_msgs::PoseStamped pose;
      pose.header.stamp.fromSec(f->pose_stamp);
      pose.header.frame_id = world_frame;
      pose.pose = asuka_ros::to_pose(f->T_world_imu);
      path.add(pose);
      path_pub.publish(path.path());
      // The dense de-skewed scan when the frontend gives it, else its registered points.
      const auto& scan = f->points_dense_imu ? f->points_dense_imu : f->points_imu;
      if (scan && cloud_pub.getNumSubscribers() > 0) cloud_pub.publish(asuka_ros::to_pointcloud2(*scan, f->T_world_imu, world_frame, f->pose_stamp));
      if (scan && cloud_body_pub.getNumSubscribers() > 0) {
        cloud_body_pub.publish(asuka_ros::to_pointcloud2(*scan, Eigen::Isometry3d::Identity(), body_frame, f->pose_stamp));
      }
      if (f->localizability) localizability_pub.publish(asuka_ros::to_localizability(f->pose_stamp, *f->localizability));
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
    double first_imu_stamp = std::numeric_limits<double>::quiet_NaN(), last_imu_stamp = first_imu_stamp;  // the live report's data span
    auto imu_sub = nh.subscribe<sensor_msgs::Imu>(params.imu_topic, 4000, [&](const sensor_msgs::Imu::ConstPtr& msg) {
      const double stamp = msg->header.stamp.toSec();
      if (std::isnan(first_imu_stamp)) first_imu_stamp = stamp;
      last_imu_stamp = stamp;
      host.insert_imu(*msg);
    }, ros::VoidConstPtr(), ros::TransportHints().tcpNoDelay());
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
      logger->info("camera: listening on '{}'", image_sub.getTopic());
    }
    // The names as ROS resolved them (remapping, namespaces), not as configured.
    const std::string imu_topic = imu_sub.getTopic(), points_topic = cloud_sub.getTopic();
    logger->info("listening on '{}' and '{}'; publishing {}, {}, {}, {} and {} (and {} from a visual frontend{}), TF {} -> {}", imu_topic,
                 points_topic, odometry_pub.getTopic(), imu_odometry_pub.getTopic(), path_pub.getTopic(), cloud_pub.getTopic(),
                 cloud_body_pub.getTopic(), coloured_pub.getTopic(),
                 params.map_publish_every > 0 ? fmt::format("; the map on {} every {} scans", map_pub.getTopic(), params.map_publish_every) : "", world_frame, body_frame);

    // #16: a topic that stays silent is named, with what the ROS graph publishes, after a few seconds
    // and then every 30 s, instead of an empty run that ends with exit 0.
    constexpr double kSilentWarnAfter = 5.0, kSilentRepeat = 30.0;
    const auto started = std::chrono::steady_clock::now();
    double next_silence_check = kSilentWarnAfter;
    auto silence_timer = nh.createWallTimer(ros::WallDuration(1.0), [&](const ros::WallTimerEvent&) {
      const double running = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (running < next_silence_check) return;
      const auto stats = host.stats();
      std::vector<asuka::msg::TopicWanted> silent;
      for (auto& w : asuka_ros::wanted_topics(imu_topic, points_topic, "")) {
        if ((w.key == "imu_topic" && stats.imu_messages == 0) || (w.key == "points_topic" && stats.frame_messages == 0)) silent.push_back(std::move(w));
      }
      if (silent.empty()) {
        next_silence_check = std::numeric_limits<double>::infinity();
        return;
      }
      next_silence_check = running + kSilentRepeat;
      ros::master::V_TopicInfo published;
      ros::master::getTopics(published);
      // This node's own outputs are clouds too: never suggest them as the input.
      const std::vector<std::string> own = {cloud_pub.getTopic(), cloud_body_pub.getTopic(), coloured_pub.getTopic(), map_pub.getTopic(),
                                            odometry_pub.getTopic(), imu_odometry_pub.getTopic(), high_rate_pub.getTopic(), path_pub.getTopic()};
      std::vector<asuka::msg::TopicSeen> seen;
      for (const auto& t : published) {
        if (std::find(own.begin(), own.end(), t.name) == own.end()) seen.push_back({t.name, t.datatype, 0});
      }
      std::string problems = asuka::msg::check_topics(seen, silent, "the ROS graph");
      if (problems.empty()) {
        for (const auto& w : silent) problems += fmt::format("{}'{}' is advertised but nothing arrived", problems.empty() ? "" : "; ", w.topic);
        problems += " (a driver that has not started publishing, or a bag paused?)";
      }
      std::string which;
      for (const auto& w : silent) which += (which.empty() ? "" : " and ") + fmt::format("'{}' ({})", w.topic, w.what);
      logger->warn("no message on {} after {:.0f} s: {}", which, running, problems);
    });

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
      // The data's own span (IMU stamps), not the wall time the node ran.
      const double data = std::isnan(first_imu_stamp) ? 0.0 : last_imu_stamp - first_imu_stamp;
      const std::string silent = host.stats().frame_messages == 0 || host.stats().imu_messages == 0
                                     ? fmt::format("nothing was estimated: {} IMU and {} lidar messages arrived on '{}' and '{}' in {:.1f} s",
                                                   host.stats().imu_messages, host.stats().frame_messages, imu_topic, points_topic, wall)
                                     : std::string();
      asuka_ros::write_outputs(host, output_dir, map_saved, asuka_ros::RunSummary{{imu_topic, points_topic}, data, wall, false, silent, sensor_setup});
    }
    if (host.stats().frame_messages == 0 || host.stats().imu_messages == 0) {
      logger->error("nothing was estimated: {} IMU and {} lidar messages arrived on '{}' and '{}' (check the topics: rostopic list)", host.stats().imu_messages,
                    host.stats().frame_messages, imu_topic, points_topic);
      return 2;
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
