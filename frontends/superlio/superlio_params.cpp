#include "superlio_params.hpp"

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>

namespace asuka::superlio {

lio::FilterFrontendParams SuperlioParams::defaults() {
  lio::FilterFrontendParams p;
  p.end_rule = lio::ScanEndRule::LAST_POINT;  // R-SYNC-4, as FAST-LIO2
  p.measurement_std = 0.03;
  // Eight neighbours per plane, not FAST-LIO's five: with one point per 0.25 m subvoxel, five span
  // too small a patch on a spinning lidar's scan lines (docs/frontends/superlio.md: 15 s VLP-16
  // vehicle bag 65 cm with 5, 1.3 cm with 8).
  p.knn = 8;
  // #21: the projection is on, as in fastlio. It was off (measured worse) until the static start's
  // prior coupled gravity to the accel bias (nav_state.hpp); with the coupling it measured better on
  // the corridor (median ATE 127 -> 28 cm), the VLP-16 tunnel (16.8 -> 1.9 m) and the open field, and
  // slightly worse on the sparse-feature corridor (6.8 -> 8.4 cm; docs/degeneracy.md).
  // #14: planes reused per cell for ten scans (plane_cache.hpp): most points of a scan skip the k-NN
  // and the fits (docs/frontends/superlio.md, "The plane cache"). The cell is the map voxel unless
  // mapping.plane_cache_cell is set (from_config).
  p.plane_cache_scans = 10;
  return p;
}

SuperlioParams SuperlioParams::from_config(const Config& c) {
  SuperlioParams p;
  p.filter = lio::IeskfParams::from_config(c, defaults(), lio::IeskfParams::with_mems_imu_noise());
  p.map.voxel_size = p.filter.common.map_voxel_size;
  if (!c.has("mapping.plane_cache_cell")) p.filter.common.plane_cache_cell = p.map.voxel_size;
  p.map.local_map_half_size = p.filter.common.local_map_half_size;
  p.map.fuse_points = c.get_in_range("mapping.fuse_points", p.map.fuse_points, 1, 255);
  if (c.has("mapping.map_min_point_distance")) {
    // Read by the shared keys (VoxelMap's down-sampling); OctVox's density is its subvoxel.
    module_logger("superlio")->warn(
        "mapping.map_min_point_distance has no effect in superlio: its OctVox map keeps one point per subvoxel of half "
        "mapping.map_voxel_size ({} m); set mapping.map_voxel_size to change the map's density",
        p.map.voxel_size / 2.0);
  }
  return p;
}

}  // namespace asuka::superlio
