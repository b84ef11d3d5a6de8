#include <asuka_ros/asuka_ros.hpp>

#include <chrono>

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>

namespace asuka_ros {

AsukaROSParams AsukaROSParams::from_config() {
  auto& global = asuka::GlobalConfig::instance();
  const auto& ros = global.module("config_ros");
  AsukaROSParams p;

  static_cast<asuka::HostParams&>(p) = asuka::HostParams::from_config(ros);
  p.imu_topic = ros.get<std::string>("imu_topic", p.imu_topic);
  p.points_topic = ros.get<std::string>("points_topic", p.points_topic);
  p.lidar_source = p.points_topic;
  const auto lidar_type = ros.get_enum("lidar_type", asuka::to_string(p.lidar_type), asuka::lidar_type_names());
  asuka::lidar_type_from_string(lidar_type, p.lidar_type);
  p.map_saving_path = ros.get<std::string>("map_saving_path", "");
  p.point_time.field = ros.get<std::string>("point_time.field", "");
  const auto unit = ros.get_enum("point_time.unit", "auto", {"auto", "s", "ms", "us", "ns"});
  time_unit_from_string(unit, p.point_time.unit);
  const auto reference = ros.get_enum("point_time.reference", "auto", {"auto", "absolute", "relative"});
  time_reference_from_string(reference, p.point_time.reference);
  p.world_frame = ros.get<std::string>("frames.world", p.world_frame);
  p.body_frame = ros.get<std::string>("frames.body", p.body_frame);
  return p;
}

AsukaROS::AsukaROS(const AsukaROSParams& params) : asuka::Host(params), params_(params), decoder_(params.lidar_type, params.point_time) {
  logger_->info("frontend '{}', imu '{}', points '{}' ({}), acc_scale {}, reorder window {} s", params_.so_name, params_.imu_topic, params_.points_topic,
                asuka::to_string(params_.lidar_type), params_.acc_scale > 0.0 ? std::to_string(params_.acc_scale) : std::string("auto"),
                params_.reorder_window);
}

void AsukaROS::insert_imu(const sensor_msgs::Imu& msg) {
  count_message(asuka::StreamId::IMU);
  auto decoded = decode_imu(msg);
  if (decoded.error) {
    count_warning(decoded.error->kind, params_.imu_topic, decoded.error->message);
    return;
  }
  insert_imu(*decoded.imu);
}

template <typename Msg>
void AsukaROS::decode_and_insert(const Msg& msg) {
  const auto start = std::chrono::steady_clock::now();
  auto decoded = decoder_.decode(msg);
  after_decode(std::move(decoded), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void AsukaROS::insert_frame(const sensor_msgs::PointCloud2& msg) { decode_and_insert(msg); }
void AsukaROS::insert_frame(const LivoxCustomMsg& msg) { decode_and_insert(msg); }
void AsukaROS::insert_frame(const Livox2CustomMsg& msg) { decode_and_insert(msg); }

void AsukaROS::after_decode(DecodedFrame decoded, double decode_seconds) {
  count_message(asuka::StreamId::LIDAR, decoded.points_in, decode_seconds);
  if (decoder_.take_new_convention()) {
    const PointTimeConvention convention = *decoder_.convention();
    logger_->info("point time convention of '{}': {}", params_.points_topic, convention.reason);
    // Detected, not forced, and not the unit this lidar's driver writes: it is converted, but a
    // driver or a bag conversion got the unit wrong, which deserves a warning.
    const auto expected = expected_point_time_unit(params_.lidar_type);
    if (params_.point_time.unit == TimeUnit::AUTO && expected != TimeUnit::AUTO && convention.unit != expected) {
      count_warning("point_time_unit", params_.points_topic,
                    fmt::format("per-point time is in {}, not the {} {} drivers write; converted (config_ros point_time.unit forces a unit)",
                                to_string(convention.unit), to_string(expected), asuka::to_string(params_.lidar_type)));
    }
  }
  for (const auto& w : decoded.warnings) count_warning(w.kind, params_.points_topic, w.message);
  if (decoded.error) {
    count_warning(decoded.error->kind, params_.points_topic, decoded.error->message);
    return;
  }
  insert_frame(std::move(decoded.frame));
}

}  // namespace asuka_ros
