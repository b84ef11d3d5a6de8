#include <asuka/bag/cdr.hpp>

#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "asuka reads CDR assuming a little-endian host"
#endif

namespace asuka::bag {

namespace {

template <typename T>
T byte_swapped(T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  std::memcpy(&v, b, sizeof(T));
  return v;
}

}  // namespace

// ---- reader ---------------------------------------------------------------------------------------

CdrReader::CdrReader(msg::Span<std::uint8_t> buffer) {
  if (buffer.size() < 4) throw CdrError(fmt::format("CDR message of {} bytes is shorter than its 4-byte encapsulation header", buffer.size()));
  const std::uint8_t kind = buffer[1];
  if (buffer[0] != 0 || kind > 1) {
    throw CdrError(fmt::format("CDR encapsulation {:02x} {:02x} is not plain XCDR1 (00 00 big endian or 00 01 little endian); XCDR2 and parameter "
                               "lists are not read",
                               buffer[0], buffer[1]));
  }
  little_endian_ = kind == 1;
  data_ = buffer.data() + 4;
  size_ = buffer.size() - 4;
}

void CdrReader::align(std::size_t n) {
  const std::size_t padded = (pos_ + n - 1) / n * n;
  pos_ = std::min(padded, size_);  // padding past the end is caught by the read that follows
}

const std::uint8_t* CdrReader::need(const char* field, std::size_t n) {
  if (n > size_ - pos_) {
    throw CdrError(fmt::format("field '{}' needs {} bytes at offset {} but the message has {} bytes left (truncated or another layout)", field, n, pos_,
                               size_ - pos_));
  }
  const std::uint8_t* p = data_ + pos_;
  pos_ += n;
  return p;
}

template <typename T>
T CdrReader::primitive(const char* field) {
  align(sizeof(T));
  T v;
  std::memcpy(&v, need(field, sizeof(T)), sizeof(T));
  return little_endian_ ? v : byte_swapped(v);  // asuka runs on little-endian hosts (checked at build)
}

std::uint8_t CdrReader::u8(const char* field) { return *need(field, 1); }
std::uint16_t CdrReader::u16(const char* field) { return primitive<std::uint16_t>(field); }
std::uint32_t CdrReader::u32(const char* field) { return primitive<std::uint32_t>(field); }
std::int32_t CdrReader::i32(const char* field) { return primitive<std::int32_t>(field); }
std::uint64_t CdrReader::u64(const char* field) { return primitive<std::uint64_t>(field); }
float CdrReader::f32(const char* field) { return primitive<float>(field); }
double CdrReader::f64(const char* field) { return primitive<double>(field); }
bool CdrReader::boolean(const char* field) { return u8(field) != 0; }

std::string CdrReader::string(const char* field) {
  const std::uint32_t length = u32(field);
  if (length == 0) return {};  // some writers omit the NUL of an empty string
  const std::uint8_t* p = need(field, length);
  return std::string(reinterpret_cast<const char*>(p), length - (p[length - 1] == 0 ? 1 : 0));
}

std::uint32_t CdrReader::sequence_length(const char* field, std::size_t min_element_size) {
  const std::uint32_t n = u32(field);
  if (min_element_size > 0 && n > remaining() / min_element_size) {
    throw CdrError(fmt::format("sequence '{}' claims {} elements at offset {} but only {} bytes are left (truncated or corrupt)", field, n, pos_,
                               remaining()));
  }
  return n;
}

msg::Span<std::uint8_t> CdrReader::bytes(const char* field, std::size_t n) { return msg::Span<std::uint8_t>(need(field, n), n); }

const std::uint8_t* CdrReader::block(const char* field, std::size_t alignment, std::size_t n) {
  align(alignment);
  return need(field, n);
}

// ---- writer ---------------------------------------------------------------------------------------

CdrWriter::CdrWriter() : buffer_{0x00, 0x01, 0x00, 0x00} {}

template <typename T>
void CdrWriter::put(T v) {
  while ((buffer_.size() - 4) % sizeof(T) != 0) buffer_.push_back(0);
  const auto at = buffer_.size();
  buffer_.resize(at + sizeof(T));
  std::memcpy(buffer_.data() + at, &v, sizeof(T));
}

void CdrWriter::string(const std::string& s) {
  u32(static_cast<std::uint32_t>(s.size() + 1));
  buffer_.insert(buffer_.end(), s.begin(), s.end());
  buffer_.push_back(0);
}

void CdrWriter::bytes(const std::uint8_t* data, std::size_t n) { buffer_.insert(buffer_.end(), data, data + n); }

// ---- messages -------------------------------------------------------------------------------------

namespace {

msg::Header read_header(CdrReader& r) {
  msg::Header h;
  h.stamp.sec = r.i32("header.stamp.sec");
  h.stamp.nanosec = r.u32("header.stamp.nanosec");
  h.frame_id = r.string("header.frame_id");
  return h;
}

void write_header(CdrWriter& w, const msg::Header& h) {
  w.i32(static_cast<std::int32_t>(h.stamp.sec));
  w.u32(h.stamp.nanosec);
  w.string(h.frame_id);
}

template <std::size_t N>
void read_doubles(CdrReader& r, const char* field, std::array<double, N>& out) {
  for (auto& v : out) v = r.f64(field);
}

template <std::size_t N>
void write_doubles(CdrWriter& w, const std::array<double, N>& in) {
  for (double v : in) w.f64(v);
}

msg::Span<std::uint8_t> read_byte_sequence(CdrReader& r, const char* field) {
  const std::uint32_t n = r.sequence_length(field, 1);
  return r.bytes(field, n);
}

void write_byte_sequence(CdrWriter& w, msg::Span<std::uint8_t> data) {
  w.u32(static_cast<std::uint32_t>(data.size()));
  w.bytes(data.data(), data.size());
}

}  // namespace

msg::Imu read_imu(msg::Span<std::uint8_t> cdr) {
  CdrReader r(cdr);
  msg::Imu m;
  m.header = read_header(r);
  read_doubles(r, "orientation", m.orientation);
  read_doubles(r, "orientation_covariance", m.orientation_covariance);
  read_doubles(r, "angular_velocity", m.angular_velocity);
  read_doubles(r, "angular_velocity_covariance", m.angular_velocity_covariance);
  read_doubles(r, "linear_acceleration", m.linear_acceleration);
  read_doubles(r, "linear_acceleration_covariance", m.linear_acceleration_covariance);
  return m;
}

std::vector<std::uint8_t> write_imu(const msg::Imu& m) {
  CdrWriter w;
  write_header(w, m.header);
  write_doubles(w, m.orientation);
  write_doubles(w, m.orientation_covariance);
  write_doubles(w, m.angular_velocity);
  write_doubles(w, m.angular_velocity_covariance);
  write_doubles(w, m.linear_acceleration);
  write_doubles(w, m.linear_acceleration_covariance);
  return w.take();
}

msg::PointCloud2 read_point_cloud2(msg::Span<std::uint8_t> cdr) {
  CdrReader r(cdr);
  msg::PointCloud2 m;
  m.header = read_header(r);
  m.height = r.u32("height");
  m.width = r.u32("width");
  // A field is at least a 4-byte name length, a 4-byte offset, a datatype byte and a 4-byte count.
  const std::uint32_t fields = r.sequence_length("fields", 13);
  m.fields.resize(fields);
  for (auto& f : m.fields) {
    f.name = r.string("fields.name");
    f.offset = r.u32("fields.offset");
    f.datatype = r.u8("fields.datatype");
    f.count = r.u32("fields.count");
  }
  m.is_bigendian = r.boolean("is_bigendian");
  m.point_step = r.u32("point_step");
  m.row_step = r.u32("row_step");
  m.data = read_byte_sequence(r, "data");
  m.is_dense = r.boolean("is_dense");
  return m;
}

std::vector<std::uint8_t> write_point_cloud2(const msg::PointCloud2& m) {
  CdrWriter w;
  write_header(w, m.header);
  w.u32(m.height);
  w.u32(m.width);
  w.u32(static_cast<std::uint32_t>(m.fields.size()));
  for (const auto& f : m.fields) {
    w.string(f.name);
    w.u32(f.offset);
    w.u8(f.datatype);
    w.u32(f.count);
  }
  w.boolean(m.is_bigendian);
  w.u32(m.point_step);
  w.u32(m.row_step);
  write_byte_sequence(w, m.data);
  w.boolean(m.is_dense);
  return w.take();
}

msg::LivoxCustomMsg read_livox_custom_msg(msg::Span<std::uint8_t> cdr, std::vector<msg::LivoxPoint>& points) {
  CdrReader r(cdr);
  msg::LivoxCustomMsg m;
  m.header = read_header(r);
  m.timebase = r.u64("timebase");
  m.point_num = r.u32("point_num");
  m.lidar_id = r.u8("lidar_id");
  for (auto& b : m.rsvd) b = r.u8("rsvd");
  const std::uint32_t n = r.sequence_length("points", 19);  // 4 + 3 x 4 + 3 bytes, before padding
  points.resize(n);
  if (r.little_endian() && n > 0) {
    // Every point starts 4-aligned, so they sit 20 bytes apart (19 bytes and 1 of padding; none after
    // the last): read them as one block, a few memcpy each instead of seven checked reads.
    constexpr std::size_t kStride = 20;
    const std::uint8_t* base = r.block("points", 4, kStride * (n - 1) + 19);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint8_t* q = base + kStride * i;
      auto& p = points[i];
      std::memcpy(&p.offset_time, q, 4);
      std::memcpy(&p.x, q + 4, 4);
      std::memcpy(&p.y, q + 8, 4);
      std::memcpy(&p.z, q + 12, 4);
      p.reflectivity = q[16];
      p.tag = q[17];
      p.line = q[18];
    }
    m.points = msg::Span<msg::LivoxPoint>(points);
    return m;
  }
  for (auto& p : points) {
    p.offset_time = r.u32("points.offset_time");
    p.x = r.f32("points.x");
    p.y = r.f32("points.y");
    p.z = r.f32("points.z");
    p.reflectivity = r.u8("points.reflectivity");
    p.tag = r.u8("points.tag");
    p.line = r.u8("points.line");
  }
  m.points = msg::Span<msg::LivoxPoint>(points);
  return m;
}

