#pragma once
// Sensor messages as the wire formats carry them, without ROS: what a ROS 1 message, a ROS 2 (CDR)
// message or a test hands to the decoders (cloud_decoder.hpp). One decoding path serves every
// source: the ROS 1 layer and the rosbag2 reader only fill these structs.
//
// Bulk data (point records, image bytes) is a non-owning Span into the source's buffer (a ROS 1
// message, a decompressed MCAP chunk): valid for the duration of the call that receives the message.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace asuka::msg {

/// A read-only view of `size` contiguous T (std::span is C++20).
template <typename T>
class Span {
public:
  Span() = default;
  Span(const T* data, std::size_t size) : data_(data), size_(size) {}
  template <typename Container>
  explicit Span(const Container& c) : data_(c.data()), size_(c.size()) {}

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](std::size_t i) const { return data_[i]; }

private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A stamp as the wire carries it: whole seconds and nanoseconds (ROS 1 time, builtin_interfaces/Time).
struct Stamp {
  std::int64_t sec = 0;
  std::uint32_t nanosec = 0;
  double seconds() const { return static_cast<double>(sec) + static_cast<double>(nanosec) * 1e-9; }
};

struct Header {
  Stamp stamp;
  std::string frame_id;
};

/// sensor_msgs/PointField. Datatype constants are those of the message definition.
struct PointField {
  enum : std::uint8_t { INT8 = 1, UINT8 = 2, INT16 = 3, UINT16 = 4, INT32 = 5, UINT32 = 6, FLOAT32 = 7, FLOAT64 = 8 };
  std::string name;
  std::uint32_t offset = 0;
  std::uint8_t datatype = 0;
  std::uint32_t count = 0;
};

/// sensor_msgs/PointCloud2.
struct PointCloud2 {
  Header header;
  std::uint32_t height = 0;
  std::uint32_t width = 0;
  std::vector<PointField> fields;
  bool is_bigendian = false;
  std::uint32_t point_step = 0;
  std::uint32_t row_step = 0;
  Span<std::uint8_t> data;
  bool is_dense = false;
};

/// sensor_msgs/Imu.
struct Imu {
  Header header;
  std::array<double, 4> orientation{{0.0, 0.0, 0.0, 1.0}};  ///< x, y, z, w
  std::array<double, 9> orientation_covariance{};
  std::array<double, 3> angular_velocity{};  ///< [rad/s]
  std::array<double, 9> angular_velocity_covariance{};
  std::array<double, 3> linear_acceleration{};  ///< [m/s^2] (or whatever the driver writes: acc_scale)
  std::array<double, 9> linear_acceleration_covariance{};
};

/// One point of Livox's CustomMsg (livox_ros_driver and livox_ros_driver2 define it identically).
struct LivoxPoint {
  std::uint32_t offset_time = 0;  ///< [ns] from the message's timebase
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  std::uint8_t reflectivity = 0;
  std::uint8_t tag = 0;
  std::uint8_t line = 0;
};

/// livox_ros_driver(2)/CustomMsg.
struct LivoxCustomMsg {
  Header header;
  std::uint64_t timebase = 0;  ///< [ns] time of the first point
  std::uint32_t point_num = 0;
  std::uint8_t lidar_id = 0;
  std::array<std::uint8_t, 3> rsvd{};
  Span<LivoxPoint> points;
};

/// sensor_msgs/Image.
struct Image {
  Header header;
  std::uint32_t height = 0;
  std::uint32_t width = 0;
  std::string encoding;
  bool is_bigendian = false;
  std::uint32_t step = 0;  ///< bytes per row
  Span<std::uint8_t> data;
};

/// sensor_msgs/CompressedImage.
struct CompressedImage {
  Header header;
  std::string format;  ///< "jpeg", "png", "rgb8; jpeg compressed bgr8", ...
  Span<std::uint8_t> data;
};

}  // namespace asuka::msg
