#pragma once
// The topics a run asks for against the topics a recording holds (#16: every problem at once). Shared
// by the ROS 1 and ROS 2 bag players: a wrong IMU topic and a wrong cloud topic are named together,
// each with the topic of the right type that the recording does hold and the setting to change, so
// that one run finds both.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace asuka::msg {

struct TopicSeen {
  std::string name;
  std::string type;
  std::size_t messages = 0;
};

struct TopicWanted {
  std::string topic;     ///< what the config asks for
  std::string what;      ///< "IMU", "lidar", "camera"
  std::string key;       ///< the config_ros key: "imu_topic"
  std::function<bool(const std::string&)> accepts;  ///< the message types that fit
  std::string expected;  ///< those types in words
};

/// "" when every wanted topic is in `seen` with an accepted type; otherwise one message naming every
/// problem, for each the busiest topic of an accepted type (as `--set config_ros.KEY=TOPIC`), and
/// the topics seen. `source` names where they were seen ("the input", "the ROS graph").
std::string check_topics(const std::vector<TopicSeen>& seen, const std::vector<TopicWanted>& wanted, const std::string& source = "the input");

}  // namespace asuka::msg
