// asuka_sim: writes a simulated LiDAR-inertial ROS 1 bag with ground truth. See docs/simulator.md.

#include <chrono>
#include <cstdio>
#include <sstream>

#include <CLI/CLI.hpp>

#include <asuka_sim/simulator.hpp>

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  asuka::sim::SimParams p;
  std::string output = "sim_output";
  std::string extrinsic;
  std::string imu_gap;

  CLI::App app{"asuka_sim: simulate a LiDAR-inertial rig in a scene and write a ROS 1 bag (sim.bag), the ground truth (ground_truth.tum, "
               "IMU pose at the IMU rate) and every parameter (sim.json). Default: a 60 s Livox Avia bag in the courtyard at handheld speed."};
  app.add_option("--lidar", p.lidar, "LiDAR model: " + join(asuka::sim::lidar_names()))->capture_default_str()->check(CLI::IsMember(asuka::sim::lidar_names()));
  app.add_option("--scene", p.scene, "Scene: " + join(asuka::sim::scene_names()))->capture_default_str()->check(CLI::IsMember(asuka::sim::scene_names()));
  app.add_option("--profile", p.trajectory.profile, "Motion profile: " + join(asuka::sim::profile_names()))
    ->capture_default_str()
    ->check(CLI::IsMember(asuka::sim::profile_names()));
  app.add_option("--duration", p.duration, "Duration [s]")->capture_default_str();
  app.add_option("--seed", p.seed, "Random seed (same seed, same bytes)")->capture_default_str();
  app.add_option("--output", output, "Output directory")->capture_default_str();
  app.add_option("--format", p.format, "Bag format: ros1 (sim.bag), ros2-mcap or ros2-sqlite (a rosbag2 folder sim_ros2/ with metadata.yaml)")
    ->check(CLI::IsMember({"ros1", "ros2-mcap", "ros2-sqlite"}))
    ->capture_default_str();
  app.add_option("--start-time", p.start_time, "Sensor clock at the start [s, whole seconds since 1970]")->capture_default_str();

  auto* motion = app.add_option_group("Motion");
  motion->add_option("--static", p.trajectory.static_duration, "Motionless start [s] (IMU initialization)")->capture_default_str();
  motion->add_option("--ramp", p.trajectory.ramp_duration, "Smooth ramp from rest to full motion [s]")->capture_default_str();
  motion->add_flag("--tilted-start", p.trajectory.tilted_start, "Start tilted (roll 8 deg, pitch -5 deg)");
  bool random_motion = false;
  motion->add_flag("--random-motion", random_motion,
                   "A variation of the profile's motion drawn from --seed (speed, loop, turns, tilt, bumps, phases; within the profile's limits)");

  auto* imu = app.add_option_group("IMU");
  imu->add_option("--imu-rate", p.imu.rate, "IMU rate [Hz]")->capture_default_str();
  imu->add_option("--acc-noise", p.imu.acc_noise_density, "Accelerometer white noise density [m/s^2/sqrt(Hz)]")->capture_default_str();
  imu->add_option("--gyro-noise", p.imu.gyro_noise_density, "Gyroscope white noise density [rad/s/sqrt(Hz)]")->capture_default_str();
  imu->add_option("--acc-bias-walk", p.imu.acc_bias_walk, "Accelerometer bias random walk [m/s^3/sqrt(Hz)]")->capture_default_str();
  imu->add_option("--gyro-bias-walk", p.imu.gyro_bias_walk, "Gyroscope bias random walk [rad/s^2/sqrt(Hz)]")->capture_default_str();
  imu->add_option("--acc-bias", p.imu.acc_bias_initial, "Std. dev. of the random initial accelerometer bias [m/s^2]")->capture_default_str();
  imu->add_option("--gyro-bias", p.imu.gyro_bias_initial, "Std. dev. of the random initial gyroscope bias [rad/s]")->capture_default_str();
  imu->add_option("--gyro-range", p.imu.gyro_range, "Gyroscope range per axis: readings saturate there [rad/s] (0 = unlimited)")->capture_default_str();
  imu->add_option("--acc-range", p.imu.acc_range, "Accelerometer range per axis: readings saturate there [m/s^2] (0 = unlimited)")->capture_default_str();
  imu->add_flag("--acc-in-g", p.acc_in_g, "Publish acceleration in g (as Livox IMUs do)");
  imu->add_option("--imu-time-offset", p.imu_time_offset, "Added to every IMU stamp [s]")->capture_default_str();

  auto* lidar = app.add_option_group("LiDAR");
  lidar->add_option("--range-noise", p.lidar_noise.range_noise, "Range noise std. dev. [m]")->capture_default_str();
  lidar->add_option("--dropout", p.lidar_noise.dropout, "Probability that a return is lost [0, 1)")->capture_default_str();
  lidar->add_option("--extrinsic", extrinsic, "T_imu_lidar as 'x y z roll pitch yaw' [m, deg] (default: the model's)");
  lidar->add_flag("--livox-pointcloud2", p.livox_pointcloud2, "Livox as PointCloud2 PointXYZRTLT instead of CustomMsg");
  lidar->add_flag("--header-at-end", p.header_at_end, "Velodyne/Robosense: stamp the header at the scan end");
  lidar->add_flag("--instantaneous", p.instantaneous, "Every point of a frame at the frame stamp (no motion distortion; lidar_type instantaneous)");

  auto* camera = app.add_option_group("Camera (#13; none by default)");
  camera->add_option("--camera", p.camera.model, "Camera model: pinhole (640x512, radtan) or fisheye (640x512, equidistant); renders images of the scene")
    ->check(CLI::IsMember(asuka::sim::camera_names()));
  camera->add_option("--camera-rate", p.camera.rate, "Images per second [Hz] (a triggered camera runs at the lidar's rate)")->capture_default_str();
  camera->add_flag("--camera-free-running", p.camera.free_running, "Images on the camera's own clock instead of at each scan's end");
  camera->add_option("--camera-phase", p.camera.phase, "Free-running: time of the first image [s]")->capture_default_str();
  camera->add_option("--camera-format", p.camera.format, "mono8 or rgb8 (sensor_msgs/Image), jpeg (sensor_msgs/CompressedImage)")
    ->check(CLI::IsMember({"mono8", "rgb8", "jpeg"}))
    ->capture_default_str();
  camera->add_option("--camera-jpeg-quality", p.camera.jpeg_quality, "JPEG quality [1, 100]")->capture_default_str();
  camera->add_option("--camera-noise", p.camera.noise, "Pixel noise std. dev. [grey levels]")->capture_default_str();
  camera->add_flag("!--camera-fixed-exposure", p.camera.auto_exposure, "Keep the exposure constant (default: auto-exposure changes it per image)");

  auto* faults = app.add_option_group("Faults (off by default)");
  faults->add_option("--fault-image-drop-every", p.camera.drop_every, "Every Nth image is not written")->capture_default_str();
  faults->add_option("--fault-image-time-offset", p.camera.time_offset, "Added to every image stamp [s]")->capture_default_str();
  faults->add_flag("--fault-image-wrong-encoding", p.camera.wrong_encoding, "Raw images declare the encoding 'yuv422'");
  faults->add_option("--fault-corrupt-jpeg-every", p.camera.corrupt_jpeg_every, "Every Nth JPEG is cut to half its bytes")->capture_default_str();
  faults->add_flag("--fault-loop", p.faults.loop, "The recording twice: header stamps jump back once (a looped bag)");
  faults->add_option("--fault-imu-gap", imu_gap, "IMU messages missing: 'START:LENGTH' [s]");
  faults->add_option("--fault-imu-out-of-order", p.faults.imu_out_of_order, "Pairs of consecutive IMU messages written swapped")->capture_default_str();
  faults->add_flag("--fault-no-point-time", p.faults.no_point_time, "Clouds without per-point time (Livox: offset_time 0)");
  faults->add_option("--fault-point-time-unit", p.faults.point_time_unit, "Per-point time written in this unit instead: s, ms, us, ns")
    ->check(CLI::IsMember({"s", "ms", "us", "ns"}));
  faults->add_option("--fault-nan-points", p.faults.nan_points, "Fraction of points with NaN coordinates [0, 1]")->capture_default_str();
  faults->add_option("--fault-empty-frame-every", p.faults.empty_frame_every, "Every Nth frame has no points (0 = never)")->capture_default_str();
  faults->add_option("--fault-drop-frame-every", p.faults.drop_frame_every, "Every Nth frame is not written (0 = never)")->capture_default_str();
  faults->add_option("--fault-lidar-late-start", p.faults.lidar_late_start, "LiDAR frames starting before this are not written: the IMU runs alone first [s]")
      ->capture_default_str();
  faults->add_option("--fault-lidar-time-offset", p.faults.lidar_time_offset, "Constant offset added to lidar stamps [s]")->capture_default_str();
  faults->add_option("--fault-imu-zeros-at-start", p.faults.imu_zeros_at_start,
                     "IMU samples read exactly zero (acc and gyro) for this long from the start [s] (>= --duration: an all-zero IMU)")
    ->capture_default_str();
  faults->add_flag("--fault-imu-zero-acc", p.faults.imu_zero_acc, "The accelerometer reads zero throughout");
  faults->add_flag("--fault-gyro-in-deg", p.faults.gyro_in_deg, "The gyroscope reports deg/s instead of rad/s");
  faults->add_option("--fault-imu-nan-every", p.faults.imu_nan_every, "Every Nth IMU sample is NaN (0 = never)")->capture_default_str();
  faults->add_option("--fault-imu-spike-every", p.faults.imu_spike_every, "Every Nth IMU sample reads 1000 rad/s and 1000 m/s^2 (0 = never)")
    ->capture_default_str();
  faults->add_option("--fault-imu-duplicate-every", p.faults.imu_duplicate_every, "Every Nth IMU sample carries the stamp of the one before (0 = never)")
    ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    if (!extrinsic.empty()) {
      std::istringstream ss(extrinsic);
      double v[6];
      for (double& x : v) {
        if (!(ss >> x)) throw std::invalid_argument("--extrinsic expects 6 numbers 'x y z roll pitch yaw' [m, deg], got '" + extrinsic + "'");
      }
      const double d = 3.14159265358979323846 / 180.0;
      p.T_imu_lidar.linear() = (Eigen::AngleAxisd(v[5] * d, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(v[4] * d, Eigen::Vector3d::UnitY()) *
                                Eigen::AngleAxisd(v[3] * d, Eigen::Vector3d::UnitX()))
                                 .toRotationMatrix();
      p.T_imu_lidar.translation() = Eigen::Vector3d(v[0], v[1], v[2]);
      p.extrinsic_set = true;
    }
    if (!imu_gap.empty()) {
      const auto colon = imu_gap.find(':');
      if (colon == std::string::npos) throw std::invalid_argument("--fault-imu-gap expects 'START:LENGTH' in seconds, got '" + imu_gap + "'");
      p.faults.imu_gap_start = std::stod(imu_gap.substr(0, colon));
      p.faults.imu_gap_length = std::stod(imu_gap.substr(colon + 1));
    }
    const auto start = std::chrono::steady_clock::now();
    if (random_motion) p.trajectory.motion_seed = p.seed;
    const auto r = asuka::sim::run_simulation(p, output);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %zu frames (%zu points) on %s, %zu IMU messages on %s%s, in %.1f s\n", r.bag_path.c_str(), r.frames, r.points, r.points_topic.c_str(),
                r.imu_messages, r.imu_topic.c_str(), r.image_topic.empty() ? "" : (", " + std::to_string(r.images) + " images on " + r.image_topic).c_str(), wall);
    std::printf("ground truth: %s\nparameters:   %s\n", r.ground_truth_path.c_str(), r.sidecar_path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asuka_sim: %s\n", e.what());
    return 2;
  }
}
