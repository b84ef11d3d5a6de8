#pragma once
// fastlio: the FAST-LIO2 algorithm (Xu et al., T-RO 2022) in our own code: the iterated error-state
// Kalman filter with forward IMU propagation and backward de-skew (asuka/lio/ieskf_frontend.hpp,
// shared with superlio) over a hashed voxel map (asuka/lio/voxel_map.hpp) where FAST-LIO2 has its
// ikd-tree; docs/frontends/fastlio.md says why and how they compare.
//
// The frame loop is the shared skeleton's (asuka/lio/filter_frontend.hpp). Threads: the executor's
// worker thread only.

#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/voxel_map.hpp>

#include "fastlio_params.hpp"

namespace asuka::fastlio {

class FastLio : public lio::IeskfFrontend<lio::VoxelMap> {
public:
  explicit FastLio(const lio::IeskfParams& params) : IeskfFrontend(params, "fastlio", params.common.map_params()) {}
};

}  // namespace asuka::fastlio