std::vector<std::uint8_t> write_livox_custom_msg(const msg::LivoxCustomMsg& m) {
  CdrWriter w;
  write_header(w, m.header);
  w.u64(m.timebase);
  w.u32(m.point_num);
  w.u8(m.lidar_id);
  for (auto b : m.rsvd) w.u8(b);
  w.u32(static_cast<std::uint32_t>(m.points.size()));
  for (const auto& p : m.points) {
    w.u32(p.offset_time);
    w.f32(p.x);
    w.f32(p.y);
    w.f32(p.z);
    w.u8(p.reflectivity);
    w.u8(p.tag);
    w.u8(p.line);
  }
  return w.take();
}

msg::Image read_image(msg::Span<std::uint8_t> cdr) {
  CdrReader r(cdr);
  msg::Image m;
  m.header = read_header(r);
  m.height = r.u32("height");
  m.width = r.u32("width");
  m.encoding = r.string("encoding");
  m.is_bigendian = r.u8("is_bigendian") != 0;
  m.step = r.u32("step");
  m.data = read_byte_sequence(r, "data");
  return m;
}

std::vector<std::uint8_t> write_image(const msg::Image& m) {
  CdrWriter w;
  write_header(w, m.header);
  w.u32(m.height);
  w.u32(m.width);
  w.string(m.encoding);
  w.u8(m.is_bigendian ? 1 : 0);
  w.u32(m.step);
  write_byte_sequence(w, m.data);
  return w.take();
}

