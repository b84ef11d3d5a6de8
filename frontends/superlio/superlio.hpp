#pragma once
// superlio: Super-LIO (Wang et al., "Super-LIO: A Robust and Efficient LiDAR-Inertial Odometry System
// with a Compact Mapping Strategy", RA-L 2026) in our own code. It keeps FAST-LIO2's iterated
// error-state Kalman filter (asuka/lio/ieskf_frontend.hpp, the same code fastlio runs) and replaces
// the map and its nearest-neighbour search: the compact octo-voxel map OctVox, at most one fused
// representative point per subvoxel, searched by the heuristic-guided k-NN HKNN
// (asuka/lio/oct_vox_map.hpp). docs/frontends/superlio.md: the algorithm, keys and measurements.
//
// The frame loop is the shared skeleton's (asuka/lio/filter_frontend.hpp). Threads: the executor's
// worker thread only.

#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/oct_vox_map.hpp>

#include "superlio_params.hpp"

namespace asuka::superlio {

class SuperLio : public lio::IeskfFrontend<lio::OctVoxMap> {
public:
  explicit SuperLio(const SuperlioParams& params) : IeskfFrontend(params.filter, "superlio", params.map) {}
};

}  // namespace asuka::superlio
