#pragma once
// The coloured point map of srlivo (SR-LIVO, Yuan et al., RA-L 2024, whose visual side follows R3LIVE's
// frame-to-map photometric update, Lin and Zhang, ICRA 2022): LiDAR points kept one per voxel of
// `point_spacing`, each carrying a radiance (grey, for the photometric update), a colour (rgb, for
// the map) and the radiance's variance, fused over the images that saw it.
//
// Colours are radiances: an image's grey level times its inverse exposure tau (the first image used
// fixes the gauge at 1), so images of different exposures agree on a surface. Fusion is a scalar
// Kalman filter per point: between observations the variance grows by `colour_drift` per second (a
// surface's appearance changes with light and view; without it old colours would never give way), an
// observation has the variance the frontend gives it, and the rgb colour is fused with the same gains.
//
// A point keeps the position of the first LiDAR return in its voxel: the colour belongs to that
// position, so every image must sample the same spot of the surface.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <asuka/lio/voxel_table.hpp>

namespace asuka::visual {

struct ColourPoint {
  lio::VoxelKey key{0, 0, 0};
  Eigen::Vector3f position = Eigen::Vector3f::Zero();  ///< [m] world
  Eigen::Vector3f rgb = Eigen::Vector3f::Zero();       ///< [0, 255] radiance per channel
  float radiance = 0.0f;       ///< [grey] the grey radiance the photometric update compares against
  float variance = 0.0f;       ///< [grey^2] of `radiance` at `time`; meaningless while observations == 0
  float time = 0.0f;           ///< [s] of the last fusion, relative to the map's first observation
  std::uint32_t frame = 0;     ///< the last frame that touched it (the frontend's counter; dedupe)
  std::uint16_t observations = 0;
};

struct ColourMapParams {
  double point_spacing = 0.1;          ///< [m] one point per voxel of this size
  double colour_drift = 4.0;           ///< [grey^2/s] growth of a colour's variance between observations
  double local_map_half_size = 150.0;  ///< [m] points outside this box around the sensor are dropped
};

class ColourMap {
public:
  explicit ColourMap(const ColourMapParams& params = {})
  : params_(params), inv_spacing_(static_cast<float>(1.0 / params.point_spacing)) {}

  /// The points holding `points_world` (added where a voxel has none), each once, in the order first
  /// met, appended to `ids`; points already marked with `frame` are not appended again.
  void insert(const std::vector<Eigen::Vector3d>& points_world, std::uint32_t frame, std::vector<std::size_t>& ids);

  /// The variance of the point's radiance at `time` [s, absolute]: its fused variance grown by the
  /// drift since its last observation.
  float variance_at(const ColourPoint& point, double time) const;
  /// Fuses one observation (grey radiance, rgb radiance, the observation's variance [grey^2]) at
  /// `time` [s, absolute].
  void fuse(ColourPoint& point, float radiance, const Eigen::Vector3f& rgb, float variance, double time);

  ColourPoint& at(std::size_t id) { return points_.at(id); }
  const ColourPoint& at(std::size_t id) const { return points_.at(id); }
  lio::VoxelTable<ColourPoint>::Range points() const { return points_.voxels(); }
  std::size_t size() const { return points_.size(); }
  std::size_t memory_bytes() const { return points_.memory_bytes(); }
  const ColourMapParams& params() const { return params_; }

  /// Drops the points outside the local box around `centre`; ids handed out before are invalid after
  /// (unless nothing was dropped). When the map's bounds lie inside the box nothing is read: a scan
  /// over the map and the table's rebuild cost tens of milliseconds at a few hundred thousand points.
  std::size_t remove_outside(const Eigen::Vector3d& centre);

private:
  ColourMapParams params_;
  float inv_spacing_;
  double time0_ = 0.0;
  bool has_time0_ = false;
  lio::VoxelTable<ColourPoint> points_;
  Eigen::Vector3f min_ = Eigen::Vector3f::Constant(1e30f), max_ = Eigen::Vector3f::Constant(-1e30f);  ///< [m] bounds of the points
};

}  // namespace asuka::visual
