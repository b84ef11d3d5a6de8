#include <asuka/messages/cloud_decoder.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace asuka::msg {

namespace {

double stamp_of(const Stamp& t) { return t.seconds(); }

std::string where(const Header& header) { return fmt::format("stamp {:.6f}, frame_id '{}'", stamp_of(header.stamp), header.frame_id); }

}  // namespace

std::size_t point_field_size(std::uint8_t datatype) {
  switch (datatype) {
    case PointField::INT8:
    case PointField::UINT8:
      return 1;
    case PointField::INT16:
    case PointField::UINT16:
      return 2;
    case PointField::INT32:
    case PointField::UINT32:
    case PointField::FLOAT32:
      return 4;
    case PointField::FLOAT64:
      return 8;
    default:
      return 0;
  }
}

namespace {

const char* datatype_name(std::uint8_t datatype) {
  static const char* names[] = {"?", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
  return datatype <= 8 ? names[datatype] : "unknown";
}

/// A field located in the point record, read as double whatever its datatype.
struct FieldReader {
  std::uint32_t offset = 0;
  std::uint8_t datatype = 0;

  template <typename T>
  static T load(const std::uint8_t* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));  // unaligned-safe
    return value;
  }

  double read(const std::uint8_t* point) const {
    const std::uint8_t* p = point + offset;
    switch (datatype) {
      case PointField::INT8:
        return load<std::int8_t>(p);
      case PointField::UINT8:
        return load<std::uint8_t>(p);
      case PointField::INT16:
        return load<std::int16_t>(p);
      case PointField::UINT16:
        return load<std::uint16_t>(p);
      case PointField::INT32:
        return load<std::int32_t>(p);
      case PointField::UINT32:
        return load<std::uint32_t>(p);
      case PointField::FLOAT32:
        return static_cast<double>(load<float>(p));
      case PointField::FLOAT64:
        return load<double>(p);
      default:
        return std::numeric_limits<double>::quiet_NaN();
    }
  }
};

const PointField* find_field(const PointCloud2& msg, const std::string& name) {
  for (const auto& f : msg.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string field_list(const PointCloud2& msg) {
  std::string list;
  for (const auto& f : msg.fields) list += (list.empty() ? "" : ", ") + f.name + ":" + datatype_name(f.datatype);
  return list.empty() ? "none" : list;
}

float clamp_offset(double offset_ms) { return static_cast<float>(offset_ms); }

/// The 1st and 99th percentile of the kept raw times (the minimum and maximum for 101 points or fewer).
std::pair<double, double> robust_bounds(const std::vector<double>& raw, const std::vector<char>& keep) {
  std::vector<double> v;
  v.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (keep[i]) v.push_back(raw[i]);
  }
  const std::size_t n = v.size();
  const auto lo = static_cast<std::ptrdiff_t>(std::floor(0.01 * static_cast<double>(n - 1)));
  const auto hi = static_cast<std::ptrdiff_t>(std::ceil(0.99 * static_cast<double>(n - 1)));
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double low = v[static_cast<std::size_t>(lo)];
  std::nth_element(v.begin(), v.begin() + hi, v.end());
  return {low, v[static_cast<std::size_t>(hi)]};
}

}  // namespace

DecodedImu decode_imu(const Imu& msg) {
  DecodedImu out;
  asuka::ImuData imu;
  imu.stamp = stamp_of(msg.header.stamp);
  imu.acc = Eigen::Vector3d(msg.linear_acceleration[0], msg.linear_acceleration[1], msg.linear_acceleration[2]);
  imu.gyro = Eigen::Vector3d(msg.angular_velocity[0], msg.angular_velocity[1], msg.angular_velocity[2]);
  if (!imu.acc.allFinite() || !imu.gyro.allFinite()) {
    out.error = DecodeIssue{"non_finite_imu", fmt::format("IMU message at {} has non-finite acceleration or angular velocity; skipped", where(msg.header))};
    return out;
  }
  out.imu = imu;
  return out;
}

CloudDecoder::CloudDecoder(asuka::LidarType lidar_type, const PointTimeOptions& options) : lidar_type_(lidar_type), options_(options) {}

