#pragma once
// Parameters of the superlio frontend (config_odometry_superlio.json; every key, unit and default is
// in docs/frontends/superlio.md): the shared filter's keys (asuka/lio/ieskf_frontend.hpp) with
// superlio's defaults, and the OctVox map's.

#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/oct_vox_map.hpp>

namespace asuka {
class Config;
}

namespace asuka::superlio {

struct SuperlioParams {
  lio::IeskfParams filter;
  lio::OctVoxMapParams map;  ///< voxel_size = mapping.map_voxel_size, mapping.fuse_points, mapping.local_map_half_size

  /// superlio's defaults of the common keys.
  static lio::FilterFrontendParams defaults();
  /// Reads `config` (sections sensor, preprocess, mapping); throws ConfigError for bad values.
  static SuperlioParams from_config(const Config& config);
};

}  // namespace asuka::superlio
