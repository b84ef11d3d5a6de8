#pragma once
// Runs a frontend end to end in memory, with no bag and no ROS: the simulator's in-memory feed
// (asuka_sim/memory_feed.hpp) -> asuka::Host (the same input pipeline as asuka_rosbag) -> the
// frontend -> asuka_eval against the ground truth. Builds with ASUKA_BUILD_ROS=OFF, so frontend
// end-to-end tests also run under the sanitizers.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/host/host.hpp>
#include <asuka_eval/evaluation.hpp>
#include <asuka_sim/memory_feed.hpp>

namespace asuka::test {

struct HostRun {
  eval::EvalResult eval;
  std::vector<StampedPose> trajectory;
  HostStats stats;
  bool ok = false;
  std::optional<TimeOffsetEstimate> time_offset;  ///< the host's lidar-IMU time-offset estimate (#12 item 4)
  DegeneracySummary degeneracy;                   ///< #21: the host's degeneracy report
  std::vector<ScanLocalizability> localizability; ///< #21: per registered scan
  sim::SimOutput sim;                             ///< what the simulation produced (ground truth, dead reckoning, degeneracy truth)
};

/// A generated world (asuka_sim --scene SCENE --random-motion): `seed` draws the world and the
/// motion of `profile`, as `SCENES=generated benchmarks/seeds.sh` does; 15 s.
inline sim::SimParams generated_world(const std::string& lidar, const std::string& scene, const std::string& profile, int seed) {
  sim::SimParams p;
  p.lidar = lidar;
  p.scene = scene;
  p.seed = seed;
  p.trajectory.profile = profile;
  p.trajectory.motion_seed = seed;
  p.duration = 15.0;
  return p;
}

/// #17: a VLP-16 on a vehicle in the generated field (seed 4): a drive where planes that hinge on
/// one point took fastlio 7 m and superlio 0.8 m off (docs/frontends/fastlio.md). The extrinsic is
/// the simulator's: t = (0, 0, 0.12) m.
inline sim::SimParams generated_vlp16_field_drive() { return generated_world("vlp16", "field", "vehicle", 4); }

/// #17: a VLP-16 carried at the extreme profile's rates through the generated garage (seed 4): with
/// the 0.5 m map voxels of the 32-line and Livox defaults, fastlio and superlio ended 22-26 cm off;
/// with the 16-line presets' 0.3 m, 1.1 cm (docs/frontends/fastlio.md, "How far a plane's neighbours
/// reach"). The extrinsic is the simulator's: t = (0, 0, 0.12) m.
inline sim::SimParams generated_vlp16_garage_extreme() { return generated_world("vlp16", "garage", "extreme", 4); }

/// #17: an RS-16 carried down the hall of the rooms scene (seed 21, the fixed hand-held walk, 15 s, as
/// `seeds.sh` runs it): with the 16-line presets' 0.3 m voxels the floor's rings and the hall's far
/// ends are farther apart than the nearest block, and without the wide reach of degenerate scans
/// fastlio ended 7.6 m off, superlio 31 cm (docs/frontends/fastlio.md, "Planes beyond the nearest
/// block"). The extrinsic is the simulator's: t = (0, 0, 0.1) m.
inline sim::SimParams rs16_hall_walk() {
  sim::SimParams p;
  p.lidar = "rs16";
  p.scene = "rooms";
  p.seed = 21;
  p.trajectory.profile = "handheld";
  p.duration = 15.0;
  return p;
}

#ifdef ASUKA_SOURCE_DIR
/// The sensor preset `name` as shipped in the source tree (config/sensors/NAME.json).
inline SensorPreset shipped_sensor_preset(const std::string& name) {
  return read_sensor_preset(std::string(ASUKA_SOURCE_DIR) + "/config/sensors/" + name + ".json");
}
#endif

/// Simulates `sim_params` in memory and runs the frontend named by `odometry_json`'s so_name on it
/// through a Host with a 1 s reorder window (as asuka_rosbag runs). GlobalConfig is set here and
/// left for the caller to clear. With `preset`, the sensor preset fills what `odometry_json` leaves
/// out, as `asuka_rosbag --sensor` does (docs/sensors.md).
inline HostRun run_in_memory(const sim::SimParams& sim_params, const std::string& odometry_json, const SensorPreset* preset = nullptr) {
  auto& global = GlobalConfig::instance();
  global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
  global.set_module("config_odometry", Config::parse(odometry_json, "config_odometry.json"));
  global.set_module("config_ros", Config::parse(R"({"reorder_window": 1.0})", "config_ros.json"));
  if (preset != nullptr) apply_sensor_preset(global, *preset);
  HostParams params = HostParams::from_config(global.module("config_ros"));
  params.load_extensions = false;
  Host host(params);
  const auto output = sim::simulate_in_memory(sim_params, sim::MemoryFeed{[&](const ImuData& imu) { host.insert_imu(imu); },
                                                                          [&](LidarFrame::Ptr frame) { host.insert_frame(std::move(frame)); },
                                                                          [&](Image::Ptr image) { host.insert_image(std::move(image)); }});
  host.wait(true);
  host.save("");
  HostRun run;
  run.trajectory = host.trajectory();
  run.ok = host.executor().ok();
  run.stats = host.stats();
  run.time_offset = host.time_offset_estimate();
  run.degeneracy = host.degeneracy();
  run.localizability = host.scan_localizability();
  run.eval = eval::evaluate(run.trajectory, output.ground_truth);
  std::printf("%s %s %s (in memory): %zu poses, ATE rmse %.4f m max %.4f m\n", params.so_name.c_str(), sim_params.lidar.c_str(),
              sim_params.trajectory.profile.c_str(), run.trajectory.size(), run.eval.ate.rmse, run.eval.ate.max);
  run.sim = output;
  return run;
}

/// #21: a walk down the simulated featureless corridor (`seed`, `duration` s) run by the odometry
/// configuration `odometry_json`, its error from the origin split by the corridor's axes (x along it),
/// next to the IMU alone's (the simulator's dead reckoning from the filter's initial state).
struct CorridorErrors {
  bool ok = false;
  eval::EvalResult filter;
  eval::EvalResult imu_alone;
};
/// The same for any simulated run `p` (a tunnel drive: `p.scene` "tunnel", `p.lidar` "vlp16").
inline CorridorErrors degenerate_run_against_the_imu_alone(const sim::SimParams& p, const std::string& odometry_json) {
  const auto run = run_in_memory(p, odometry_json);
  GlobalConfig::instance().clear();
  eval::EvalParams from_origin;
  from_origin.align = false;
  from_origin.align_origin = true;
  CorridorErrors out;
  out.ok = run.ok;
  out.filter = eval::evaluate(run.trajectory, run.sim.ground_truth, from_origin);
  out.imu_alone = eval::evaluate(run.sim.dead_reckoning, run.sim.ground_truth, from_origin);
  std::printf("%s seed %d: along the axis rms %.3f m, end %+.3f m; the IMU alone rms %.3f m, end %+.3f m\n", p.scene.c_str(), static_cast<int>(p.seed),
              out.filter.ate_axes_rmse.x(), out.filter.final_error.x(), out.imu_alone.ate_axes_rmse.x(), out.imu_alone.final_error.x());
  return out;
}
inline CorridorErrors corridor_walk_against_the_imu_alone(const std::string& odometry_json, std::uint64_t seed, double duration) {
  sim::SimParams p;
  p.scene = "corridor";
  p.duration = duration;
  p.seed = seed;
  return degenerate_run_against_the_imu_alone(p, odometry_json);
}

#ifdef ASUKA_SOURCE_DIR
/// The RS-16 hall walk (rs16_hall_walk) run by the frontend `so_name` with the `rs16` preset, with the
/// wide reach (the default) and with the nearest blocks only (`mapping.plane_wide_reach` false).
/// `mapping_keys`: more keys of the mapping section for both runs (JSON members, e.g. `"gyr_cov": 0.1`);
/// `sections`: more sections (JSON members, e.g. `"process": {"acc_process_cov": 1000}`).
struct HallWalkRuns {
  HostRun wide;
  HostRun nearest;
};
inline HallWalkRuns rs16_hall_walk_with_and_without_wide_reach(const std::string& so_name, const std::string& mapping_keys = "",
                                                               const std::string& sections = "") {
  const SensorPreset preset = shipped_sensor_preset("rs16");
  const std::string head = R"({"so_name": ")" + so_name + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.1]}, )" + sections +
                           (sections.empty() ? "" : ", ") + R"("mapping": {)" + mapping_keys;
  const std::string more = mapping_keys.empty() ? "" : ", ";
  HallWalkRuns runs;
  runs.wide = run_in_memory(rs16_hall_walk(), head + "}}", &preset);
  runs.nearest = run_in_memory(rs16_hall_walk(), head + more + R"("plane_wide_reach": false}})", &preset);
  return runs;
}
#endif

}  // namespace asuka::test
