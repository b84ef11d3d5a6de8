#pragma once
// LiDAR scan patterns and the ray casting of one frame. Every point is cast at its own time from the
// sensor pose at that time, so frames carry the real motion distortion a LIO must remove.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include <asuka_sim/scene.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {

/// How the bag encodes the model's frames (see docs/simulator.md).
enum class CloudFormat { LIVOX, VELODYNE, OUSTER, ROBOSENSE, HESAI };

struct LidarBeam {
  double offset = 0.0;                          ///< [s] from the frame start
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX();  ///< unit, lidar frame
  std::uint16_t ring = 0;                       ///< laser index (Livox: line)
};

struct LidarModel {
  std::string name;
  CloudFormat format = CloudFormat::LIVOX;
  double rate = 10.0;       ///< [Hz] frames per second
  double min_range = 0.3;   ///< [m]
  double max_range = 100.0; ///< [m]
  int lines = 6;
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();  ///< default extrinsic

  /// The beams of the frame that starts at `frame_start` [s] (non-repetitive patterns depend on it).
  std::vector<LidarBeam> beams(double frame_start) const;
};

/// "avia", "mid360", "hap", "vlp16", "vlp32", "hdl32", "hdl64", "os0-64", "os1-64", "os2-64", "rs16",
/// "rs32", "helios", "pandar40", "xt32" (docs/simulator.md).
std::vector<std::string> lidar_names();
/// Throws std::invalid_argument for an unknown name.
LidarModel make_lidar(const std::string& name);

struct LidarNoiseParams {
  double range_noise = 0.02;  ///< [m] standard deviation along the ray
  double dropout = 0.0;       ///< probability that a return is lost
};

struct SimPoint {
  double offset = 0.0;                            ///< [s] from the frame start
  Eigen::Vector3f p_lidar = Eigen::Vector3f::Zero();  ///< [m] in the lidar frame, with range noise
  std::uint16_t ring = 0;
  float intensity = 0.0f;
};

/// Where a returned beam really hit: the exact surface point and its normal (world frame).
struct SurfaceSample {
  Eigen::Vector3d p_world = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
};

/// Casts one frame. `instantaneous`: every beam from the pose at the frame start, offsets 0
/// (R-SYNC-5). Points without a return within [min_range, max_range] are omitted. With `surfaces`,
/// the exact hit of every returned point, in the same order (#21: the scene's localizability).
std::vector<SimPoint> cast_frame(const LidarModel& model, const Scene& scene, const Trajectory& trajectory, const Eigen::Isometry3d& T_imu_lidar,
                                 double frame_start, const LidarNoiseParams& noise, bool instantaneous, std::mt19937_64& rng,
                                 std::vector<SurfaceSample>* surfaces = nullptr);

}  // namespace asuka::sim