bool CloudDecoder::take_new_convention() {
  const bool is_new = convention_is_new_;
  convention_is_new_ = false;
  return is_new;
}

DecodedFrame CloudDecoder::decode(const PointCloud2& msg) {
  DecodedFrame out;
  const double header_stamp = stamp_of(msg.header.stamp);
  const std::size_t count = static_cast<std::size_t>(msg.width) * msg.height;
  out.points_in = count;
  auto fail = [&](const std::string& kind, const std::string& text) {
    out.error = DecodeIssue{kind, fmt::format("PointCloud2 at {}: {}; skipped", where(msg.header), text)};
    return out;
  };

  if (msg.is_bigendian) return fail("big_endian", "big-endian data is not supported (expected little-endian)");
  if (count == 0) return fail("empty_cloud", "the cloud has no points");
  if (msg.point_step == 0) return fail("bad_layout", "point_step is 0");
  const std::size_t row_step = msg.row_step != 0 ? msg.row_step : static_cast<std::size_t>(msg.point_step) * msg.width;
  if (row_step < static_cast<std::size_t>(msg.point_step) * msg.width) {
    return fail("bad_layout", fmt::format("row_step {} is smaller than width {} x point_step {}", row_step, msg.width, msg.point_step));
  }
  const std::size_t needed = row_step * (msg.height - 1) + static_cast<std::size_t>(msg.point_step) * msg.width;
  if (msg.data.size() < needed) {
    return fail("truncated", fmt::format("data holds {} bytes but {} points need {}", msg.data.size(), count, needed));
  }
  // #12: a point_step too small for the data read every point from the wrong bytes (garbage, not an
  // error). Two symptoms of a wrong layout: a field that does not fit in point_step, and more data
  // than height x row_step. Either makes the whole cloud unreadable.
  for (const auto& field : msg.fields) {
    const std::size_t size = point_field_size(field.datatype) * std::max<std::size_t>(1, field.count);
    if (size != 0 && field.offset + size > msg.point_step) {
      return fail("bad_layout", fmt::format("field '{}' ({} at offset {}) does not fit in point_step {}: the layout is wrong (fields: {})", field.name,
                                            datatype_name(field.datatype), field.offset, msg.point_step, field_list(msg)));
    }
  }
  if (msg.data.size() > row_step * msg.height) {
    return fail("bad_layout", fmt::format("data holds {} bytes but height {} x row_step {} is {}: point_step {} or row_step does not match the data "
                                          "(fields: {})",
                                          msg.data.size(), msg.height, row_step, row_step * msg.height, msg.point_step, field_list(msg)));
  }

  auto locate = [&](const std::string& name, FieldReader& reader, std::string& problem) -> bool {
    const auto* f = find_field(msg, name);
    if (f == nullptr) return false;
    const std::size_t size = point_field_size(f->datatype);
    if (size == 0) {
      problem = fmt::format("field '{}' has unknown datatype {}", name, f->datatype);
      return false;
    }
    if (f->offset + size > msg.point_step) {
      problem = fmt::format("field '{}' ({} at offset {}) does not fit in point_step {}", name, datatype_name(f->datatype), f->offset, msg.point_step);
      return false;
    }
    reader.offset = f->offset;
    reader.datatype = f->datatype;
    return true;
  };

  FieldReader x, y, z;
  for (auto [name, reader] : {std::pair<const char*, FieldReader*>{"x", &x}, {"y", &y}, {"z", &z}}) {
    std::string problem;
    if (!locate(name, *reader, problem)) {
      return fail(problem.empty() ? "missing_field" : "bad_layout",
                  problem.empty() ? fmt::format("required field '{}' is missing (fields: {})", name, field_list(msg)) : problem);
    }
    if (reader->datatype != PointField::FLOAT32 && reader->datatype != PointField::FLOAT64) {
      return fail("wrong_datatype", fmt::format("field '{}' is {}, expected float32 or float64", name, datatype_name(reader->datatype)));
    }
  }

  FieldReader intensity, ring, line, tag, time;
  std::string problem;
  const bool has_intensity = locate("intensity", intensity, problem) || locate("reflectivity", intensity, problem);
  const bool has_ring = locate("ring", ring, problem);
  const bool has_line = locate("line", line, problem);
  const bool has_tag = locate("tag", tag, problem);

  std::string time_name;
  if (!options_.field.empty()) {
    if (locate(options_.field, time, problem)) time_name = options_.field;
  } else {
    for (const auto& candidate : default_time_fields()) {
      if (locate(candidate, time, problem)) {
        time_name = candidate;
        break;
      }
    }
  }
  if (!problem.empty()) out.warnings.push_back(DecodeIssue{"bad_layout", fmt::format("PointCloud2 at {}: {}; field ignored", where(msg.header), problem)});
  if (time_name.empty() && lidar_type_ != asuka::LidarType::INSTANTANEOUS && lidar_type_ != asuka::LidarType::ROBOSENSE) {
    out.warnings.push_back(DecodeIssue{
      "missing_point_time", fmt::format("PointCloud2 at {}: no per-point time field ({}{}); points get the header time, so motion is not de-skewed",
                                        where(msg.header), options_.field.empty() ? "tried timestamp, time, t, offset_time, time_stamp" : "configured '" + options_.field + "'",
                                        fmt::format("; fields: {}", field_list(msg)))});
  }
  time_field_ = time_name;

  // Pass 1: raw times of the finite points, for the convention and the frame start.
  auto point_at = [&](std::size_t i) { return msg.data.data() + (i / msg.width) * row_step + (i % msg.width) * msg.point_step; };
  std::vector<double> raw_time(time_name.empty() ? 0 : count);
  std::vector<char> keep(count, 1);
  std::size_t non_finite = 0;
  double raw_min = std::numeric_limits<double>::infinity();
  double raw_max = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* p = point_at(i);
    const double px = x.read(p), py = y.read(p), pz = z.read(p);
    double t = 0.0;
    if (!time_name.empty()) t = raw_time[i] = time.read(p);
    if (!std::isfinite(px) || !std::isfinite(py) || !std::isfinite(pz) || !std::isfinite(t)) {
      keep[i] = 0;
      ++non_finite;
      continue;
    }
    if (!time_name.empty()) {
      raw_min = std::min(raw_min, t);
      raw_max = std::max(raw_max, t);
    }
  }
  if (non_finite == count) return fail("non_finite_points", fmt::format("all {} points have non-finite coordinates or time", count));
  if (non_finite > 0) {
    out.warnings.push_back(DecodeIssue{"non_finite_points", fmt::format("PointCloud2 at {}: dropped {} of {} points with non-finite coordinates or time",
                                                                        where(msg.header), non_finite, count)});
  }

  double start = header_stamp;
  double scale = 0.0;
  bool relative = true;
  if (!time_name.empty()) {
    // #12 item 8: the convention is decided on robust bounds (1st and 99th percentile), so that one
    // wild point in the first cloud cannot switch the whole topic to another unit; later clouds are
    // re-checked now and then, and a disagreement is warned about (the decision stays).
    const bool recheck = convention_ && ++clouds_since_check_ >= kRecheckEvery;
    if (!convention_ || recheck) {
      const auto [lo, hi] = robust_bounds(raw_time, keep);
      auto detected = detect_point_time(header_stamp, lo, hi, options_);
      if (!convention_) {
        convention_ = detected;
        convention_->reason = "topic time field '" + time_name + "': " + convention_->reason;
        convention_is_new_ = true;
      } else {
        clouds_since_check_ = 0;
        if (detected.unit != convention_->unit || detected.reference != convention_->reference) {
          out.warnings.push_back(DecodeIssue{
            "point_time_changed",
            fmt::format("PointCloud2 at {}: its per-point times read as {} {} ({}), not as the {} {} decided on the topic's first cloud; kept {} {} "
                        "(a driver restarted in another mode, or an unusual first cloud: config_ros point_time.unit / point_time.reference force one)",
                        where(msg.header), to_string(detected.reference), to_string(detected.unit), detected.reason, to_string(convention_->reference),
                        to_string(convention_->unit), to_string(convention_->reference), to_string(convention_->unit))});
        }
      }
    }
    scale = seconds_per(convention_->unit);
    relative = convention_->reference == TimeReference::RELATIVE;
    start = relative ? header_stamp + raw_min * scale : raw_min * scale;
  }

  auto frame = std::make_shared<asuka::LidarFrame>();
  frame->stamp = start;
  frame->lidar_type = lidar_type_;
  frame->has_point_time = !time_name.empty();
  frame->points.reserve(count - non_finite);
  for (std::size_t i = 0; i < count; ++i) {
    if (!keep[i]) continue;
    const std::uint8_t* p = point_at(i);
    asuka::Point pt;
    pt.x = static_cast<float>(x.read(p));
    pt.y = static_cast<float>(y.read(p));
    pt.z = static_cast<float>(z.read(p));
    if (has_intensity) pt.intensity = static_cast<float>(intensity.read(p));
    if (has_ring) pt.ring = static_cast<std::uint16_t>(ring.read(p));
    if (has_line) pt.line = static_cast<std::uint8_t>(line.read(p));
    if (has_tag) pt.tag = static_cast<std::uint8_t>(tag.read(p));
    // Offsets from the raw values directly: (t - t_min) * scale keeps full precision even when the
    // absolute times are nanoseconds since 1970.
    if (!time_name.empty()) pt.offset_ms = clamp_offset((raw_time[i] - raw_min) * scale * 1e3);
    frame->points.push_back(pt);
  }
  out.frame = std::move(frame);
  return out;
}

