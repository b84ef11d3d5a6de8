#include <asuka/host/message_host.hpp>

#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <asuka/config/config.hpp>

namespace asuka {

MessageHostParams MessageHostParams::from_config() {
  auto& global = GlobalConfig::instance();
  const auto& ros = global.module("config_ros");
  MessageHostParams p;

  static_cast<HostParams&>(p) = HostParams::from_config(ros);
  p.imu_topic = ros.get<std::string>("imu_topic", p.imu_topic);
  p.points_topic = ros.get<std::string>("points_topic", p.points_topic);
  p.image_topic = ros.get<std::string>("image_topic", "");
  p.lidar_source = p.points_topic;
  const auto lidar_type = ros.get_enum("lidar_type", to_string(p.lidar_type), lidar_type_names());
  lidar_type_from_string(lidar_type, p.lidar_type);
  p.point_time.field = ros.get<std::string>("point_time.field", "");
  const auto unit = ros.get_enum("point_time.unit", "auto", {"auto", "s", "ms", "us", "ns"});
  msg::time_unit_from_string(unit, p.point_time.unit);
  const auto reference = ros.get_enum("point_time.reference", "auto", {"auto", "absolute", "relative"});
  msg::time_reference_from_string(reference, p.point_time.reference);
  return p;
}

MessageHost::MessageHost(const MessageHostParams& params) : Host(params), params_(params), decoder_(params.lidar_type, params.point_time) {
  logger_->info("frontend '{}', imu '{}', points '{}' ({}), {}acc_scale {}, reorder window {} s", params_.so_name, params_.imu_topic,
                params_.points_topic, to_string(params_.lidar_type), params_.image_topic.empty() ? "" : "image '" + params_.image_topic + "', ",
                params_.acc_scale > 0.0 ? std::to_string(params_.acc_scale) : std::string("auto"), params_.reorder_window);
}

void MessageHost::insert_imu(const msg::Imu& msg) {
  count_message(StreamId::IMU);
  auto decoded = msg::decode_imu(msg);
  if (decoded.error) {
    count_warning(decoded.error->kind, params_.imu_topic, decoded.error->message);
    return;
  }
  insert_imu(*decoded.imu);
}

void MessageHost::insert_image(const msg::Image& msg, std::shared_ptr<const void> owner) {
  const auto start = std::chrono::steady_clock::now();
  auto decoded = msg::decode_image(msg, std::move(owner));
  insert_decoded_image(std::move(decoded), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void MessageHost::insert_image(const msg::CompressedImage& msg) {
  const auto start = std::chrono::steady_clock::now();
  auto decoded = msg::decode_compressed_image(msg);
  insert_decoded_image(std::move(decoded), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void MessageHost::insert_decoded_image(msg::DecodedImage decoded, double decode_seconds) {
  count_message(StreamId::CAMERA, 0, decode_seconds);
  if (decoded.error) {
    count_warning(decoded.error->kind, params_.image_topic, decoded.error->message);
    return;
  }
  insert_image(std::move(decoded.image));
}

void MessageHost::insert_frame(const msg::PointCloud2& msg) { decode_and_insert(msg); }
void MessageHost::insert_frame(const msg::LivoxCustomMsg& msg) { decode_and_insert(msg); }

template <typename Msg>
void MessageHost::decode_and_insert(const Msg& msg) {
  const auto start = std::chrono::steady_clock::now();
  auto decoded = decoder_.decode(msg);
  count_message(StreamId::LIDAR, decoded.points_in, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (decoder_.take_new_convention()) {
    const msg::PointTimeConvention convention = *decoder_.convention();
    logger_->info("point time convention of '{}': {}", params_.points_topic, convention.reason);
    // Detected, not forced, and not the unit this lidar's driver writes: it is converted, but a
    // driver or a bag conversion got the unit wrong, which deserves a warning.
    const auto expected = msg::expected_point_time_unit(params_.lidar_type);
    if (params_.point_time.unit == msg::TimeUnit::AUTO && expected != msg::TimeUnit::AUTO && convention.unit != expected) {
      count_warning("point_time_unit", params_.points_topic,
                    fmt::format("per-point time is in {}, not the {} {} drivers write; converted (config_ros point_time.unit forces a unit)",
                                msg::to_string(convention.unit), msg::to_string(expected), to_string(params_.lidar_type)));
    }
  }
  for (const auto& w : decoded.warnings) count_warning(w.kind, params_.points_topic, w.message);
  if (decoded.error) {
    count_warning(decoded.error->kind, params_.points_topic, decoded.error->message);
    return;
  }
  insert_frame(std::move(decoded.frame));
}

}  // namespace asuka
