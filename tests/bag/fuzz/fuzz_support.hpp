#pragma once
// Shared by the bag fuzz targets (fuzz_mcap.cpp, fuzz_cdr.cpp) and the seed generator: run one CDR
// deserializer over a buffer and read every byte of what it returns, so that a view (Span) pointing
// outside the buffer is caught by AddressSanitizer where it is made, not later in a frontend.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <asuka/bag/cdr.hpp>
#include <asuka/messages/messages.hpp>

namespace asuka::bag::fuzz {

/// The types fuzz_cdr's first byte selects (modulo their count).
inline const char* const kTypes[] = {type_names::kImu, type_names::kPointCloud2, type_names::kLivoxCustomMsg, type_names::kImage,
                                     type_names::kCompressedImage};
constexpr std::size_t kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);

template <typename T>
inline std::uint64_t touch(msg::Span<T> s) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < s.size() * sizeof(T); ++i) sum += p[i];
  return sum;
}

inline std::uint64_t touch(const msg::Header& h) { return static_cast<std::uint64_t>(h.stamp.sec) + h.stamp.nanosec + h.frame_id.size(); }

/// Deserializes `cdr` as `type` (a ROS 2 type name; unknown types are ignored). Throws CdrError.
/// Returns a value derived from every byte read, so nothing is optimized away.
inline std::uint64_t deserialize(const std::string& type, msg::Span<std::uint8_t> cdr) {
  std::uint64_t sum = 0;
  if (type == type_names::kImu) {
    const auto m = read_imu(cdr);
    sum += touch(m.header) + static_cast<std::uint64_t>(m.orientation[3] != 0.0);
  } else if (type == type_names::kPointCloud2) {
    const auto m = read_point_cloud2(cdr);
    sum += touch(m.header) + m.height + m.width + m.point_step + m.row_step + touch(m.data);
    for (const auto& f : m.fields) sum += f.name.size() + f.offset + f.datatype + f.count;
  } else if (type == type_names::kLivoxCustomMsg) {
    std::vector<msg::LivoxPoint> points;
    const auto m = read_livox_custom_msg(cdr, points);
    sum += touch(m.header) + m.timebase + m.point_num + m.lidar_id + touch(m.points);
  } else if (type == type_names::kImage) {
    const auto m = read_image(cdr);
    sum += touch(m.header) + m.height + m.width + m.step + m.encoding.size() + touch(m.data);
  } else if (type == type_names::kCompressedImage) {
    const auto m = read_compressed_image(cdr);
    sum += touch(m.header) + m.format.size() + touch(m.data);
  }
  return sum;
}

/// CustomMsg points read field by field through CdrReader's checked primitives: the reference the
/// block read of read_livox_custom_msg (little endian) must agree with. Throws CdrError.
inline std::vector<msg::LivoxPoint> reference_livox_points(msg::Span<std::uint8_t> cdr) {
  CdrReader r(cdr);
  r.i32("header.stamp.sec");
  r.u32("header.stamp.nanosec");
  r.string("header.frame_id");
  r.u64("timebase");
  r.u32("point_num");
  r.u8("lidar_id");
  for (int i = 0; i < 3; ++i) r.u8("rsvd");
  std::vector<msg::LivoxPoint> points(r.sequence_length("points", 19));
  for (auto& p : points) {
    p.offset_time = r.u32("points.offset_time");
    p.x = r.f32("points.x");
    p.y = r.f32("points.y");
    p.z = r.f32("points.z");
    p.reflectivity = r.u8("points.reflectivity");
    p.tag = r.u8("points.tag");
    p.line = r.u8("points.line");
  }
  return points;
}

/// Whether read_livox_custom_msg and the reference agree on `cdr`: both throw, or both return the
/// same points (bit for bit).
inline bool livox_agrees_with_reference(msg::Span<std::uint8_t> cdr) {
  std::vector<msg::LivoxPoint> fast, reference;
  bool fast_ok = true, reference_ok = true;
  try {
    read_livox_custom_msg(cdr, fast);
  } catch (const CdrError&) {
    fast_ok = false;
  }
  try {
    reference = reference_livox_points(cdr);
  } catch (const CdrError&) {
    reference_ok = false;
  }
  if (fast_ok != reference_ok) return false;
  if (!fast_ok) return true;
  if (fast.size() != reference.size()) return false;
  for (std::size_t i = 0; i < fast.size(); ++i) {
    const auto& a = fast[i];
    const auto& b = reference[i];
    if (a.offset_time != b.offset_time || std::memcmp(&a.x, &b.x, 4) != 0 || std::memcmp(&a.y, &b.y, 4) != 0 || std::memcmp(&a.z, &b.z, 4) != 0 ||
        a.reflectivity != b.reflectivity || a.tag != b.tag || a.line != b.line) {
      return false;
    }
  }
  return true;
}

}  // namespace asuka::bag::fuzz
