#pragma once
// Sensor messages (messages.hpp) -> core types: the one decoding path of every input (ROS 1 topics
// and bags, rosbag2 files, tests). A decoder never throws and never crashes on bad input: it returns
// an error (message skipped) or warnings (message cleaned), each with a kind for the run report's
// counts.

#include <optional>
#include <string>
#include <vector>

#include <asuka/core/types.hpp>
#include <asuka/messages/messages.hpp>
#include <asuka/messages/point_time.hpp>

namespace asuka::msg {

/// A problem found in one message. `kind` is a stable identifier for counting ("missing_field",
/// "truncated", "non_finite_points", "empty_cloud", ...); `message` says what, where, and what
/// was expected.
struct DecodeIssue {
  std::string kind;
  std::string message;
};

struct DecodedFrame {
  asuka::LidarFrame::Ptr frame;        ///< null when the message was skipped (see `error`)
  std::optional<DecodeIssue> error;    ///< why the message was skipped
  std::vector<DecodeIssue> warnings;   ///< what was cleaned (points dropped, ...)
  std::size_t points_in = 0;           ///< points in the message
};

struct DecodedImu {
  std::optional<asuka::ImuData> imu;
  std::optional<DecodeIssue> error;
};

/// Bytes of one value of a sensor_msgs/PointField datatype (0 for an unknown datatype).
std::size_t point_field_size(std::uint8_t datatype);

/// Decodes sensor_msgs/Imu: stamp [s], angular velocity [rad/s], linear acceleration as published
/// (acc_scale is applied later, by the host). Non-finite values skip the message.
DecodedImu decode_imu(const Imu& msg);

/// Decodes the point clouds of one topic. Keeps the time convention detected on the first cloud
/// that has per-point times, so that every frame of a topic is read the same way.
class CloudDecoder {
public:
  CloudDecoder(asuka::LidarType lidar_type, const PointTimeOptions& options);

  /// sensor_msgs/PointCloud2, fields read by name and datatype (never fixed offsets). Required:
  /// x, y, z. Optional: intensity (or reflectivity), ring, line, tag, and a time field (see
  /// PointTimeOptions). Points with non-finite coordinates or time are dropped. The frame stamp is
  /// the earliest point time; offsets are milliseconds from it. The time convention is decided on
  /// the first cloud's 1st to 99th percentile of times and re-checked every 50th cloud
  /// (`point_time_changed` warns on a disagreement; the decision stays).
  DecodedFrame decode(const PointCloud2& msg);
  /// Livox CustomMsg (both driver packages): time = timebase + offset_time [ns].
  DecodedFrame decode(const LivoxCustomMsg& msg);

  /// The convention in use (set on the first cloud with per-point times), and whether it is new
  /// since the last call of this function (so the caller logs it once).
  std::optional<PointTimeConvention> convention() const { return convention_ ? convention_ : livox_convention_; }
  bool take_new_convention();
  /// The time field chosen ("" before the first cloud, or when clouds have none).
  const std::string& time_field() const { return time_field_; }

private:
  asuka::LidarType lidar_type_;
  PointTimeOptions options_;
  std::optional<PointTimeConvention> convention_;        ///< PointCloud2, detected or forced
  std::optional<PointTimeConvention> livox_convention_;  ///< CustomMsg, by definition
  bool convention_is_new_ = false;
  std::string time_field_;
  /// Clouds decoded since the convention was last checked against a cloud's own times.
  static constexpr int kRecheckEvery = 50;
  int clouds_since_check_ = 0;
};

}  // namespace asuka::msg
