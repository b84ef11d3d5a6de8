#include <asuka/lio/voxel_map.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace asuka::lio {

VoxelMap::VoxelMap(const VoxelMapParams& params) : params_(params), inv_size_(static_cast<float>(1.0 / params.voxel_size)) {}

VoxelMap::Key VoxelMap::key_of(const Eigen::Vector3f& p) const {
  return {static_cast<std::int32_t>(std::floor(p.x() * inv_size_)), static_cast<std::int32_t>(std::floor(p.y() * inv_size_)),
          static_cast<std::int32_t>(std::floor(p.z() * inv_size_))};
}

std::size_t VoxelMap::insert(const std::vector<Eigen::Vector3f>& points) {
  const float min_d2 = static_cast<float>(params_.min_point_distance * params_.min_point_distance);
  std::size_t kept = 0;
  for (const auto& p : points) {
    auto& voxel = map_[key_of(p)];
    if (static_cast<int>(voxel.size()) >= params_.max_points_per_voxel) continue;
    bool close = false;
    for (const auto& q : voxel) {
      if ((q - p).squaredNorm() < min_d2) {
        close = true;
        break;
      }
    }
    if (close) continue;
    voxel.push_back(p);
    ++kept;
  }
  points_ += kept;
  return kept;
}

std::size_t VoxelMap::knn(const Eigen::Vector3f& query, std::size_t k, double max_distance, std::vector<Eigen::Vector3f>& out) const {
  // A small sorted buffer: k is 5 in practice.
  std::vector<std::pair<float, const Eigen::Vector3f*>> best;
  best.reserve(k + 1);
  const float max_d2 = static_cast<float>(max_distance * max_distance);
  // The 2 x 2 x 2 block of voxels nearest the query: it holds every point within half a voxel of it
  // (and most beyond), for 8 lookups instead of 27.
  const Eigen::Vector3f scaled = query * inv_size_;
  const Key c = key_of(query);
  int step[3];
  for (int i = 0; i < 3; ++i) step[i] = (scaled[i] - std::floor(scaled[i])) < 0.5f ? -1 : 1;
  for (int ix = 0; ix < 2; ++ix) {
    for (int iy = 0; iy < 2; ++iy) {
      for (int iz = 0; iz < 2; ++iz) {
        const auto it = map_.find(Key{c.x + ix * step[0], c.y + iy * step[1], c.z + iz * step[2]});
        if (it == map_.end()) continue;
        for (const auto& p : it->second) {
          const float d2 = (p - query).squaredNorm();
          if (d2 > max_d2 || (best.size() == k && d2 >= best.back().first)) continue;
          auto pos = std::upper_bound(best.begin(), best.end(), d2, [](float v, const auto& e) { return v < e.first; });
          best.insert(pos, {d2, &p});
          if (best.size() > k) best.pop_back();
        }
      }
    }
  }
  out.clear();
  for (const auto& b : best) out.push_back(*b.second);
  return out.size();
}

std::size_t VoxelMap::remove_outside(const Eigen::Vector3d& center) {
  const double h = params_.local_map_half_size;
  std::size_t removed = 0;
  for (auto it = map_.begin(); it != map_.end();) {
    const Eigen::Vector3d voxel_center = (Eigen::Vector3d(it->first.x, it->first.y, it->first.z) + Eigen::Vector3d::Constant(0.5)) * params_.voxel_size;
    if (((voxel_center - center).cwiseAbs().array() > h).any()) {
      points_ -= it->second.size();
      it = map_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

std::vector<Eigen::Vector3f> VoxelMap::points() const {
  std::vector<Eigen::Vector3f> out;
  out.reserve(points_);
  for (const auto& [key, voxel] : map_) out.insert(out.end(), voxel.begin(), voxel.end());
  return out;
}

bool fit_plane(const std::vector<Eigen::Vector3f>& points, double max_residual, Plane& plane, double min_spread) {
  if (points.size() < 3) return false;
  // Principal component fit: the normal is the direction of least spread about the centroid. Unlike
  // solving n . x = -1, it also fits planes through the origin.
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (const auto& p : points) mean += p.cast<double>();
  mean /= static_cast<double>(points.size());
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (const auto& p : points) {
    const Eigen::Vector3d q = p.cast<double>() - mean;
    cov += q * q.transpose();
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver;
  solver.computeDirect(cov);
  if (solver.info() != Eigen::Success) return false;
  // Reject (nearly) collinear neighbours: points on one scan line lie in infinitely many planes, and
  // spinning lidars moving level draw walls as such lines. The middle spread must be real.
  const double n = static_cast<double>(points.size());
  if (solver.eigenvalues()(1) / n < min_spread * min_spread) return false;
  plane.normal = solver.eigenvectors().col(0).normalized();  // smallest eigenvalue first
  plane.d = -plane.normal.dot(mean);
  for (const auto& p : points) {
    if (std::fabs(plane.normal.dot(p.cast<double>()) + plane.d) > max_residual) return false;
  }
  return true;
}

}  // namespace asuka::lio
