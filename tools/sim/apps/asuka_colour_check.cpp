// asuka_colour_check: colour accuracy of a coloured map (x y z rgb PCD) of a simulated bag (#20): the
// mean absolute difference between the map's colours and what the simulated camera sees at those
// points, after one fitted global gain and in the gauge of the bag's first image. No ROS: it rebuilds
// the scene from sim.json. See docs/simulator.md ("Colour accuracy of a map").
//
// The map is in the frontend's world frame (the gravity-aligned IMU frame at initialization), not the
// simulator's: it is moved there by the SE(3) alignment of the frontend's trajectory with the ground
// truth, the one asuka_eval computes (trajectory.tum beside the map unless --trajectory says otherwise).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <Eigen/SVD>
#include <nlohmann/json.hpp>

#include <asuka/io/pcd_io.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_eval/evaluation.hpp>
#include <asuka_sim/camera_sim.hpp>
#include <asuka_sim/colour_check.hpp>
#include <asuka_sim/scene.hpp>

namespace {

namespace fs = std::filesystem;

// Exit codes, as asuka_eval's (docs/evaluation.md).
constexpr int kExitUsage = 1;   // bad command line (or an unexpected internal error)
constexpr int kExitInput = 2;   // a missing or malformed input: sim.json, ground truth, map, trajectory
constexpr int kExitOutput = 3;  // the JSON could not be written

/// An input that cannot be checked; the message says which file and why.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What the check needs from a simulation folder.
struct SimInputs {
  std::string scene;
  std::uint64_t seed = 1;
  bool rgb = false;                 ///< the images were rgb8
  double reference_gain = 1.0;      ///< the first written image's exposure / kNominalExposure
  std::vector<double> image_times;  ///< [s] absolute, true mid-exposure, of the written images
  Eigen::Isometry3d T_imu_camera = Eigen::Isometry3d::Identity();
  std::vector<asuka::StampedPose> ground_truth;
};

Eigen::Isometry3d pose_from_json(const nlohmann::json& j) {
  const auto& t = j.at("translation");
  const auto& q = j.at("rotation_xyzw");
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = Eigen::Quaterniond(q.at(3).get<double>(), q.at(0).get<double>(), q.at(1).get<double>(), q.at(2).get<double>()).normalized().toRotationMatrix();
  T.translation() = Eigen::Vector3d(t.at(0).get<double>(), t.at(1).get<double>(), t.at(2).get<double>());
  return T;
}

SimInputs read_sim(const std::string& dir) {
  const fs::path json_path = fs::path(dir) / "sim.json";
  std::ifstream in(json_path);
  if (!in) throw InputError("cannot open " + json_path.string() + " (is " + dir + " an asuka_sim output folder?)");
  SimInputs s;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(json_path.string() + ": not JSON: " + e.what());
  }
  try {
    s.scene = j.at("scene").get<std::string>();
    s.seed = j.at("seed").get<std::uint64_t>();
    if (!j.contains("camera") || j["camera"].is_null()) throw InputError(json_path.string() + " has no camera: the bag has no images to colour a map with");
    const auto& camera = j["camera"];
    s.rgb = camera.at("format").get<std::string>() == "rgb8";
    s.T_imu_camera = pose_from_json(camera.at("T_imu_camera"));
    std::set<std::size_t> dropped;
    if (camera.contains("faults") && camera["faults"].contains("dropped_indices")) {
      for (const auto& i : camera["faults"]["dropped_indices"]) dropped.insert(i.get<std::size_t>());
    }
    const auto& images = camera.at("images");
    for (std::size_t i = 0; i < images.size(); ++i) {
      if (dropped.count(i)) continue;  // never written: not the first image a frontend sees
      if (s.image_times.empty()) s.reference_gain = images[i].at("exposure_s").get<double>() / asuka::sim::kNominalExposure;
      s.image_times.push_back(images[i].at("time_s").get<double>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(json_path.string() + ": " + e.what());
  }
  const std::string gt_path = (fs::path(dir) / "ground_truth.tum").string();
  std::string error;
  if (!asuka::read_tum(gt_path, s.ground_truth, &error)) throw InputError(error);
  if (s.ground_truth.empty()) throw InputError(gt_path + " holds no pose");
  return s;
}

/// Where the camera was at each image (ground truth interpolated at the image times), or at every
/// ground-truth pose when the bag's images are not listed.
std::vector<Eigen::Vector3d> camera_positions(const SimInputs& s) {
  const auto& gt = s.ground_truth;
  std::vector<Eigen::Vector3d> positions;
  if (s.image_times.empty()) {
    for (const auto& pose : gt) positions.push_back((pose.T_world_imu * s.T_imu_camera).translation());
    return positions;
  }
  for (const double t : s.image_times) {
    const auto after = std::lower_bound(gt.begin(), gt.end(), t, [](const asuka::StampedPose& p, double time) { return p.stamp < time; });
    Eigen::Isometry3d T_world_imu;
    if (after == gt.begin()) {
      T_world_imu = gt.front().T_world_imu;
    } else if (after == gt.end()) {
      T_world_imu = gt.back().T_world_imu;
    } else {
      const auto& a = *(after - 1);
      const double alpha = (t - a.stamp) / (after->stamp - a.stamp);
      T_world_imu = asuka::eval::interpolate(a.T_world_imu, after->T_world_imu, alpha);
    }
    positions.push_back((T_world_imu * s.T_imu_camera).translation());
  }
  return positions;
}

/// The map frame in the simulator's world from whole poses: the rotation closest to the mean of
/// R_gt R_est^T (projected onto SO(3)), then the mean translation. The trajectory's positions alone
/// (asuka_eval's Umeyama alignment) leave the roll about a nearly straight walk free, which tilts the
/// ground of a map by decimetres at 20 m; orientations fix it.
Eigen::Isometry3d align_poses(const asuka::eval::Association& a) {
  if (a.T_est.empty()) throw InputError("the trajectory has no pose within the ground truth's time span");
  Eigen::Matrix3d sum = Eigen::Matrix3d::Zero();
  for (std::size_t i = 0; i < a.T_est.size(); ++i) sum += a.T_gt[i].linear() * a.T_est[i].linear().transpose();
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(sum, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d R = svd.matrixU() * svd.matrixV().transpose();
  if (R.determinant() < 0.0) {
    Eigen::Matrix3d U = svd.matrixU();
    U.col(2) *= -1.0;
    R = U * svd.matrixV().transpose();
  }
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < a.T_est.size(); ++i) t += a.T_gt[i].translation() - R * a.T_est[i].translation();
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = R;
  T.translation() = t / static_cast<double>(a.T_est.size());
  return T;
}

int run(int argc, char** argv) {
  CLI::App app{
      "asuka_colour_check: colour accuracy of a coloured map (PCD with x y z rgb) of a simulated bag: the mean absolute difference between "
      "the map's colours and the simulator's texture at its points, after one fitted global gain (see docs/simulator.md)"};
  std::string sim_dir, map_path, json_path, trajectory_path;
  bool in_sim_world = false;
  asuka::sim::ColourCheckParams params;
  app.add_option("--sim", sim_dir, "asuka_sim output folder: sim.json (scene, seed, camera, images) and ground_truth.tum")->required();
  app.add_option("--map", map_path, "The coloured map, PCD with fields x y z rgb (a frontend's map.pcd)")->required();
  app.add_option("--json", json_path, "Write every number as JSON to this file");
  app.add_option("--trajectory", trajectory_path,
                 "The frontend's trajectory (TUM) whose alignment with the ground truth moves the map into the simulator's world (default: "
                 "trajectory.tum beside the map)");
  app.add_flag("--map-in-sim-world", in_sim_world, "The map is already in the simulator's world frame: no alignment");
  app.add_option("--tolerance", params.tolerance,
                 "A map point is checked where the surface seen in its direction lies this close [m], plus --tolerance-fraction of the range")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--tolerance-fraction", params.tolerance_fraction, "Part of the range from the camera position added to --tolerance")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }

  SimInputs sim;
  std::vector<Eigen::Vector3f> points;
  std::vector<std::array<std::uint8_t, 3>> rgb;
  Eigen::Isometry3d T_sim_map = Eigen::Isometry3d::Identity();
  nlohmann::json alignment = nullptr;
  try {
    sim = read_sim(sim_dir);
    std::string error;
    if (!fs::exists(map_path)) throw InputError(map_path + ": no such file");
    if (!asuka::read_pcd_rgb(map_path, points, rgb, &error)) throw InputError(error);
    if (!in_sim_world) {
      const bool beside = trajectory_path.empty();
      if (beside) trajectory_path = (fs::path(map_path).parent_path() / "trajectory.tum").string();
      if (beside && !fs::exists(trajectory_path)) {
        throw InputError("no trajectory.tum beside " + map_path + " to align the map with the ground truth: give --trajectory, or --map-in-sim-world");
      }
      const auto est = asuka::eval::load_trajectory(trajectory_path, "trajectory");
      const auto eval = asuka::eval::evaluate(est, sim.ground_truth);
      T_sim_map = align_poses(asuka::eval::associate(est, sim.ground_truth));
      alignment = {{"trajectory", trajectory_path}, {"ate_rmse_m", eval.ate.rmse}, {"poses", eval.ate.count}};
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "asuka_colour_check: %s\n", e.what());
    return kExitInput;
  } catch (const asuka::eval::EvalError& e) {
    std::fprintf(stderr, "asuka_colour_check: cannot align the map with the ground truth: %s\n", e.what());
    return kExitInput;
  }
  if (!in_sim_world) {
    for (auto& p : points) p = (T_sim_map * p.cast<double>()).cast<float>();
  }

  std::shared_ptr<asuka::sim::Scene> scene;
  try {
    scene = asuka::sim::make_scene(sim.scene, sim.seed);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "asuka_colour_check: %s/sim.json: %s\n", sim_dir.c_str(), e.what());
    return kExitInput;
  }
  params.rgb = sim.rgb;
  params.reference_gain = sim.reference_gain;
  const auto r = asuka::sim::check_colours(*scene, camera_positions(sim), points, rgb, params);
  std::printf("%s\n", asuka::sim::format_colour_check(r).c_str());
  if (r.checked == 0) std::fprintf(stderr, "asuka_colour_check: warning: no map point lies on a surface the camera saw (is the map in another frame?)\n");

  if (!json_path.empty()) {
    const nlohmann::json j = {
        {"tool", "asuka_colour_check"},
        {"sim", sim_dir},
        {"map", map_path},
        {"scene", sim.scene},
        {"rgb", sim.rgb},
        {"points", r.points},
        {"on_surface", r.on_surface},
        {"saturated", r.saturated},
        {"checked", r.checked},
        {"checked_percent", 100.0 * r.checked_fraction()},
        {"gain", {{"fitted", r.gain}, {"first_image", r.reference_gain}}},
        {"mean_abs_error_grey_levels", {{"fitted_gain", r.mean_error}, {"first_image_gain", r.reference_mean_error}}},
        {"median_abs_error_grey_levels", {{"fitted_gain", r.median_error}, {"first_image_gain", r.reference_median_error}}},
        {"tolerance_m", params.tolerance},
        {"tolerance_fraction", params.tolerance_fraction},
        {"saturation_grey_levels", params.saturation},
        {"alignment", alignment},
    };
    std::ofstream out(json_path);
    out << j.dump(2) << "\n";
    out.flush();
    if (!out) {
      std::fprintf(stderr, "asuka_colour_check: cannot write %s\n", json_path.c_str());
      return kExitOutput;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asuka_colour_check: internal error: %s\n", e.what());
    return kExitUsage;
  }
}