msg::CompressedImage read_compressed_image(msg::Span<std::uint8_t> cdr) {
  CdrReader r(cdr);
  msg::CompressedImage m;
  m.header = read_header(r);
  m.format = r.string("format");
  m.data = read_byte_sequence(r, "data");
  return m;
}

std::vector<std::uint8_t> write_compressed_image(const msg::CompressedImage& m) {
  CdrWriter w;
  write_header(w, m.header);
  w.string(m.format);
  write_byte_sequence(w, m.data);
  return w.take();
}

// ---- definitions ----------------------------------------------------------------------------------

namespace {

const std::string kSeparator = std::string(80, '=') + "\n";

std::string dependency(const char* name, const char* text) { return kSeparator + "MSG: " + name + "\n" + text; }

const char* kHeader = "builtin_interfaces/Time stamp\nstring frame_id\n";
const char* kTime = "int32 sec\nuint32 nanosec\n";

const std::map<std::string, std::string>& definitions() {
  static const std::map<std::string, std::string> defs = [] {
    std::map<std::string, std::string> d;
    const std::string header = dependency("std_msgs/Header", kHeader) + dependency("builtin_interfaces/Time", kTime);
    d[type_names::kPointCloud2] =
      std::string("std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\nuint32 point_step\n"
                  "uint32 row_step\nuint8[] data\nbool is_dense\n") +
      header +
      dependency("sensor_msgs/PointField",
                 "uint8 INT8 = 1\nuint8 UINT8 = 2\nuint8 INT16 = 3\nuint8 UINT16 = 4\nuint8 INT32 = 5\nuint8 UINT32 = 6\nuint8 FLOAT32 = 7\n"
                 "uint8 FLOAT64 = 8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n");
    d[type_names::kImu] = std::string(
                            "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n"
                            "geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n"
                            "geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n") +
                          header + dependency("geometry_msgs/Quaternion", "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n") +
                          dependency("geometry_msgs/Vector3", "float64 x\nfloat64 y\nfloat64 z\n");
    d[type_names::kImage] =
      std::string("std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n") + header;
    d[type_names::kCompressedImage] = std::string("std_msgs/Header header\nstring format\nuint8[] data\n") + header;
    d[type_names::kLivoxCustomMsg] =
      std::string("std_msgs/Header header\nuint64 timebase\nuint32 point_num\nuint8 lidar_id\nuint8[3] rsvd\nCustomPoint[] points\n") + header +
      dependency("livox_ros_driver2/CustomPoint", "uint32 offset_time\nfloat32 x\nfloat32 y\nfloat32 z\nuint8 reflectivity\nuint8 tag\nuint8 line\n");
    return d;
  }();
  return defs;
}

/// (type, name) of each field of the top-level message; types without their package.
std::vector<std::pair<std::string, std::string>> top_level_fields(const std::string& definition) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::istringstream in(definition);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("====", 0) == 0) break;  // the dependencies start
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string type, name;
    if (!(words >> type >> name)) continue;
    if (name.find('=') != std::string::npos) continue;  // a constant: NAME=value
    std::string next;
    if (words >> next && next[0] == '=') continue;      // a constant: NAME = value
    if (const auto slash = type.rfind('/'); slash != std::string::npos) type.erase(0, slash + 1);
    fields.emplace_back(type, name);
  }
  return fields;
}

}  // namespace

const std::string& definition_of(const std::string& type) {
  static const std::string none;
  const auto found = definitions().find(type);
  return found == definitions().end() ? none : found->second;
}

std::string check_definition(const std::string& type, const std::string& definition) {
  const std::string& ours = definition_of(type);
  if (ours.empty() || definition.empty()) return "";
  const auto expected = top_level_fields(ours);
  const auto stored = top_level_fields(definition);
  auto describe = [](const std::vector<std::pair<std::string, std::string>>& fields) {
    std::string s;
    for (const auto& [t, n] : fields) s += (s.empty() ? "" : ", ") + t + " " + n;
    return s;
  };
  if (expected != stored) {
    return fmt::format("the bag's definition of {} has the fields ({}) but asuka reads ({})", type, describe(stored), describe(expected));
  }
  return "";
}

}  // namespace asuka::bag
