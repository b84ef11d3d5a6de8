#include <asuka_sim/sim_messages.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include <turbojpeg.h>

namespace asuka::sim {

namespace {

/// Packs PointCloud2 fields in order into `out`.
class CloudWriter {
public:
  explicit CloudWriter(CloudMessage& out) : out_(out) {}
  void field(const std::string& name, std::uint8_t datatype, std::uint32_t size) {
    out_.cloud.fields.push_back(msg::PointField{name, step_, datatype, 1});
    step_ += size;
  }
  void resize(std::size_t n) {
    auto& m = out_.cloud;
    m.height = 1;
    m.width = static_cast<std::uint32_t>(n);
    m.point_step = step_;
    m.row_step = step_ * m.width;
    m.is_dense = false;
    out_.data.assign(m.row_step, 0);
    m.data = msg::Span<std::uint8_t>(out_.data);
  }
  template <typename T>
  void set(std::size_t i, std::size_t field, T value) {
    std::memcpy(out_.data.data() + i * step_ + out_.cloud.fields[field].offset, &value, sizeof(T));
  }

private:
  CloudMessage& out_;
  std::uint32_t step_ = 0;
};

constexpr std::uint8_t F32 = msg::PointField::FLOAT32;
constexpr std::uint8_t F64 = msg::PointField::FLOAT64;
constexpr std::uint8_t U8 = msg::PointField::UINT8;
constexpr std::uint8_t U16 = msg::PointField::UINT16;
constexpr std::uint8_t U32 = msg::PointField::UINT32;

}  // namespace

msg::Stamp stamp_from_seconds(double seconds) {
  const double t = std::max(seconds, 0.0);  // as ros::Time::fromSec: whole seconds, then rounded ns
  msg::Stamp s;
  s.sec = static_cast<std::int64_t>(static_cast<std::uint32_t>(std::floor(t)));
  auto nsec = static_cast<std::uint32_t>(std::llround((t - static_cast<double>(s.sec)) * 1e9));
  s.sec += nsec / 1000000000u;
  s.nanosec = nsec % 1000000000u;
  return s;
}

msg::Stamp stamp_from_nanoseconds(std::uint64_t ns) {
  return msg::Stamp{static_cast<std::int64_t>(ns / 1000000000ULL), static_cast<std::uint32_t>(ns % 1000000000ULL)};
}

std::uint64_t record_time_ns(double seconds) {
  const auto s = stamp_from_seconds(seconds);
  return static_cast<std::uint64_t>(s.sec) * 1000000000ULL + s.nanosec;
}

CloudMessage cloud_message(const LidarModel& model, const SimParams& params, const SimFrame& f) {
  CloudMessage out;
  const auto& faults = params.faults;
  const bool has_time = !faults.no_point_time;
  // Integer nanoseconds: an absolute time of ~1.7e18 ns does not fit a double exactly.
  const std::uint64_t start_ns = static_cast<std::uint64_t>(f.clock0) * 1000000000ULL + static_cast<std::uint64_t>(std::llround(f.start * 1e9));

  if (model.format == CloudFormat::LIVOX && !params.livox_pointcloud2) {
    out.is_livox = true;
    auto& m = out.livox;
    m.header.stamp = stamp_from_nanoseconds(start_ns);
    m.header.frame_id = "livox_frame";
    m.timebase = start_ns;
    m.point_num = static_cast<std::uint32_t>(f.points.size());
    out.points.reserve(f.points.size());
    const double scale = faults.point_time_unit.empty() ? 1e9 : point_time_unit_scale(faults.point_time_unit);
    for (const auto& p : f.points) {
      msg::LivoxPoint q;
      q.offset_time = has_time ? static_cast<std::uint32_t>(std::llround(p.offset * scale)) : 0u;
      q.x = p.p_lidar.x();
      q.y = p.p_lidar.y();
      q.z = p.p_lidar.z();
      q.reflectivity = static_cast<std::uint8_t>(std::min(255.0f, p.intensity));
      q.line = static_cast<std::uint8_t>(p.ring);
      out.points.push_back(q);
    }
    m.points = msg::Span<msg::LivoxPoint>(out.points);
    return out;
  }

  CloudWriter w(out);
  w.field("x", F32, 4);
  w.field("y", F32, 4);
  w.field("z", F32, 4);
  w.field("intensity", F32, 4);
  std::size_t time_field = 0;
  double header = f.start;  // relative to clock0 until written
  switch (model.format) {
    case CloudFormat::LIVOX:  // PointXYZRTLT: tag, line, timestamp (absolute ns as float64)
      w.field("tag", U8, 1);
      w.field("line", U8, 1);
      if (has_time) w.field("timestamp", F64, 8), time_field = 6;
      break;
    case CloudFormat::VELODYNE:  // ring, time (float32 s relative to the header)
      w.field("ring", U16, 2);
      if (has_time) w.field("time", F32, 4), time_field = 5;
      if (params.header_at_end) header = f.start + f.period;
      break;
    case CloudFormat::OUSTER:  // t (uint32 ns from the scan start), reflectivity, ring, ambient, range
      if (has_time) w.field("t", U32, 4), time_field = 4;
      w.field("reflectivity", U16, 2);
      w.field("ring", U16, 2);
      w.field("ambient", U16, 2);
      w.field("range", U32, 4);
      break;
    case CloudFormat::ROBOSENSE:  // ring, timestamp (float64 absolute s)
      w.field("ring", U16, 2);
      if (has_time) w.field("timestamp", F64, 8), time_field = 5;
      if (params.header_at_end) header = f.start + f.period;
      break;
    case CloudFormat::HESAI:  // HesaiLidar_General_ROS: timestamp (float64 absolute s), then ring
      if (has_time) w.field("timestamp", F64, 8), time_field = 4;
      w.field("ring", U16, 2);
      if (params.header_at_end) header = f.start + f.period;
      break;
  }
  w.resize(f.points.size());
  const double wrong = faults.point_time_unit.empty() ? 0.0 : point_time_unit_scale(faults.point_time_unit);
  for (std::size_t i = 0; i < f.points.size(); ++i) {
    const auto& p = f.points[i];
    w.set<float>(i, 0, p.p_lidar.x());
    w.set<float>(i, 1, p.p_lidar.y());
    w.set<float>(i, 2, p.p_lidar.z());
    w.set<float>(i, 3, p.intensity);
    const double t_abs = static_cast<double>(f.clock0) + f.start + p.offset;
    switch (model.format) {
      case CloudFormat::LIVOX:
        w.set<std::uint8_t>(i, 4, 0);
        w.set<std::uint8_t>(i, 5, static_cast<std::uint8_t>(p.ring));
        if (has_time) w.set<double>(i, 6, wrong > 0.0 ? t_abs * wrong : static_cast<double>(start_ns) + p.offset * 1e9);
        break;
      case CloudFormat::VELODYNE:
        w.set<std::uint16_t>(i, 4, p.ring);
        if (has_time) w.set<float>(i, 5, static_cast<float>((f.start + p.offset - header) * (wrong > 0.0 ? wrong : 1.0)));
        break;
      case CloudFormat::OUSTER:
        if (has_time) w.set<std::uint32_t>(i, 4, static_cast<std::uint32_t>(std::llround(p.offset * (wrong > 0.0 ? wrong : 1e9))));
        w.set<std::uint16_t>(i, time_field == 4 ? 5 : 4, static_cast<std::uint16_t>(p.intensity));
        w.set<std::uint16_t>(i, time_field == 4 ? 6 : 5, p.ring);
        w.set<std::uint32_t>(i, time_field == 4 ? 8 : 7, static_cast<std::uint32_t>(p.p_lidar.norm() * 1000.0f));
        break;
      case CloudFormat::ROBOSENSE:
        w.set<std::uint16_t>(i, 4, p.ring);
        if (has_time) w.set<double>(i, 5, wrong > 0.0 ? t_abs * wrong : t_abs);
        break;
      case CloudFormat::HESAI:
        if (has_time) w.set<double>(i, 4, wrong > 0.0 ? t_abs * wrong : t_abs);
        w.set<std::uint16_t>(i, has_time ? 5 : 4, p.ring);
        break;
    }
  }
  auto& m = out.cloud;
  m.header.stamp = stamp_from_seconds(static_cast<double>(f.clock0) + header);
  m.header.frame_id = model.format == CloudFormat::OUSTER ? "os_sensor" : model.format == CloudFormat::LIVOX ? "livox_frame" : "lidar";
  return out;
}

msg::Imu imu_message(const ImuSample& s, const SimParams& params) {
  msg::Imu m;
  m.header.stamp = stamp_from_seconds(static_cast<double>(params.start_time) + s.measured.stamp + params.imu_time_offset);
  m.header.frame_id = "imu";
  const double scale = params.acc_in_g ? 1.0 / kGravity : 1.0;
  m.linear_acceleration = {s.measured.acc.x() * scale, s.measured.acc.y() * scale, s.measured.acc.z() * scale};
  m.angular_velocity = {s.measured.gyro.x(), s.measured.gyro.y(), s.measured.gyro.z()};
  m.orientation = {0.0, 0.0, 0.0, 0.0};  // as an empty ROS 1 message: no orientation estimate
  m.orientation_covariance[0] = -1.0;
  return m;
}

std::string camera_topic(const CameraSimParams& camera) { return camera.format == "jpeg" ? "/camera/image_raw/compressed" : "/camera/image_raw"; }

CameraMessage camera_message(const SimParams& params, const SimImage& image) {
  const auto& cam = params.camera;
  CameraMessage out;
  msg::Header header;
  header.stamp = stamp_from_seconds(static_cast<double>(image.clock0) + image.stamp);
  header.frame_id = "camera";
  if (cam.format != "jpeg") {
    out.data = image.pixels;
    auto& m = out.image;
    m.header = header;
    m.width = static_cast<std::uint32_t>(image.width);
    m.height = static_cast<std::uint32_t>(image.height);
    m.encoding = cam.wrong_encoding ? "yuv422" : image.channels == 3 ? "rgb8" : "mono8";
    m.step = static_cast<std::uint32_t>(image.width * image.channels);
    m.data = msg::Span<std::uint8_t>(out.data);
    return out;
  }
  out.compressed = true;
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const bool gray = image.channels == 1;
  const int rc = tjCompress2(handle, image.pixels.data(), image.width, 0, image.height, gray ? TJPF_GRAY : TJPF_RGB, &jpeg, &size,
                             gray ? TJSAMP_GRAY : TJSAMP_420, cam.jpeg_quality, TJFLAG_ACCURATEDCT);
  if (rc != 0) {
    const std::string why = tjGetErrorStr2(handle);
    tjDestroy(handle);
    throw std::runtime_error("JPEG encoding of image " + std::to_string(image.index) + " failed: " + why);
  }
  out.data.assign(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(handle);
  if (cam.corrupt_jpeg_every > 0 && (image.index + 1) % cam.corrupt_jpeg_every == 0) out.data.resize(out.data.size() / 2);  // fault: cut short
  out.compressed_image.header = header;
  out.compressed_image.format = "jpeg";
  out.compressed_image.data = msg::Span<std::uint8_t>(out.data);
  return out;
}

}  // namespace asuka::sim
