#include <asuka/lio/frontend_output.hpp>

#include <spdlog/spdlog.h>

#include <asuka/io/pcd_io.hpp>

namespace asuka::lio {

EstimationFrame::Ptr make_estimation_frame(std::uint64_t id, const ScanPackage& package, const ScanEstimate& estimate,
                                           const std::vector<Eigen::Vector3d>& points_imu, const std::vector<float>& intensity, double processing_seconds) {
  auto frame = std::make_shared<EstimationFrame>();
  frame->id = id;
  frame->stamp = package.begin;
  frame->pose_stamp = package.end;
  frame->T_world_imu.linear() = estimate.R;
  frame->T_world_imu.translation() = estimate.p;
  frame->v_world = estimate.v;
  frame->bias_gyro = estimate.bg;
  frame->bias_acc = estimate.ba;
  frame->gravity_world = estimate.g;
  frame->pose_covariance = estimate.pose_covariance;
  frame->T_imu_lidar = estimate.T_imu_lidar;
  auto points = std::make_shared<std::vector<Point>>();
  points->reserve(points_imu.size());
  for (std::size_t i = 0; i < points_imu.size(); ++i) {
    const Eigen::Vector3d& q = points_imu[i];
    Point p;
    p.x = static_cast<float>(q.x());
    p.y = static_cast<float>(q.y());
    p.z = static_cast<float>(q.z());
    p.intensity = i < intensity.size() ? intensity[i] : 0.0f;
    points->push_back(p);
  }
  frame->points_imu = points;
  frame->processing_seconds = processing_seconds;
  return frame;
}

bool save_map_pcd(const std::vector<Eigen::Vector3f>& points_world, const std::vector<float>& intensity, const std::string& path, spdlog::logger& logger) {
  std::string error;
  if (!write_pcd(path, points_world, intensity, &error)) {
    logger.error("cannot save the map: {}", error);
    return false;
  }
  logger.info("map saved to {} ({} points)", path, points_world.size());
  return true;
}

}  // namespace asuka::lio
