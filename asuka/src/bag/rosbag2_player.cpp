#include <asuka/bag/rosbag2_player.hpp>

#include <asuka/messages/topic_check.hpp>

#include <chrono>

#include <fmt/format.h>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/rosbag2.hpp>

namespace asuka::bag {

bool is_imu_type(const std::string& type) { return type == type_names::kImu; }

bool is_cloud_type(const std::string& type) {
  // livox_ros_driver (the ROS 1 package) has no ROS 2 release, but bags converted from ROS 1 carry
  // its name with the same layout.
  return type == type_names::kPointCloud2 || type == type_names::kLivoxCustomMsg || type == "livox_ros_driver/msg/CustomMsg";
}

bool is_image_type(const std::string& type) { return type == type_names::kImage || type == type_names::kCompressedImage; }

Rosbag2Player::Rosbag2Player(const std::vector<std::string>& paths, const MessageHostParams& params)
    : imu_topic_(params.imu_topic), points_topic_(params.points_topic), image_topic_(params.image_topic) {
  if (paths.empty()) throw PlayerError("no bag given (use --bag FOLDER_OR_FILE)");
  std::vector<std::unique_ptr<BagReader>> readers;
  for (const auto& p : paths) readers.push_back(open_rosbag2(p));
  reader_ = merge_readers(std::move(readers));

  std::vector<msg::TopicSeen> seen;
  for (const auto& t : reader_->topics()) seen.push_back({t.name, t.type, t.messages});
  std::vector<msg::TopicWanted> wanted{{imu_topic_, "IMU", "imu_topic", is_imu_type, type_names::kImu},
                                       {points_topic_, "lidar", "points_topic", is_cloud_type, "sensor_msgs/msg/PointCloud2 or livox_ros_driver2/msg/CustomMsg"}};
  if (!image_topic_.empty()) wanted.push_back({image_topic_, "camera", "image_topic", is_image_type, "sensor_msgs/msg/Image or sensor_msgs/msg/CompressedImage"});
  if (const std::string problems = msg::check_topics(seen, wanted); !problems.empty()) throw PlayerError(problems);
  // The topics are the right types: how they are stored must be what asuka reads.
  std::set<std::string> selected;
  for (const auto& w : wanted) {
    const TopicInfo* found = nullptr;
    for (const auto& t : reader_->topics()) {
      if (t.name == w.topic) found = &t;
    }
    if (found->encoding != "cdr") {
      throw PlayerError(fmt::format("the {} topic '{}' is serialized as '{}', expected cdr", w.what, w.topic, found->encoding));
    }
    const std::string type = found->type == "livox_ros_driver/msg/CustomMsg" ? type_names::kLivoxCustomMsg : found->type;
    if (const std::string problem = check_definition(type, found->definition); !problem.empty()) {
      throw PlayerError(fmt::format("the {} topic '{}': {}; the recording's message layout is not the one asuka reads", w.what, w.topic, problem));
    }
    selected.insert(w.topic);
  }
  reader_->select(selected);
}

double Rosbag2Player::duration() const { return static_cast<double>(reader_->end_time() - reader_->start_time()) * 1e-9; }

void Rosbag2Player::play(MessageHost& host, const std::function<void(const PlayProgress&)>& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  auto last_report = wall_start;
  PlayProgress state;
  std::vector<msg::LivoxPoint> livox_points;
  BagMessage m;
  const auto begin = reader_->start_time();
  auto bag_seconds = [&](std::uint64_t t) { return t >= begin ? static_cast<double>(t - begin) * 1e-9 : 0.0; };

  while (reader_->next(m)) {
    if (!host.input_error().empty()) break;  // the input is unusable (input_checks.hpp): stop reading
    if (stop_.load(std::memory_order_relaxed)) {
      stopped_ = true;
      stopped_at_ = bag_seconds(m.log_time);
      break;
    }
    const std::string& type = m.topic->type;
    try {
      if (m.topic->name == imu_topic_) {
        host.insert_imu(read_imu(m.data));
      } else if (m.topic->name == image_topic_) {
        if (type == type_names::kImage) {
          host.insert_image(read_image(m.data), m.owner);  // shared with the MCAP chunk; copied when there is no owner
        } else {
          host.insert_image(read_compressed_image(m.data));
        }
      } else {
        ++state.frames;
        if (type == type_names::kPointCloud2) {
          host.insert_frame(read_point_cloud2(m.data));
        } else {
          host.insert_frame(read_livox_custom_msg(m.data, livox_points));
        }
      }
    } catch (const CdrError& e) {
      // One bad message is skipped and counted, like a message the decoders reject.
      host.count_message(m.topic->name == imu_topic_ ? StreamId::IMU : m.topic->name == image_topic_ ? StreamId::CAMERA : StreamId::LIDAR);
      host.count_warning("bad_cdr", m.topic->name, fmt::format("{} at receive time {:.6f} s: {}; skipped", type, static_cast<double>(m.log_time) * 1e-9,
                                                              e.what()));
    }
    if (progress) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report > std::chrono::milliseconds(200)) {
        last_report = now;
        state.bag_seconds = bag_seconds(m.log_time);
        state.fraction = duration() > 0.0 ? state.bag_seconds / duration() : 1.0;
        state.wall_seconds = std::chrono::duration<double>(now - wall_start).count();
        progress(state);
      }
    }
  }
  damage_ = reader_->damage();
  host.flush();
  if (!host.input_error().empty() || stopped_) return;  // the caller reports it

  const auto stats = host.stats();
  const std::string after_damage = damage_.empty() ? "" : " (reading stopped early: " + damage_ + ")";
  if (stats.imu_inserted == 0) {
    throw PlayerError(fmt::format("no usable IMU data on '{}' ({} messages read, see the warnings above){}", imu_topic_, stats.imu_messages, after_damage));
  }
  if (stats.frames_inserted == 0) {
    throw PlayerError(
      fmt::format("no usable lidar data on '{}' ({} messages read, see the warnings above){}", points_topic_, stats.frame_messages, after_damage));
  }
  if (progress) {
    state.bag_seconds = duration();
    state.fraction = 1.0;
    state.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    progress(state);
  }
}

}  // namespace asuka::bag
