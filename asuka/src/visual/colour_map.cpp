#include <asuka/visual/colour_map.hpp>

#include <algorithm>

namespace asuka::visual {

void ColourMap::insert(const std::vector<Eigen::Vector3d>& points_world, std::uint32_t frame, std::vector<std::size_t>& ids) {
  for (const auto& p : points_world) {
    const Eigen::Vector3f pf = p.cast<float>();
    std::size_t id = 0;
    ColourPoint& point = points_.find_or_add(lio::voxel_key(pf, inv_spacing_), &id);
    if (point.observations == 0 && point.frame == 0) {  // new: the first return is the point
      point.position = pf;
      min_ = min_.cwiseMin(pf);
      max_ = max_.cwiseMax(pf);
    }
    if (point.frame == frame) continue;
    point.frame = frame;
    ids.push_back(id);
  }
}

float ColourMap::variance_at(const ColourPoint& point, double time) const {
  const double elapsed = std::max(0.0, (time - time0_) - static_cast<double>(point.time));
  return point.variance + static_cast<float>(params_.colour_drift * elapsed);
}

void ColourMap::fuse(ColourPoint& point, float radiance, const Eigen::Vector3f& rgb, float variance, double time) {
  if (!has_time0_) {
    time0_ = time;
    has_time0_ = true;
  }
  if (point.observations == 0) {
    point.radiance = radiance;
    point.rgb = rgb;
    point.variance = variance;
  } else {
    const float prior = variance_at(point, time);
    const float gain = prior / (prior + variance);
    point.radiance += gain * (radiance - point.radiance);
    point.rgb += gain * (rgb - point.rgb);
    point.variance = (1.0f - gain) * prior;
  }
  point.time = static_cast<float>(time - time0_);
  if (point.observations < UINT16_MAX) ++point.observations;
}

std::size_t ColourMap::remove_outside(const Eigen::Vector3d& centre) {
  // Voxel centres are within half a spacing of their points: the box test on the bounds is conservative.
  const Eigen::Vector3f c = centre.cast<float>();
  const float h = static_cast<float>(params_.local_map_half_size - params_.point_spacing);
  if (points_.size() == 0 || (((min_ - c).array() >= -h).all() && ((max_ - c).array() <= h).all())) return 0;
  const std::size_t removed = points_.remove_outside(centre, params_.local_map_half_size, params_.point_spacing, [](const ColourPoint&) {});
  min_.setConstant(1e30f);
  max_.setConstant(-1e30f);
  for (const auto& point : points_.voxels()) {
    min_ = min_.cwiseMin(point.position);
    max_ = max_.cwiseMax(point.position);
  }
  return removed;
}

}  // namespace asuka::visual
