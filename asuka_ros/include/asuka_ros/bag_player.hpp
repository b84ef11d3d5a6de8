#pragma once
// Offline playback of bags into AsukaROS (asuka_rosbag). ROS 1 bags are read with ROS's own bag
// library, no ROS master; ROS 2 bags (a rosbag2 folder, an MCAP or SQLite3 file: detected by content)
// with asuka's own reader (asuka/bag/rosbag2_player.hpp). Messages of the configured topics are read
// in bag time order across all bags and handed to AsukaROS, which applies back-pressure (R-ROS-7)
// and sensor-time ordering.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <asuka/bag/rosbag2_player.hpp>
#include <asuka_ros/asuka_ros.hpp>

namespace asuka_ros {

/// A problem that stops playback: missing or corrupt bag, missing topic, wrong message type, no
/// IMU or no lidar data. The message says what, where, and what was expected.
class BagPlayerError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct BagTopicInfo {
  std::string topic;
  std::string datatype;
  std::size_t messages = 0;
};

using BagPlayerProgress = asuka::bag::PlayProgress;

class BagPlayer {
public:
  /// Opens every bag (all ROS 1, or all ROS 2) and checks the configured topics: present, of a
  /// supported type. Throws BagPlayerError.
  BagPlayer(const std::vector<std::string>& bags, const AsukaROSParams& params);
  ~BagPlayer();

  /// Topics of all bags (for messages and the doctor).
  const std::vector<BagTopicInfo>& topics() const { return topics_; }
  double duration() const { return end_ - begin_; }

  /// Plays everything into `host`, then flushes it. `progress` (optional) is called about every
  /// 0.2 s of wall time. Throws BagPlayerError on a corrupt bag, or when no IMU or no lidar message
  /// could be used.
  void play(AsukaROS& host, const std::function<void(const BagPlayerProgress&)>& progress = {});
  /// Makes play() stop reading before its next message (Ctrl-C). Safe from a signal handler (one
  /// lock-free atomic store) and from any thread.
  void request_stop();
  /// Whether play() stopped because of request_stop(), and the bag time it had reached [s].
  bool stopped() const;
  double stopped_at() const;
  /// ROS 2 inputs: "" or the damage (truncated or corrupt file) that ended reading early; what came
  /// before it was played. (A damaged ROS 1 bag throws BagPlayerError from play().)
  std::string damage() const;
  /// Whether the input is a ROS 2 bag.
  bool ros2() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<BagTopicInfo> topics_;
  double begin_ = 0.0;
  double end_ = 0.0;
};

}  // namespace asuka_ros
