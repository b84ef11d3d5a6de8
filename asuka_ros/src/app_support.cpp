#include <asuka_ros/app_support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <Eigen/Geometry>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <asuka/config/config.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>

namespace asuka_ros {

namespace fs = std::filesystem;

void apply_override(const std::string& text) {
  const auto eq = text.find('=');
  const auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    throw asuka::ConfigError("--set '" + text + "': expected FILE.KEY=VALUE, e.g. config_ros.imu_topic=/imu or config_odometry.preprocess.min_distance=1.0");
  }
  const std::string module = text.substr(0, dot);
  const std::string key = text.substr(dot + 1, eq - dot - 1);
  const std::string value = text.substr(eq + 1);
  auto& global = asuka::GlobalConfig::instance();
  if (module == "config") {
    global.root().set(key, value);
    return;
  }
  if (!global.has_module(module)) {
    std::string known;
    for (const auto& m : global.module_names()) known += " " + m;
    throw asuka::ConfigError("--set '" + text + "': no config file '" + module + "' (known: config" + known + ")");
  }
  global.module(module).set(key, value);
}

void load_configuration(const std::string& config_dir, const std::string& frontend, const std::vector<std::string>& overrides) {
  auto& global = asuka::GlobalConfig::instance();
  auto root = asuka::Config::load((fs::path(config_dir) / "config.json").string());
  if (!frontend.empty()) {
    const auto file = "config_odometry_" + frontend + ".json";
    if (fs::exists(fs::path(config_dir) / file)) root.set("config_odometry", "\"" + file + "\"");
  }
  global.set_root(root, config_dir);
  if (!frontend.empty()) global.module("config_odometry").set("so_name", "\"" + frontend + "\"");
  // Root overrides first: they may name other module files, which set_root then loads.
  std::vector<std::string> module_overrides;
  bool root_changed = false;
  for (const auto& o : overrides) {
    if (o.rfind("config.", 0) == 0) {
      apply_override(o);
      root_changed = true;
    } else {
      module_overrides.push_back(o);
    }
  }
  if (root_changed) global.set_root(asuka::Config(global.root()), config_dir);
  for (const auto& o : module_overrides) apply_override(o);
  asuka::configure_logging(global.root());
}

namespace {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

}  // namespace

std::string check_output_dir(const std::string& output_dir) {
  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  if (ec) return fmt::format("cannot create the output directory '{}': {}", output_dir, ec.message());
  const auto probe = std::filesystem::path(output_dir) / ".asuka_write_test";
  {
    std::ofstream out(probe);
    if (!out || !(out << "ok") || !out.flush()) return fmt::format("cannot write into the output directory '{}' (permissions, a read-only or full disk)", output_dir);
  }
  std::filesystem::remove(probe, ec);
  return {};
}

