#include "cloud_preprocess.hpp"

#include <cmath>

namespace asuka::fastlio {

Frame::Ptr FastlioCloudPreprocess::preprocess(const Frame& raw) const {
  auto out = std::make_shared<Frame>();
  out->stamp = raw.stamp;
  out->lidar_type = raw.lidar_type;
  out->has_point_time = raw.has_point_time;
  if (raw.points.empty()) return out;  // R-PRE-5
  out->points.reserve(raw.points.size() / static_cast<std::size_t>(params_.point_filter_num) + 1);
  const double min2 = params_.min_distance * params_.min_distance;
  const double max2 = params_.max_distance * params_.max_distance;
  auto in_window = [&](const Point& p) {
    const double r = p.range();
    const double r2 = r * r;
    return r2 >= min2 && r2 <= max2;
  };

  if (raw.lidar_type == LidarType::LIVOX) {
    // R-PRE-3, in the documented order: line, tag, decimation by the count of points that passed so
    // far, distance window, duplicate of the previous *kept* point (the original compared with the
    // previous raw slot, which may be an empty placeholder - fixed here).
    std::size_t valid = 0;
    bool has_previous = false;
    for (const auto& p : raw.points) {
      if (p.line >= params_.scan_line) continue;
      const std::uint8_t return_tag = p.tag & 0x30;
      if (return_tag != 0x10 && return_tag != 0x00) continue;  // keep first and unspecified returns
      if (!p.is_finite()) continue;
      if (valid++ % static_cast<std::size_t>(params_.point_filter_num) != 0) continue;
      if (!in_window(p)) continue;
      if (has_previous) {
        const Point& q = out->points.back();
        if (std::fabs(p.x - q.x) < 1e-7f && std::fabs(p.y - q.y) < 1e-7f && std::fabs(p.z - q.z) < 1e-7f) continue;
      }
      out->points.push_back(p);
      has_previous = true;
    }
    return out;
  }

  // Spinning lidars and the rest: decimation by the raw index, finite check, distance window.
  for (std::size_t i = 0; i < raw.points.size(); ++i) {
    if (i % static_cast<std::size_t>(params_.point_filter_num) != 0) continue;
    const auto& p = raw.points[i];
    if (!p.is_finite() || !in_window(p)) continue;
    out->points.push_back(p);
  }
  return out;
}

}  // namespace asuka::fastlio
