#pragma once
// Reading recorded messages without ROS: the interface every storage reader has (MCAP, rosbag2's
// SQLite3, a rosbag2 folder of several files), and the detection of a bag's format by its content.
//
// A reader yields the messages of the selected topics in receive-time order. Damage (a truncated or
// corrupt file) does not throw from next(): everything before it is yielded, then next() returns
// false and damage() says what was read and where it stopped, so a recording cut off by a crash is
// still usable up to the cut.

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <asuka/messages/messages.hpp>

namespace asuka::bag {

/// A file or folder that cannot be opened as a bag: missing, unreadable, not a bag, an unsupported
/// variant. The message says what, where, and what was expected.
class BagError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct TopicInfo {
  std::string name;
  std::string type;            ///< "sensor_msgs/msg/Imu"
  std::string encoding;        ///< message encoding: "cdr"
  std::string definition;      ///< ros2msg text when the bag stores it ("" otherwise)
  std::uint64_t messages = 0;  ///< count (from the index or metadata; 0 when unknown)
};

struct BagMessage {
  const TopicInfo* topic = nullptr;
  std::uint64_t log_time = 0;    ///< [ns] receive time
  msg::Span<std::uint8_t> data;  ///< serialized message, valid until the next call of next()
  /// Keeps `data` alive beyond the next call when the reader can (MCAP: the chunk), else null: a
  /// raw image then shares its pixels with the bag's buffer instead of copying them.
  std::shared_ptr<const void> owner;
};

class BagReader {
public:
  virtual ~BagReader() = default;
  virtual const std::vector<TopicInfo>& topics() const = 0;
  /// Receive times of the first and last message [ns] (0, 0 for an empty bag).
  virtual std::uint64_t start_time() const = 0;
  virtual std::uint64_t end_time() const = 0;
  /// Only these topics are yielded from now on (empty: all).
  virtual void select(const std::set<std::string>& topics) = 0;
  /// The next message in receive-time order; false at the end or at damage.
  virtual bool next(BagMessage& message) = 0;
  /// "" or what damage stopped reading: where, and what had been read before it.
  virtual std::string damage() const = 0;
};

enum class BagFormat { UNKNOWN, ROS1, MCAP, SQLITE3, ROSBAG2_FOLDER, MISSING };

const char* to_string(BagFormat format);

/// By content: a folder is a rosbag2 folder; a file by its first bytes (MCAP magic, "SQLite format
/// 3", "#ROSBAG V2.0"), never by its name.
BagFormat detect_format(const std::string& path);

/// Opens an MCAP file, a rosbag2 SQLite3 file or a rosbag2 folder (metadata.yaml, or the storage
/// files it holds). Throws BagError (a ROS 1 bag or an unknown file is an error naming what it is).
std::unique_ptr<BagReader> open_rosbag2(const std::string& path);

}  // namespace asuka::bag