void write_outputs(const AsukaROS& host, const std::string& output_dir, bool map_saved, const RunSummary& summary) {
  fs::create_directories(output_dir);
  std::string error;
  const auto trajectory = host.trajectory();
  const auto trajectory_path = (fs::path(output_dir) / "trajectory.tum").string();
  if (!asuka::write_tum(trajectory_path, trajectory, &error)) throw std::runtime_error(error);
  const auto config_path = (fs::path(output_dir) / "config").string();
  if (!asuka::GlobalConfig::instance().dump_effective(config_path, &error)) throw std::runtime_error(error);

  const auto stats = host.stats();
  const auto& executor = host.executor();
  const auto exec = executor.stats();
  // The frontend's own time per estimated scan; the executor's per-frame-event time misses the work
  // a frame triggers later (when the IMU reaching its end arrives).
  const auto frame_times = host.scan_processing_seconds();
  const auto map_path = (fs::path(output_dir) / "map.pcd").string();

  nlohmann::json report;
  report["inputs"] = summary.inputs;
  report["frontend"] = host.params().so_name;
  report["data_duration_s"] = summary.data_seconds;
  report["wall_time_s"] = summary.wall_seconds;
  report["interrupted"] = summary.interrupted;
  report["real_time_factor"] = summary.wall_seconds > 0.0 ? summary.data_seconds / summary.wall_seconds : 0.0;
  report["frames"] = {{"messages", stats.frame_messages}, {"inserted", stats.frames_inserted}, {"processed", exec.frames_processed},
                      {"estimated", trajectory.size()}};
  report["points"] = {{"in", stats.points_in}, {"kept", stats.points_kept}};
  report["imu_samples"] = {{"messages", stats.imu_messages}, {"inserted", stats.imu_inserted}, {"processed", exec.imu_processed}};
  report["images"] = {{"messages", stats.image_messages}, {"inserted", stats.images_inserted}, {"processed", exec.images_processed}};
  report["acc_scale"] = host.acc_scale();
  if (auto c = host.point_time_convention()) {
    report["point_time"] = {{"unit", to_string(c->unit)}, {"reference", to_string(c->reference)}, {"detection", c->reason}};
  }
  report["warnings"] = stats.warnings;
  report["loop_backs"] = {{"imu", stats.imu_loop_backs}, {"lidar", stats.lidar_loop_backs}, {"camera", stats.image_loop_backs}};
  report["late_events"] = stats.reordered_late;
  report["overflows"] = {{"imu", exec.imu_overflow}, {"frames", exec.frame_overflow}, {"images", exec.image_overflow}};
  const std::string input_error = !host.input_error().empty() ? host.input_error() : summary.damage;
  report["input"] = {{"ok", input_error.empty()}, {"error", input_error}};
  report["executor"] = {{"ok", executor.ok()}, {"failure", executor.failure_reason()}, {"failures", exec.failures},
                        {"discarded_after_trip", exec.discarded_after_trip}, {"discarded_at_stop", exec.discarded_at_stop}};
  double total = 0.0;
  double max = 0.0;
  for (double t : frame_times) {
    total += t;
    max = std::max(max, t);
  }
  report["time_per_stage_s"] = {
    {"decode_total", stats.decode_seconds},
    {"preprocess_total", stats.preprocess_seconds},
    {"estimate_per_scan",
     {{"mean", frame_times.empty() ? 0.0 : total / static_cast<double>(frame_times.size())}, {"p95", percentile(frame_times, 0.95)}, {"max", max}, {"total", total}}},
  };
  // The extrinsic of the last scan: the configured one, or where the online estimate ended.
  if (const auto T = host.last_extrinsic()) {
    const Eigen::Vector3d w = asuka::so3::log(T->linear()) * (180.0 / M_PI);
    const Eigen::Matrix3d& R = T->linear();
    report["T_imu_lidar_final"] = {{"t_m", {T->translation().x(), T->translation().y(), T->translation().z()}},
                                   {"R_row_major", {R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)}},
                                   {"rotation_vector_deg", {w.x(), w.y(), w.z()}}};
  }
  // #12 item 4: the lidar-IMU time offset seen in the run (asuka/host/time_offset_check.hpp).
  if (const auto e = host.time_offset_estimate()) {
    report["time_offset"] = {{"estimated", e->valid},
                             {"offset_s", e->offset},
                             {"suggested_time_offset_lidar_to_imu", host.host_params().time_offset_lidar_to_imu + e->offset},
                             {"correlation", e->correlation},
                             {"correlation_at_zero", e->at_zero},
                             {"rotation_rate_std_rad_s", e->rate_std},
                             {"poses", e->poses},
                             {"reason", e->reason}};
  }
  // #21: degenerate scans and intervals (asuka/host/degeneracy_report.hpp, docs/degeneracy.md).
  {
    const auto d = host.degeneracy();
    nlohmann::json intervals = nlohmann::json::array();
    for (const auto& i : d.intervals) {
      const auto& w = i.least_constrained;
      intervals.push_back({{"begin_s", i.begin}, {"end_s", i.end}, {"scans", i.scans}, {"directions", i.directions},
                           {"least_constrained_world_rot_trans", {w[0], w[1], w[2], w[3], w[4], w[5]}}, {"min_share", i.min_eigenvalue}});
    }
    std::string csv_path;
    if (d.scans > 0) {
      csv_path = (fs::path(output_dir) / "localizability.csv").string();
      std::ofstream csv(csv_path);
      csv << "# stamp_s,degenerate,share0,share1,share2,share3,share4,share5\n";
      for (const auto& s : host.scan_localizability()) {
        csv << fmt::format("{:.6f},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", s.stamp, s.degenerate, s.shares[0], s.shares[1], s.shares[2], s.shares[3],
                           s.shares[4], s.shares[5]);
      }
      if (!csv) throw std::runtime_error("cannot write " + csv_path);
    }
    report["degeneracy"] = {{"scans", d.scans}, {"degenerate_scans", d.degenerate_scans}, {"threshold", d.threshold},
                            {"projected", d.projected}, {"intervals", intervals}, {"per_scan", csv_path}};
  }
  // The high-rate pose stream (batchlio): its rate per second of data and its latency.
  const auto high_rate = host.high_rate_trajectory();
  std::string high_rate_path;
  if (!high_rate.empty()) {
    high_rate_path = (fs::path(output_dir) / "trajectory_high_rate.tum").string();
    if (!asuka::write_tum(high_rate_path, high_rate, &error)) throw std::runtime_error(error);
    const auto latency = host.high_rate_latency_seconds();
    double latency_total = 0.0;
    for (double l : latency) latency_total += l;
    const double span = high_rate.back().stamp - high_rate.front().stamp;
    report["high_rate_poses"] = {{"count", high_rate.size()},
                                 {"per_second_of_data", span > 0.0 ? static_cast<double>(high_rate.size() - 1) / span : 0.0},
                                 {"latency_s",
                                  {{"mean", latency_total / static_cast<double>(latency.size())},
                                   {"p95", percentile(latency, 0.95)},
                                   {"max", percentile(latency, 1.0)}}}};
  }
  report["outputs"] = {{"trajectory", trajectory_path}, {"trajectory_high_rate", high_rate_path}, {"map", map_saved ? map_path : ""}, {"config", config_path}};
  nlohmann::json extensions = nlohmann::json::array();
  for (const auto& extension : host.extensions()) {
    const bool saved = extension->save(output_dir);
    extensions.push_back({{"ok", extension->ok()}, {"saved", saved}});
  }
  report["extensions"] = extensions;
  const auto report_path = (fs::path(output_dir) / "report.json").string();
  std::ofstream out(report_path);
  out << report.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + report_path);

  std::printf("frames %lu  points kept %lu/%lu  imu %lu  wall %.2f s  real-time factor %.1fx\n", static_cast<unsigned long>(exec.frames_processed),
              static_cast<unsigned long>(stats.points_kept), static_cast<unsigned long>(stats.points_in), static_cast<unsigned long>(exec.imu_processed),
              summary.wall_seconds, summary.wall_seconds > 0.0 ? summary.data_seconds / summary.wall_seconds : 0.0);
  std::printf("trajectory %s (%zu poses)\nmap        %s\nreport     %s\n", trajectory_path.c_str(), trajectory.size(),
              map_saved ? map_path.c_str() : "(not saved by the frontend)", report_path.c_str());
  std::fflush(stdout);
}

}  // namespace asuka_ros
