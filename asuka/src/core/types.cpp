#include <asuka/core/types.hpp>

#include <algorithm>
#include <cmath>

namespace asuka {

namespace {
struct LidarTypeName {
  LidarType type;
  const char* name;
};
constexpr LidarTypeName kLidarTypeNames[] = {
  {LidarType::LIVOX, "livox"},         {LidarType::VELODYNE, "velodyne"}, {LidarType::OUSTER, "ouster"},
  {LidarType::ROBOSENSE, "robosense"}, {LidarType::HESAI, "hesai"},       {LidarType::INSTANTANEOUS, "instantaneous"},
};
}  // namespace

const char* to_string(LidarType type) {
  for (const auto& entry : kLidarTypeNames) {
    if (entry.type == type) return entry.name;
  }
  return "unknown";
}

const char* to_string(StreamId id) {
  switch (id) {
    case StreamId::NONE:
      return "none";
    case StreamId::LIDAR:
      return "lidar";
    case StreamId::IMU:
      return "imu";
    case StreamId::CAMERA:
      return "camera";
  }
  return "unknown";
}

namespace {
struct ImageEncodingName {
  ImageEncoding encoding;
  const char* name;
  std::size_t bytes;
};
constexpr ImageEncodingName kImageEncodings[] = {
  {ImageEncoding::MONO8, "mono8", 1}, {ImageEncoding::MONO16, "mono16", 2}, {ImageEncoding::RGB8, "rgb8", 3}, {ImageEncoding::BGR8, "bgr8", 3}};
}  // namespace

const char* to_string(ImageEncoding encoding) {
  for (const auto& e : kImageEncodings) {
    if (e.encoding == encoding) return e.name;
  }
  return "unknown";
}

bool image_encoding_from_string(const std::string& name, ImageEncoding& encoding) {
  for (const auto& e : kImageEncodings) {
    if (name == e.name) {
      encoding = e.encoding;
      return true;
    }
  }
  return false;
}

std::size_t bytes_per_pixel(ImageEncoding encoding) {
  for (const auto& e : kImageEncodings) {
    if (e.encoding == encoding) return e.bytes;
  }
  return 0;
}

bool Image::valid() const {
  return width > 0 && height > 0 && pixels != nullptr && stride >= static_cast<std::size_t>(width) * bytes_per_pixel(encoding);
}

bool lidar_type_from_string(const std::string& name, LidarType& type) {
  for (const auto& entry : kLidarTypeNames) {
    if (name == entry.name) {
      type = entry.type;
      return true;
    }
  }
  return false;
}

std::vector<std::string> lidar_type_names() {
  std::vector<std::string> names;
  for (const auto& entry : kLidarTypeNames) names.emplace_back(entry.name);
  return names;
}

double Point::range() const {
  const double dx = x, dy = y, dz = z;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

bool Point::is_finite() const { return std::isfinite(x) && std::isfinite(y) && std::isfinite(z) && std::isfinite(offset_ms); }

float LidarFrame::max_offset_ms() const {
  float max_offset = 0.0f;
  for (const auto& p : points) max_offset = std::max(max_offset, p.offset_ms);
  return max_offset;
}

}  // namespace asuka