DecodedFrame CloudDecoder::decode(const LivoxCustomMsg& msg) {
  DecodedFrame out;
  out.points_in = msg.points.size();
  if (msg.points.empty()) {
    out.error = DecodeIssue{"empty_cloud", fmt::format("Livox CustomMsg at {}: the cloud has no points; skipped", where(msg.header))};
    return out;
  }
  if (msg.point_num != msg.points.size()) {
    out.warnings.push_back(DecodeIssue{"point_count_mismatch", fmt::format("Livox CustomMsg at {}: point_num {} but {} points; using the points",
                                                                           where(msg.header), msg.point_num, msg.points.size())});
  }
  std::uint32_t min_offset = std::numeric_limits<std::uint32_t>::max();
  std::size_t non_finite = 0;
  for (const auto& p : msg.points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      ++non_finite;
      continue;
    }
    min_offset = std::min(min_offset, p.offset_time);
  }
  if (non_finite == msg.points.size()) {
    out.error = DecodeIssue{"non_finite_points", fmt::format("Livox CustomMsg at {}: all {} points are non-finite; skipped", where(msg.header), non_finite)};
    return out;
  }
  if (non_finite > 0) {
    out.warnings.push_back(DecodeIssue{"non_finite_points", fmt::format("Livox CustomMsg at {}: dropped {} of {} non-finite points", where(msg.header),
                                                                        non_finite, msg.points.size())});
  }
  // Fixed by the message definition; kept apart from the PointCloud2 convention, which it must not
  // lock (a topic may switch layouts, e.g. a driver restarted in another mode).
  if (!livox_convention_) {
    livox_convention_ = PointTimeConvention{TimeUnit::NANOSECONDS, TimeReference::ABSOLUTE, "Livox CustomMsg: timebase + offset_time, both ns (by definition)"};
    convention_is_new_ = true;
  }
  time_field_ = "offset_time";

  auto frame = std::make_shared<asuka::LidarFrame>();
  // Integer ns until the subtraction: timebase (~1.7e18) does not fit a double exactly.
  frame->stamp = static_cast<double>(msg.timebase / 1000000000ULL) + static_cast<double>(msg.timebase % 1000000000ULL + min_offset) * 1e-9;
  frame->lidar_type = asuka::LidarType::LIVOX;
  frame->has_point_time = true;
  frame->points.reserve(msg.points.size() - non_finite);
  for (const auto& p : msg.points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    asuka::Point pt;
    pt.x = p.x;
    pt.y = p.y;
    pt.z = p.z;
    pt.intensity = p.reflectivity;
    pt.line = p.line;
    pt.tag = p.tag;
    pt.offset_ms = static_cast<float>(static_cast<double>(p.offset_time - min_offset) * 1e-6);
    frame->points.push_back(pt);
  }
  out.frame = std::move(frame);
  return out;
}


}  // namespace asuka::msg
