#include <asuka/lio/default_cloud_preprocessor.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>

namespace asuka::lio {

namespace {
template <typename T>
T clamped(const Config& c, const std::string& key, T value, T lowest, const char* why) {
  if (value >= lowest) return value;
  module_logger("preprocess")->warn("{}: preprocess.{} = {} is {}; using {} (R-PRE-1)", c.name(), key, value, why, lowest);
  return lowest;
}
}  // namespace

PreprocessParams PreprocessParams::from_config(const Config& c) {
  PreprocessParams p;
  p.min_distance = c.get<double>("preprocess.min_distance", p.min_distance);
  p.max_distance = clamped(c, "max_distance", c.get<double>("preprocess.max_distance", p.max_distance), 0.0, "negative");
  p.point_filter_num = clamped(c, "point_filter_num", c.get<int>("preprocess.point_filter_num", p.point_filter_num), 1, "below 1");
  p.scan_line = clamped(c, "scan_line", c.get<int>("preprocess.scan_line", p.scan_line), 1, "below 1");
  p.scan_rate = c.get_in_range("preprocess.scan_rate", p.scan_rate, 0.1, 1000.0);
  p.decimate_per_ring = c.get<bool>("preprocess.decimate_per_ring", p.decimate_per_ring);
  return p;
}

DefaultCloudPreprocessor::DefaultCloudPreprocessor(const PreprocessParams& params) : params_(params), logger_(module_logger("preprocess")) {}

bool DefaultCloudPreprocessor::in_window(const Point& p) const {
  const double r = p.range();
  return r >= params_.min_distance && r <= params_.max_distance;
}

LidarFrame::Ptr DefaultCloudPreprocessor::preprocess(const LidarFrame& raw) const {
  LidarFrame::Ptr out = raw.lidar_type == LidarType::LIVOX ? livox(raw) : spinning(raw);
  if (out->has_point_time) {
    float latest = 0.0f;
    if (const std::size_t dropped = drop_time_outliers(*out, &latest); dropped > 0) {
      const std::uint64_t frames = ++time_outlier_frames_;
      if (frames <= 3 || frames % 100 == 0) {
        logger_->warn("frame at {:.6f}: {} point(s) with a time far beyond the rest of the sweep (up to {:.3f} s after the frame stamp) dropped "
                      "({} such frames so far; a driver's bad per-point time)",
                      out->stamp, dropped, static_cast<double>(latest) * 1e-3, frames);
      }
    }
  }
  return out;
}

std::size_t DefaultCloudPreprocessor::drop_time_outliers(LidarFrame& frame, float* latest_offset_ms) {
  auto& points = frame.points;
  if (points.size() < 20) return 0;
  float latest = 0.0f;
  double sum = 0.0;
  for (const auto& p : points) {
    latest = std::max(latest, p.offset_ms);
    sum += static_cast<double>(p.offset_ms);
  }
  if (latest_offset_ms != nullptr) *latest_offset_ms = latest;
  const double mean = sum / static_cast<double>(points.size());
  // Times spread over a sweep put the maximum near twice the mean; a lone late point does not move
  // the mean. Only then is the percentile worth computing.
  if (static_cast<double>(latest) <= 3.0 * mean + 5.0) return 0;
  std::vector<float> offsets;
  offsets.reserve(points.size());
  for (const auto& p : points) offsets.push_back(p.offset_ms);
  const auto k = static_cast<std::ptrdiff_t>(static_cast<double>(offsets.size() - 1) * 0.99);
  std::nth_element(offsets.begin(), offsets.begin() + k, offsets.end());
  const float limit = 1.5f * offsets[static_cast<std::size_t>(k)] + 5.0f;
  const std::size_t before = points.size();
  points.erase(std::remove_if(points.begin(), points.end(), [&](const Point& p) { return p.offset_ms > limit; }), points.end());
  return before - points.size();
}

LidarFrame::Ptr DefaultCloudPreprocessor::livox(const LidarFrame& raw) const {
  auto out = std::make_shared<LidarFrame>();
  out->stamp = raw.stamp;
  out->lidar_type = raw.lidar_type;
  out->has_point_time = raw.has_point_time;
  if (raw.points.empty()) return out;  // R-PRE-5
  out->points.reserve(raw.points.size() / static_cast<std::size_t>(params_.point_filter_num) + 1);
  // R-PRE-3, in the documented order: line, tag, decimation by the count of points that passed so
  // far, distance window, duplicate of the previous point. The original compares with the previous
  // *raw slot*, which holds a zero placeholder when that point was filtered, so its check often does
  // nothing; we compare with the previous *kept* point. Non-finite points are dropped as on the
  // Robosense path (the original has no such check here).
  std::size_t valid = 0;
  for (const auto& p : raw.points) {
    if (p.line >= params_.scan_line) continue;
    const std::uint8_t return_tag = p.tag & 0x30;
    if (return_tag != 0x10 && return_tag != 0x00) continue;  // keep first and unspecified returns
    if (!p.is_finite()) continue;
    if (valid++ % static_cast<std::size_t>(params_.point_filter_num) != 0) continue;
    if (!in_window(p)) continue;
    if (!out->points.empty()) {
      const Point& q = out->points.back();
      if (std::fabs(p.x - q.x) < 1e-7f && std::fabs(p.y - q.y) < 1e-7f && std::fabs(p.z - q.z) < 1e-7f) continue;
    }
    out->points.push_back(p);
  }
  return out;
}

LidarFrame::Ptr DefaultCloudPreprocessor::spinning(const LidarFrame& raw) const {
  auto out = std::make_shared<LidarFrame>();
  out->stamp = raw.stamp;
  out->lidar_type = raw.lidar_type;
  out->has_point_time = raw.has_point_time;
  if (raw.points.empty()) return out;  // R-PRE-5

  // R-PRE-4: Robosense frames carry their own time when the last point has one (> 0 ms from the
  // head); otherwise the time is rebuilt from yaw. Other spinning lidars always carry time (the
  // decoder refuses them without a time field).
  const std::vector<Point>* points = &raw.points;
  std::vector<Point> rebuilt;
  const bool rebuild = raw.lidar_type == LidarType::ROBOSENSE && !(raw.has_point_time && raw.points.back().offset_ms > 0.0f);
  if (rebuild) {
    rebuilt = raw.points;
    const std::size_t untimed = rebuild_time_from_yaw(rebuilt, params_.scan_line, params_.scan_rate);
    if (untimed > 0 && !warned_rings_.exchange(true)) {
      logger_->warn("Robosense frame at {:.6f} without point time: {} of {} points lie on rings >= preprocess.scan_line ({}) or are not "
                    "finite and get no time; they are dropped (set preprocess.scan_line to the sensor's ring count)",
                    raw.stamp, untimed, raw.points.size(), params_.scan_line);
    }
    points = &rebuilt;
    out->has_point_time = true;
  }

  // Decimation (along each ring, or by the raw index), finite check, distance window.
  const auto n = static_cast<std::size_t>(params_.point_filter_num);
  out->points.reserve(points->size() / n + 1);
  std::vector<std::size_t> along_ring;  // points seen so far on each ring
  for (std::size_t i = 0; i < points->size(); ++i) {
    const Point& p = (*points)[i];
    if (params_.decimate_per_ring) {
      if (p.ring >= along_ring.size()) along_ring.resize(static_cast<std::size_t>(p.ring) + 1, 0);
      if (along_ring[p.ring]++ % n != 0) continue;
    } else if (i % n != 0) {
      continue;
    }
    if (!p.is_finite() || !in_window(p)) continue;
    if (rebuild && p.offset_ms < 0.0f) continue;
    out->points.push_back(p);
  }
  return out;
}

std::size_t DefaultCloudPreprocessor::rebuild_time_from_yaw(std::vector<Point>& points, int scan_line, double scan_rate) {
  constexpr double kRadToDeg = 180.0 / M_PI;
  // 360 deg per 1/scan_rate s; R-PRE-4 specifies 0.361 x scan_rate deg/ms (0.1 % above 0.36, so a
  // full turn takes slightly less than a period and a frame's last point stays inside it).
  const double omega = 0.361 * scan_rate;  // [deg/ms]
  const double turn_ms = 360.0 / omega;
  const std::size_t rings = static_cast<std::size_t>(std::max(1, scan_line));
  std::vector<bool> seen(rings, false);
  std::vector<double> first_yaw(rings, 0.0), last_time(rings, 0.0);
  std::size_t untimed = 0;
  for (auto& p : points) {
    if (p.ring >= rings || !p.is_finite()) {
      p.offset_ms = -1.0f;
      ++untimed;
      continue;
    }
    const double yaw = std::atan2(static_cast<double>(p.y), static_cast<double>(p.x)) * kRadToDeg;
    const std::size_t r = p.ring;
    if (!seen[r]) {
      seen[r] = true;
      first_yaw[r] = yaw;
      last_time[r] = 0.0;
      p.offset_ms = 0.0f;
      continue;
    }
    // Clockwise: yaw decreases with time. A yaw above the ring's first yaw has crossed the
    // -180/180 deg wrap (R-PRE-4's rule with the first yaw of the ring).
    double t = yaw <= first_yaw[r] ? (first_yaw[r] - yaw) / omega : (first_yaw[r] - yaw + 360.0) / omega;
    // Time on a ring never decreases. The original adds a full turn whenever the time would go
    // back, which turns a point that jitters a hundredth of a degree against the spin into one a
    // whole period later. We add a turn only when the time goes back by more than half a turn (the
    // ring really passed its start again) and otherwise hold the previous time; likewise a point
    // read as almost a full turn late while the ring has only begun is jitter at its start.
    if (t < last_time[r] - 0.5 * turn_ms) {
      t += turn_ms;
    } else if (t < last_time[r] || (t > last_time[r] + 0.5 * turn_ms && last_time[r] < 0.5 * turn_ms)) {
      t = last_time[r];
    }
    last_time[r] = t;
    p.offset_ms = static_cast<float>(t);
  }
  return untimed;
}

}  // namespace asuka::lio
