#pragma once
// The simulation as decoded sensor data, for driving asuka::Host in memory (no bag, no ROS), as
// open_vins' simulator drives its estimator: frontend end-to-end tests run this way under the
// sanitizers. IMU samples arrive as a driver stamps them (acceleration in g when acc_in_g: the
// host's acc_scale undoes it); LiDAR frames with offsets in ms from the frame start (R-PRE-2).
// Faults of the message encoding (point_time_unit, livox_pointcloud2, header_at_end) belong to the
// bag writer and do not apply here.

#include <functional>

#include <asuka/core/types.hpp>
#include <asuka_sim/simulation.hpp>

namespace asuka::sim {

struct MemoryFeed {
  std::function<void(const ImuData&)> imu;
  std::function<void(LidarFrame::Ptr)> frame;
  std::function<void(Image::Ptr)> image;  ///< camera images (with a camera), mono8 or rgb8
};

/// Runs the simulation and calls `feed` for every message in record order.
SimOutput simulate_in_memory(const SimParams& params, const MemoryFeed& feed);

/// The layout a model's driver publishes.
LidarType lidar_type_of(const LidarModel& model);

}  // namespace asuka::sim
