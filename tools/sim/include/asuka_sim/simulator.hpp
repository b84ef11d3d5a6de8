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
  std::string camera_path;  ///< camera.json: the camera's sensor.camera block for a visual frontend ("" without a camera)
  std::size_t images = 0;
  std::size_t imu_messages = 0;
  std::size_t frames = 0;
  std::size_t points = 0;
};

/// The sensor.camera block of a visual frontend's configuration (asuka/lio/camera_config.hpp) for
/// `camera`, as compact JSON: the calibration a user of the simulated rig would have. asuka_sim writes
/// it to camera.json; `--set config_odometry.sensor.camera="$(cat camera.json)"` uses it.
std::string camera_block_json(const SimCamera& camera);

/// Topics of a model's bag: {imu, points}.
std::pair<std::string, std::string> topics_for(const LidarModel& model);

/// Writes `<output_dir>/sim.bag`, `ground_truth.tum` and `sim.json`. Throws std::invalid_argument for
/// bad parameters (unknown names, negative values) and std::runtime_error for I/O failures.
SimResult run_simulation(const SimParams& params, const std::string& output_dir);

}  // namespace asuka::sim
