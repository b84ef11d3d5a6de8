#pragma once
// CDR (XCDR1) serialization of the ROS 2 messages asuka reads: sensor_msgs/msg/{PointCloud2, Imu,
// Image, CompressedImage} and livox_ros_driver2/msg/CustomMsg. A serialized message starts with the
// 4-byte encapsulation header (0x00 0x00: big endian, 0x00 0x01: little endian, then 2 option
// bytes); every primitive is aligned to its own size, counted from the end of that header; strings
// are a uint32 length (with the terminating NUL) then the bytes; sequences a uint32 count then the
// elements. Reading never trusts a length: each is checked against what is left of the buffer.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <asuka/messages/messages.hpp>

namespace asuka::bag {

/// A message that cannot be deserialized: says which field, at which byte, and what was expected.
class CdrError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class CdrReader {
public:
  /// Reads and checks the encapsulation header. Throws CdrError.
  explicit CdrReader(msg::Span<std::uint8_t> buffer);

  bool little_endian() const { return little_endian_; }
  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return size_ - pos_; }

  std::uint8_t u8(const char* field);
  std::uint16_t u16(const char* field);
  std::uint32_t u32(const char* field);
  std::int32_t i32(const char* field);
  std::uint64_t u64(const char* field);
  float f32(const char* field);
  double f64(const char* field);
  bool boolean(const char* field);
  std::string string(const char* field);
  /// A sequence length, checked against the bytes left for elements of at least `min_element_size`.
  std::uint32_t sequence_length(const char* field, std::size_t min_element_size);
  /// `n` raw bytes (uint8[] contents): a view into the buffer, nothing copied.
  msg::Span<std::uint8_t> bytes(const char* field, std::size_t n);
  /// Aligns to `alignment`, then `n` raw bytes (a block of fixed-layout elements read at once).
  const std::uint8_t* block(const char* field, std::size_t alignment, std::size_t n);

private:
  template <typename T>
  T primitive(const char* field);
  void align(std::size_t n);
  const std::uint8_t* need(const char* field, std::size_t n);

  const std::uint8_t* data_;  ///< after the encapsulation header (alignment origin)
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  bool little_endian_ = true;
};

/// Little-endian XCDR1 writer (what rosbag2 records on x86 and ARM).
class CdrWriter {
public:
  CdrWriter();
  void u8(std::uint8_t v) { put(v); }
  void u16(std::uint16_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void i32(std::int32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void f32(float v) { put(v); }
  void f64(double v) { put(v); }
  void boolean(bool v) { put(static_cast<std::uint8_t>(v ? 1 : 0)); }
  void string(const std::string& s);
  void bytes(const std::uint8_t* data, std::size_t n);
  std::vector<std::uint8_t> take() { return std::move(buffer_); }

private:
  template <typename T>
  void put(T v);
  std::vector<std::uint8_t> buffer_;
};

// ---- the messages -------------------------------------------------------------------------------

/// ROS 2 type names, as rosbag2 stores them.
namespace type_names {
constexpr const char* kPointCloud2 = "sensor_msgs/msg/PointCloud2";
constexpr const char* kImu = "sensor_msgs/msg/Imu";
constexpr const char* kImage = "sensor_msgs/msg/Image";
constexpr const char* kCompressedImage = "sensor_msgs/msg/CompressedImage";
constexpr const char* kLivoxCustomMsg = "livox_ros_driver2/msg/CustomMsg";
}  // namespace type_names

/// Deserializers. Bulk data (cloud records, image bytes) views `cdr`; Livox points go into `points`.
/// Throw CdrError.
msg::Imu read_imu(msg::Span<std::uint8_t> cdr);
msg::PointCloud2 read_point_cloud2(msg::Span<std::uint8_t> cdr);
msg::LivoxCustomMsg read_livox_custom_msg(msg::Span<std::uint8_t> cdr, std::vector<msg::LivoxPoint>& points);
msg::Image read_image(msg::Span<std::uint8_t> cdr);
msg::CompressedImage read_compressed_image(msg::Span<std::uint8_t> cdr);

std::vector<std::uint8_t> write_imu(const msg::Imu& m);
std::vector<std::uint8_t> write_point_cloud2(const msg::PointCloud2& m);
std::vector<std::uint8_t> write_livox_custom_msg(const msg::LivoxCustomMsg& m);
std::vector<std::uint8_t> write_image(const msg::Image& m);
std::vector<std::uint8_t> write_compressed_image(const msg::CompressedImage& m);

/// The ros2msg definition text of each type, as rosbag2 stores it in a bag (the message, then each
/// dependency after a line of 80 '=' and "MSG: pkg/msg/Name"). "" for a type asuka does not know.
const std::string& definition_of(const std::string& type);

/// Checks a definition stored in a bag against the layout asuka deserializes: the fields of the
/// top-level message (types and names, in order; comments, constants and defaults ignored). Returns
/// "" when they match (or when asuka does not know the type), otherwise what differs.
std::string check_definition(const std::string& type, const std::string& definition);

}  // namespace asuka::bag
