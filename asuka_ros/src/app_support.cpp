#include <asuka_ros/app_support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <Eigen/Geometry>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/util/process_memory.hpp>

namespace asuka_ros {

namespace fs = std::filesystem;

namespace {

// The root without its config_odometry entry (set_root would load that file from the folder).
asuka::Config global_root_without_odometry(const asuka::Config& root) {
  auto copy = asuka::Config::parse("{}", root.name());
  for (const auto& key : root.keys("")) {
    if (key != "config_odometry") copy.set(key, root.value_json(key));
  }
  return copy;
}

// `--frontend NAME` when the folder has no config_odometry_NAME.json (a saved run's config folder holds
// only the frontend it ran): the default folder's file, with the shared sensor blocks (`sensor`,
// `preprocess`) of the folder's own odometry file carried over, since they describe the sensor, not
// the frontend. Returns nothing when the folder has the file or the defaults do not.
std::optional<asuka::Config> odometry_from_defaults(const asuka::Config& root, const ConfigurationOptions& o, std::vector<std::string>& notes) {
  const auto file = "config_odometry_" + o.frontend + ".json";
  std::error_code ec;
  if (o.frontend.empty() || fs::exists(fs::path(o.config_dir) / file, ec)) return std::nullopt;
  if (o.defaults_dir.empty() || !fs::exists(fs::path(o.defaults_dir) / file, ec)) return std::nullopt;
  auto chosen = asuka::Config::load((fs::path(o.defaults_dir) / file).string());
  const auto current_file = root.value_json("config_odometry").empty() ? std::string() : nlohmann::json::parse(root.value_json("config_odometry")).get<std::string>();
  std::string carried;
  if (!current_file.empty() && fs::exists(fs::path(o.config_dir) / current_file, ec)) {
    const auto current = asuka::Config::load((fs::path(o.config_dir) / current_file).string());
    for (const char* block : {"sensor", "preprocess"}) {
      for (const auto& key : current.keys(block)) {
        if (key.empty() || key[0] == '_') continue;
        const auto full = std::string(block) + "." + key;
        chosen.set(full, current.value_json(full));
        carried += (carried.empty() ? "" : ", ") + full;
      }
    }
  }
  notes.push_back(fmt::format("{} has no {}: using the default one ({}){}", o.config_dir, file, o.defaults_dir,
                              carried.empty() ? "" : fmt::format(", with {} from {} (they describe the sensor, shared by every frontend)", carried, current_file)));
  return chosen;
}

}  // namespace

ConfigurationResult load_configuration(const ConfigurationOptions& o) {
  auto& global = asuka::GlobalConfig::instance();
  ConfigurationResult result;
  auto root = asuka::Config::load((fs::path(o.config_dir) / "config.json").string());
  if (!o.sensor.empty()) root.set("sensor", "\"" + o.sensor + "\"");
  const auto default_odometry = odometry_from_defaults(root, o, result.notes);
  const auto odometry_file = "config_odometry_" + o.frontend + ".json";
  const auto install = [&] {
    if (default_odometry) {
      // The folder does not hold the file: load the others, then put the default one in its place.
      global.set_root(global_root_without_odometry(root), o.config_dir);
      global.root().set("config_odometry", "\"" + odometry_file + "\"");
      global.root().get<std::string>("config_odometry", "");  // recorded in the effective config.json
      global.set_module("config_odometry", *default_odometry, odometry_file);
    } else {
      if (!o.frontend.empty()) {
        std::error_code ec;
        if (fs::exists(fs::path(o.config_dir) / odometry_file, ec)) root.set("config_odometry", "\"" + odometry_file + "\"");
      }
      global.set_root(root, o.config_dir);
    }
  };
  install();
  // Root overrides first: they may name other module files, which set_root then loads.
  std::vector<std::string> module_overrides;
  bool root_changed = false;
  for (const auto& text : o.overrides) {
    if (text.rfind("config.", 0) == 0) {
      global.apply_override(text);
      root_changed = true;
    } else {
      module_overrides.push_back(text);
    }
  }
  if (root_changed) {
    root = asuka::Config(global.root());
    install();
  }
  if (!o.frontend.empty()) global.module("config_odometry").set("so_name", "\"" + o.frontend + "\"");
  // The sensor preset fills what the folder leaves out, before --set (docs/sensors.md).
  const auto sensor = global.root().get<std::string>("sensor", "");
  if (!sensor.empty()) {
    result.preset = asuka::load_sensor_preset(sensor, asuka::sensor_preset_dirs(o.config_dir, o.defaults_dir));
    std::vector<std::string> overridden;  // FILE.KEY of every --set: the note about a file value would be wrong for them
    for (const auto& text : module_overrides) overridden.push_back(text.substr(0, text.find('=')));
    for (auto& conflict : asuka::apply_sensor_preset(global, *result.preset, overridden)) result.notes.push_back(std::move(conflict));
    // The saved config/ names the preset by name and holds a copy of it (write_outputs), so that it
    // runs again from there, also for a preset of the user's folder or given as a file.
    global.root().set("sensor", "\"" + result.preset->name + "\"");
    global.root().get<std::string>("sensor", "");
  }
  for (const auto& text : module_overrides) global.apply_override(text);
  asuka::configure_logging(global.root());
  return result;
}

asuka::SensorSetup log_sensor_setup(const ConfigurationResult& configuration) {
  auto logger = asuka::module_logger("config");
  for (const auto& note : configuration.notes) logger->warn("{}", note);
  auto setup = asuka::describe_sensor_setup(asuka::GlobalConfig::instance(), configuration.preset ? &*configuration.preset : nullptr);
  logger->info("{}", setup.summary());
  for (const auto& warning : setup.warnings) logger->warn("{}", warning);
  return setup;
}

void print_sensor_presets(const std::string& config_dir, const std::string& defaults_dir) {
  const auto dirs = asuka::sensor_preset_dirs(config_dir, defaults_dir);
  std::string folders;
  for (const auto& d : dirs) folders += (folders.empty() ? "" : ", ") + d;
  std::printf("sensor presets (--sensor NAME; from %s):\n", folders.c_str());
  for (const auto& p : asuka::list_sensor_presets(dirs)) {
    const Eigen::Vector3d t = p.T_imu_lidar.translation();
    std::printf("  %-10s %-52s lidar_type %-9s imu %-8s extrinsic t = (%.4f, %.4f, %.4f) m%s\n", p.name.c_str(), p.description.c_str(), p.lidar_type.c_str(),
                p.imu_builtin ? "built-in" : "external", t.x(), t.y(), t.z(), p.extrinsic_known ? "" : " (placeholder: set your rig's)");
  }
}


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

void write_outputs(AsukaROS& host, const std::string& output_dir, bool map_saved, const RunSummary& summary) {
  fs::create_directories(output_dir);
  std::string error;
  // #18: the per-scan outputs went to output_dir as they came (host_params().record_dir), or were
  // kept in memory and are written now.
  const auto& record = host.record();
  if (!host.close_record(&error)) throw std::runtime_error(error);
  const bool streamed = record.mode() == asuka::RunRecord::Mode::STREAM;
  const auto trajectory_path = (fs::path(output_dir) / "trajectory.tum").string();
  if (!streamed || record.trajectory_path().empty()) {
    // in memory, or no scan was estimated: the (possibly empty) trajectory file is written here
    if (!asuka::write_tum(trajectory_path, record.trajectory(), &error)) throw std::runtime_error(error);
  }
  const auto config_path = (fs::path(output_dir) / "config").string();
  if (!asuka::GlobalConfig::instance().dump_effective(config_path, &error)) throw std::runtime_error(error);
  if (summary.sensor && !summary.sensor->preset_path.empty()) {
    std::error_code ec;
    fs::create_directories(fs::path(config_path) / "sensors", ec);
    fs::copy_file(summary.sensor->preset_path, fs::path(config_path) / "sensors" / (summary.sensor->preset + ".json"), fs::copy_options::overwrite_existing, ec);
    if (ec) throw std::runtime_error("cannot copy the sensor preset into " + config_path + "/sensors: " + ec.message());
  }

  const auto stats = host.stats();
  const auto& executor = host.executor();
  const auto exec = executor.stats();
  // The frontend's own time per estimated scan; the executor's per-frame-event time misses the work
  // a frame triggers later (when the IMU reaching its end arrives).
  const auto& frame_times = record.scan_seconds();
  const auto map_path = (fs::path(output_dir) / "map.pcd").string();

  nlohmann::json report;
  report["inputs"] = summary.inputs;
  report["frontend"] = host.params().so_name;
  if (summary.sensor) {
    const auto& sensor = *summary.sensor;
    const Eigen::Vector3d t = sensor.T_imu_lidar.translation();
    const Eigen::Matrix3d& R = sensor.T_imu_lidar.linear();
    report["sensor"] = {{"preset", sensor.preset},
                        {"description", sensor.description},
                        {"lidar_type", sensor.lidar_type},
                        {"extrinsic_t_m", {t.x(), t.y(), t.z()}},
                        {"extrinsic_R_row_major", {R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)}},
                        {"extrinsic_source", sensor.extrinsic_source},
                        {"warnings", sensor.warnings}};
  }
  report["data_duration_s"] = summary.data_seconds;
  report["wall_time_s"] = summary.wall_seconds;
  report["interrupted"] = summary.interrupted;
  report["real_time_factor"] = summary.wall_seconds > 0.0 ? summary.data_seconds / summary.wall_seconds : 0.0;
  report["frames"] = {{"messages", stats.frame_messages}, {"inserted", stats.frames_inserted}, {"processed", exec.frames_processed},
                      {"estimated", record.scans()}};
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
  report["time_per_stage_s"] = {
    {"decode_total", stats.decode_seconds},
    {"preprocess_total", stats.preprocess_seconds},
    {"estimate_per_scan",
     {{"mean", frame_times.mean()}, {"p95", frame_times.quantile(0.95)}, {"p99", frame_times.quantile(0.99)}, {"max", frame_times.max()}, {"total", frame_times.sum()}}},
  };
  report["memory"] = {{"peak_resident_mb", static_cast<double>(asuka::peak_resident_bytes()) / (1024.0 * 1024.0)}};
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
  // #16: the extrinsic rotation against the motion (asuka/lio/extrinsic_check.hpp).
  if (const auto c = host.extrinsic_check()) {
    using Verdict = asuka::ExtrinsicRotationCheck::Verdict;
    const Eigen::Matrix3d& R = c->R_imu_lidar_estimated;
    nlohmann::json check = {{"verdict", c->verdict == Verdict::WRONG     ? "wrong"
                                       : c->verdict == Verdict::SUSPECT ? "suspect"
                                       : c->verdict == Verdict::NONE    ? "none"
                                       : c->verdict == Verdict::GYRO_SCALE ? "gyro_scale"
                                       : c->verdict == Verdict::GYRO_SCALE_SUSPECT ? "gyro_scale_suspect"
                                                                        : "consistent"},
                            {"gyro_scale_ratio", c->gyro_scale_ratio},
                            {"slipped_pairs", c->slipped_pairs},
                            {"pairs", c->pairs},
                            {"rotation_rad", c->rotation_rad},
                            {"disagreement_deg", c->disagreement_deg},
                            {"estimated", c->estimated},
                            {"message", c->message}};
    if (c->estimated) {
      check["R_imu_lidar_estimated_row_major"] = {R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)};
      check["estimated_fit_deg"] = c->estimated_fit_deg;
      check["estimated_to_configured_deg"] = c->estimated_to_configured_deg;
    }
    report["extrinsic_check"] = check;
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
    std::string csv_path = record.localizability_path();
    if (!streamed && d.scans > 0) {
      csv_path = (fs::path(output_dir) / "localizability.csv").string();
      std::ofstream csv(csv_path);
      csv << asuka::kLocalizabilityCsvHeader;
      for (const auto& s : record.localizability()) csv << asuka::localizability_csv_line(s);
      if (!csv) throw std::runtime_error("cannot write " + csv_path);
    }
    report["degeneracy"] = {{"scans", d.scans}, {"degenerate_scans", d.degenerate_scans}, {"threshold", d.threshold},
                            {"projected", d.projected}, {"intervals", intervals}, {"per_scan", csv_path}};
  }
  // The high-rate pose stream (batchlio): its rate per second of data and its latency.
  std::string high_rate_path = record.high_rate_path();
  if (record.high_rate_poses() > 0) {
    if (!streamed) {
      high_rate_path = (fs::path(output_dir) / "trajectory_high_rate.tum").string();
      if (!asuka::write_tum(high_rate_path, record.high_rate_trajectory(), &error)) throw std::runtime_error(error);
    }
    const auto& latency = record.high_rate_latency();
    const double span = record.high_rate_last() - record.high_rate_first();
    report["high_rate_poses"] = {{"count", record.high_rate_poses()},
                                 {"per_second_of_data", span > 0.0 ? static_cast<double>(record.high_rate_poses() - 1) / span : 0.0},
                                 {"latency_s", {{"mean", latency.mean()}, {"p95", latency.quantile(0.95)}, {"max", latency.max()}}}};
  }
  report["outputs"] = {{"trajectory", trajectory_path}, {"trajectory_high_rate", high_rate_path}, {"scans", record.scans_path()}, {"map", map_saved ? map_path : ""}, {"config", config_path}};
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
  std::printf("trajectory %s (%zu poses)\nmap        %s\nreport     %s\n", trajectory_path.c_str(), record.scans(),
              map_saved ? map_path.c_str() : "(not saved by the frontend)", report_path.c_str());
  std::fflush(stdout);
}

}  // namespace asuka_ros
