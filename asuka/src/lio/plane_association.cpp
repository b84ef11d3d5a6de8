#include <asuka/lio/plane_association.hpp>

namespace asuka::lio {

bool find_plane(const VoxelMap& map, const Eigen::Vector3d& world_point, const PlaneAssociationParams& params, std::vector<Eigen::Vector3f>& scratch,
                Plane& plane) {
  if (map.knn(world_point.cast<float>(), params.knn, params.search_distance, scratch) != params.knn) return false;
  return fit_plane(scratch, params.plane_max_residual, plane);
}

}  // namespace asuka::lio
