#pragma once
// Offline playback of ROS 2 bags (MCAP, SQLite3, rosbag2 folders) into asuka::MessageHost, without
// ROS: the IMU and lidar topics are deserialized from CDR (cdr.hpp) and go through the same decoders
// and host rules as ROS 1 messages. asuka_rosbag uses it for every input that is not a ROS 1 bag.

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <asuka/bag/bag_reader.hpp>
#include <asuka/host/message_host.hpp>

namespace asuka::bag {

/// A problem that stops playback before or after reading: a missing topic, a wrong or unknown
/// message type, a definition that does not match, no usable IMU or lidar data.
class PlayerError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct PlayProgress {
  double fraction = 0.0;     ///< of the bag time span, 0..1
  double bag_seconds = 0.0;  ///< bag time played so far
  double wall_seconds = 0.0;
  std::uint64_t frames = 0;  ///< lidar messages read
};

/// Whether `type` can carry the IMU topic, the lidar topic.
bool is_imu_type(const std::string& type);
bool is_cloud_type(const std::string& type);
bool is_image_type(const std::string& type);

class Rosbag2Player {
public:
  /// Opens every path (rosbag2 folder, MCAP or SQLite3 file; several are merged in time order) and
  /// checks the configured topics (IMU, lidar, and the camera when image_topic is set): present, of
  /// a type asuka reads, with a matching definition where the bag stores one. Throws BagError or
  /// PlayerError.
  Rosbag2Player(const std::vector<std::string>& paths, const MessageHostParams& params);

  const std::vector<TopicInfo>& topics() const { return reader_->topics(); }
  double duration() const;

  /// Plays the IMU and lidar topics into `host`, then flushes it. Damage in a file ends reading:
  /// what came before is played and damage() says what happened. Throws PlayerError when no IMU or
  /// no lidar message could be used.
  void play(MessageHost& host, const std::function<void(const PlayProgress&)>& progress = {});
  /// Stops play() before its next message; safe from a signal handler.
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  bool stopped() const { return stopped_; }
  double stopped_at() const { return stopped_at_; }
  /// "" or the damage that ended reading early (what was read before it).
  const std::string& damage() const { return damage_; }

private:
  std::unique_ptr<BagReader> reader_;
  std::string imu_topic_;
  std::string points_topic_;
  std::string image_topic_;  ///< "" = none
  std::atomic<bool> stop_{false};
  bool stopped_ = false;
  double stopped_at_ = 0.0;
  std::string damage_;
};

}  // namespace asuka::bag
