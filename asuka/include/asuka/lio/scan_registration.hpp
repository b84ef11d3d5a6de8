#pragma once
// Point-to-plane registration of one scan against a point map without an IMU: Gauss-Newton over the
// pose (R <- R Exp(dtheta), t <- t + dt, as the filters perturb theirs), the planes re-associated after
// every large step with the filters' association and gates (plane_association.hpp). The filters fuse
// these rows with the IMU; this is the LiDAR alone, for what must not lean on the IMU: the LiDAR-only
// odometry of the extrinsic check (lidar_odometry.hpp, extrinsic_check.hpp) and the real-data test
// of the association (tests/frontends/test_real_data.cpp).

#include <cstddef>
#include <optional>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/point_map.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::lio {

struct RegistrationParams {
  PlaneAssociationParams association;  ///< plane fits and the residual gates, as the filters use them
  std::size_t min_effective = 30;      ///< fewer residuals in an iteration: the registration stops, not converged
  int max_iterations = 30;             ///< no IMU prior: more than an IEKF's few iterations
  double rotation_tolerance = 1e-4;    ///< [rad] converged when a step turns less than this ...
  double translation_tolerance = 1e-3; ///< [m] ... and moves less than this
  double reassociate_rotation = 0.002;    ///< [rad] the planes are searched again after a step turning more than this ...
  double reassociate_translation = 0.01;  ///< [m] ... or moving more than this (0, 0: at every iteration)
};

struct RegistrationResult {
  Eigen::Isometry3d T_map_scan = Eigen::Isometry3d::Identity();
  int iterations = 0;
  std::size_t effective = 0;  ///< residuals used in the last iteration
  bool converged = false;
  /// The translation block of the last iteration's H^T H: the sum of n n^T over its planes' normals
  /// (map frame), so eigenvalue / effective is the share of the residuals that constrain a direction.
  Eigen::Matrix3d translation_information = Eigen::Matrix3d::Zero();
};

/// The planes a registration associated and the pose they were associated at: a later registration
/// of the same scan against the same map (a finer pass from the coarse one's result) starts from them
/// when it starts within the re-association thresholds of that pose.
struct RegistrationPlanes {
  std::vector<std::optional<Plane>> planes;
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
};

/// Registers `scan` (points in the scan's frame) to `map` from `initial` (T_map_scan). Unit weights:
/// without an IMU prior a common measurement variance cancels. The result holds the last pose
/// reached, also when it did not converge (`converged` says which).
/// With `shared`: its planes are used first when they fit (RegistrationPlanes), and it receives this
/// registration's.
template <class Map>
RegistrationResult register_point_to_plane(const Map& map, const std::vector<Eigen::Vector3d>& scan, const Eigen::Isometry3d& initial,
                                           const RegistrationParams& params, RegistrationPlanes* shared = nullptr) {
  static_assert(is_point_map_v<Map>, "register_point_to_plane needs a point map (asuka/lio/point_map.hpp)");
  RegistrationResult result;
  Eigen::Matrix3d R = initial.linear();
  Eigen::Vector3d t = initial.translation();
  std::vector<Eigen::Vector3f> neighbors;
  // The planes are associated again only once the pose has moved more than `reassociate_rotation`
  // or `reassociate_translation` from where they were associated, as in the filters
  // (ieskf_frontend.hpp): smaller moves do not change which map points are nearest, and the search
  // is most of a registration's cost. (Not step by step: from half a metre away, steps of a few
  // centimetres each converged on the first planes, 0.46 m off, in RealData.Hdl32Pair.)
  RegistrationPlanes own;
  RegistrationPlanes& associated = shared != nullptr ? *shared : own;
  const auto moved = [&] {
    return so3::log(associated.R.transpose() * R).norm() > params.reassociate_rotation || (t - associated.t).norm() > params.reassociate_translation;
  };
  bool associate = associated.planes.size() != scan.size() || moved();
  associated.planes.resize(scan.size());
  std::vector<std::optional<Plane>>& planes = associated.planes;
  for (int iteration = 0; iteration < params.max_iterations; ++iteration) {
    Eigen::Matrix<double, 6, 6> HTH = Eigen::Matrix<double, 6, 6>::Zero();
    Eigen::Matrix<double, 6, 1> HTr = Eigen::Matrix<double, 6, 1>::Zero();
    std::size_t effective = 0;
    for (std::size_t i = 0; i < scan.size(); ++i) {
      const Eigen::Vector3d& q = scan[i];
      const Eigen::Vector3d pw = R * q + t;
      if (associate) {
        if (i == 0) {
          associated.R = R;
          associated.t = t;
        }
        Plane found;
        planes[i].reset();
        if (find_plane(map, pw, params.association, neighbors, found)) planes[i] = found;
      }
      if (!planes[i]) continue;
      const Plane& plane = *planes[i];
      const double r = plane.normal.dot(pw) + plane.d;
      if (!accept_residual(r, q.norm(), params.association.max_residual)) continue;
      Eigen::Matrix<double, 1, 6> h;
      h.head<3>() = -plane.normal.transpose() * R * so3::hat(q);
      h.tail<3>() = plane.normal.transpose();
      HTH += h.transpose() * h;
      HTr += h.transpose() * r;
      ++effective;
    }
    result.iterations = iteration + 1;
    result.effective = effective;
    result.translation_information = HTH.bottomRightCorner<3, 3>();
    if (effective < params.min_effective) break;
    const Eigen::Matrix<double, 6, 1> dx = HTH.ldlt().solve(-HTr);
    if (!dx.allFinite()) break;
    R = R * so3::exp(dx.head<3>());
    t += dx.tail<3>();
    const bool fresh = associate;  // this iteration's planes were searched at its start
    associate = moved();
    if ((fresh || !associate) && dx.head<3>().norm() < params.rotation_tolerance && dx.tail<3>().norm() < params.translation_tolerance) {
      result.converged = true;
      break;
    }
  }
  result.T_map_scan.linear() = R;
  result.T_map_scan.translation() = t;
  return result;
}

}  // namespace asuka::lio
