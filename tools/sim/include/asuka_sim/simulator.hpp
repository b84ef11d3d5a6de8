#pragma once
// asuka_sim: simulates a LiDAR-inertial rig moving through a scene (simulation.hpp) and writes a ROS 1
// bag, the ground truth (TUM) and a JSON sidecar with every parameter. Deterministic per seed: the same parameters
// give byte-identical files.

#include <cstdint>
#include <string>
#include <vector>

#include <asuka_sim/simulation.hpp>

namespace asuka::sim {

struct SimResult {
  std::string bag_path;
  std::string ground_truth_path;
  std::string sidecar_path;
  std::string imu_topic;
  std::string points_topic;
  std::string image_topic;  ///< "" without a camera
  std::size_t images = 0;
  std::size_t imu_messages = 0;
  std::size_t frames = 0;
  std::size_t points = 0;
};

/// Topics of a model's bag: {imu, points}.
std::pair<std::string, std::string> topics_for(const LidarModel& model);

/// Writes `<output_dir>/sim.bag`, `ground_truth.tum` and `sim.json`. Throws std::invalid_argument for
/// bad parameters (unknown names, negative values) and std::runtime_error for I/O failures.
SimResult run_simulation(const SimParams& params, const std::string& output_dir);

}  // namespace asuka::sim
