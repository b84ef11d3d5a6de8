#pragma once
// The simulated sensors' messages as the drivers publish them (asuka/messages: no ROS), written by
// every output format alike: the ROS 1 bag converts them to ROS 1 messages, the ROS 2 bag serializes
// them to CDR. Livox: CustomMsg (or PointCloud2 PointXYZRTLT); Velodyne, Ouster, Robosense:
// PointCloud2 with each driver's fields and per-point time convention.

#include <cstdint>
#include <string>
#include <vector>

#include <asuka/messages/messages.hpp>
#include <asuka_sim/lidar_model.hpp>
#include <asuka_sim/simulation.hpp>

namespace asuka::sim {

/// One lidar message and the bytes its views point to. Move-only: the views stay valid on a move.
struct CloudMessage {
  CloudMessage() = default;
  CloudMessage(const CloudMessage&) = delete;
  CloudMessage& operator=(const CloudMessage&) = delete;
  CloudMessage(CloudMessage&&) = default;
  CloudMessage& operator=(CloudMessage&&) = default;

  bool is_livox = false;           ///< livox (CustomMsg) is set, else cloud
  msg::PointCloud2 cloud;
  msg::LivoxCustomMsg livox;
  std::vector<std::uint8_t> data;  ///< cloud.data
  std::vector<msg::LivoxPoint> points;  ///< livox.points
};

/// One camera message and the bytes its view points to (move-only, like CloudMessage).
struct CameraMessage {
  CameraMessage() = default;
  CameraMessage(const CameraMessage&) = delete;
  CameraMessage& operator=(const CameraMessage&) = delete;
  CameraMessage(CameraMessage&&) = default;
  CameraMessage& operator=(CameraMessage&&) = default;

  bool compressed = false;  ///< compressed_image is set (JPEG), else image
  msg::Image image;
  msg::CompressedImage compressed_image;
  std::vector<std::uint8_t> data;
};

/// The topic a camera format is published on: "/camera/image_raw" or "/camera/image_raw/compressed".
std::string camera_topic(const CameraSimParams& camera);

/// A stamp as ros::Time::fromSec makes it (negative times clamp to 0).
msg::Stamp stamp_from_seconds(double seconds);
msg::Stamp stamp_from_nanoseconds(std::uint64_t ns);
/// Nanoseconds of a receive time [s], as the bag records it.
std::uint64_t record_time_ns(double seconds);

CloudMessage cloud_message(const LidarModel& model, const SimParams& params, const SimFrame& frame);
msg::Imu imu_message(const ImuSample& sample, const SimParams& params);
/// sensor_msgs/Image (mono8, rgb8) or CompressedImage (JPEG), stamped at mid-exposure; faults applied
/// (wrong_encoding, corrupt_jpeg_every). Throws std::runtime_error when JPEG encoding fails.
CameraMessage camera_message(const SimParams& params, const SimImage& image);

}  // namespace asuka::sim
