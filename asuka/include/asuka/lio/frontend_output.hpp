#pragma once
// What the filter frontends publish per scan, built one way for all of them.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/lio/scan_synchronizer.hpp>

namespace spdlog {
class logger;
}

namespace asuka::lio {

/// The filter state a frontend reports at a scan's end (world frame, IMU body).
struct ScanEstimate {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  Eigen::Vector3d bg = Eigen::Vector3d::Zero();
  Eigen::Vector3d ba = Eigen::Vector3d::Zero();
  Eigen::Vector3d g = Eigen::Vector3d::Zero();
  Eigen::Matrix<double, 6, 6> pose_covariance = Eigen::Matrix<double, 6, 6>::Zero();  ///< [rotation, position]
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();                      ///< the extrinsic in use
};

/// The EstimationFrame of one scan: stamped at the scan start (`package.begin`), the pose at its end
/// (`package.end`), with the registered points in the IMU frame at the end and their `intensity`
/// (one per point, or empty: 0).
EstimationFrame::Ptr make_estimation_frame(std::uint64_t id, const ScanPackage& package, const ScanEstimate& estimate,
                                           const std::vector<Eigen::Vector3d>& points_imu, const std::vector<float>& intensity, double processing_seconds);

/// Writes a map's points (world frame) as binary PCD and logs the outcome with `logger`.
bool save_map_pcd(const std::vector<Eigen::Vector3f>& points_world, const std::vector<float>& intensity, const std::string& path, spdlog::logger& logger);

}  // namespace asuka::lio
