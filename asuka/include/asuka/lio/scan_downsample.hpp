#pragma once
// Voxel down-sampling of a scan before registration, shared by the filter frontends.

#include <cstdint>
#include <vector>

#include <asuka/core/types.hpp>

namespace asuka::lio {

/// Indices of the points kept when each voxel of edge `voxel_size` [m] keeps its first point, in
/// input order. A real point, not a centroid: a centroid would mix the times of its points, and the
/// time decides how a point is de-skewed.
std::vector<std::uint32_t> downsample_first_per_voxel(const std::vector<Point>& points, double voxel_size);

}  // namespace asuka::lio
