// asuka_rosbag: runs a frontend offline over ROS 1 or ROS 2 bags, as fast as it goes, and writes
// trajectory.tum, map.pcd, config/ and report.json into the output directory. See docs/ros.md.

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <asuka/config/config.hpp>
#include <asuka/util/logging.hpp>
#include <asuka_ros/app_support.hpp>
#include <asuka_ros/asuka_ros.hpp>
#include <asuka_ros/bag_player.hpp>

namespace {

std::string format_duration(double seconds) {
  if (!(seconds >= 0.0) || seconds > 1e6) return "--:--";
  const int s = static_cast<int>(seconds + 0.5);
  return fmt::format("{:02d}:{:02d}", s / 60, s % 60);
}

// Ctrl-C (SIGINT) or SIGTERM: the player stops reading; what was read is processed and written,
// marked interrupted (#12). A second signal ends the program at once (the default action).
asuka_ros::BagPlayer* g_player = nullptr;
volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int signal_number) {
  g_interrupted = 1;
  if (g_player != nullptr) g_player->request_stop();
  std::signal(signal_number, SIG_DFL);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"asuka_rosbag: run a LiDAR-inertial odometry frontend over bags, offline (no ROS master): ROS 1 bags, and ROS 2 bags (a rosbag2 "
               "folder, an .mcap or a .db3 file) without a ROS 2 installation"};
  std::vector<std::string> bags;
  std::string config_dir = ASUKA_DEFAULT_CONFIG_DIR;
  std::string frontend;
  std::string sensor;
  bool list_sensors = false;
  std::string output_dir = "asuka_output";
  std::vector<std::string> overrides;
  app.add_option("--bag", bags, "Input bag: ROS 1 .bag, rosbag2 folder, MCAP or SQLite3 file, told apart by content (repeat for several of one kind; read together in "
                 "bag time order)");
  app.add_option("--config", config_dir, "Config directory holding config.json")->capture_default_str();
  app.add_option("--frontend", frontend, "Frontend name: config_odometry_NAME.json (the folder's, else the default one with the folder's sensor blocks), and so_name NAME");
  app.add_option("--sensor", sensor, "Sensor preset (topics, lidar type, scan lines, blind distance, lidar-IMU extrinsic): a name from --list-sensors or a "
                 "preset file. Fills what the config folder leaves out; --set wins. Default: config.json's \"sensor\"");
  app.add_flag("--list-sensors", list_sensors, "List the sensor presets and exit");
  app.add_option("--output", output_dir, "Output directory (trajectory.tum, map.pcd, config/, report.json)")->capture_default_str();
  app.add_option("--set", overrides,
                 "Override a config value: FILE.KEY=VALUE with FILE = config | config_ros | config_odometry | ..., KEY a dotted path, VALUE JSON or a "
                 "bare string. Example: --set config_ros.imu_topic=/imu --set config_odometry.preprocess.min_distance=1.0");
  CLI11_PARSE(app, argc, argv);

  auto logger = asuka::module_logger("ros");
  try {
    if (list_sensors) {
      asuka_ros::print_sensor_presets(config_dir, ASUKA_DEFAULT_CONFIG_DIR);
      return 0;
    }
    if (bags.empty()) {
      logger->error("--bag is required: a ROS 1 .bag, a rosbag2 folder, an .mcap or a .db3 file (see --help)");
      return 2;
    }
    const auto configuration = asuka_ros::load_configuration({config_dir, ASUKA_DEFAULT_CONFIG_DIR, frontend, sensor, overrides});
    const auto sensor_setup = asuka_ros::log_sensor_setup(configuration);
    auto params = asuka_ros::AsukaROSParams::from_config();
    if (params.reorder_window <= 0.0) params.reorder_window = 1.0;  // offline: sensor-time order, deterministic
    params.map_save_path = (std::filesystem::path(output_dir) / "map.pcd").string();  // config_ros.map_save_every
    params.record_dir = output_dir;  // #18: trajectory.tum, scans.csv, ... written as they come (check_output_dir creates it below)

    if (const std::string problem = asuka_ros::check_output_dir(output_dir); !problem.empty()) {
      logger->error("--output: {}; nothing was read", problem);
      return 2;
    }
    asuka_ros::BagPlayer player(bags, params);
    asuka_ros::AsukaROS host(params);
    asuka::GlobalConfig::instance().warn_unknown_keys();

    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    double last_line_fraction = -1.0;
    const auto wall_start = std::chrono::steady_clock::now();
    g_player = &player;
    struct ForgetPlayer {
      ~ForgetPlayer() { g_player = nullptr; }  // before the player goes, on every path
    } forget_player;
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    player.play(host, [&](const asuka_ros::BagPlayerProgress& p) {
      const double fps = p.wall_seconds > 0.0 ? static_cast<double>(p.frames) / p.wall_seconds : 0.0;
      const double rtf = p.wall_seconds > 0.0 ? p.bag_seconds / p.wall_seconds : 0.0;
      const double eta = rtf > 0.0 ? (player.duration() - p.bag_seconds) / rtf : -1.0;
      const auto line = fmt::format("{:5.1f}%  {:6.1f} frames/s  {:6.1f}x real time  ETA {}", 100.0 * p.fraction, fps, rtf, format_duration(eta));
      if (terminal) {
        std::fprintf(stderr, "\r%s", line.c_str());
      } else if (p.fraction >= last_line_fraction + 0.1 || p.fraction >= 1.0) {
        last_line_fraction = p.fraction;
        std::fprintf(stderr, "progress %s\n", line.c_str());
      }
    });
    if (terminal) std::fprintf(stderr, "\n");
    const bool interrupted = player.stopped();
    if (interrupted) {
      logger->warn("interrupted at {:.1f} s of {:.1f} s: finishing the queued work and writing what was processed (report.json: interrupted)",
                   player.stopped_at(), player.duration());
    }
    host.wait(true);

    std::filesystem::create_directories(output_dir);
    const bool map_saved = host.save((std::filesystem::path(output_dir) / "map.pcd").string());  // stops first (R-ROS-5)
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    asuka_ros::write_outputs(host, output_dir, map_saved,
                             asuka_ros::RunSummary{bags, interrupted ? player.stopped_at() : player.duration(), wall, interrupted, player.damage(), sensor_setup});
    if (!player.damage().empty()) {
      logger->error("the input is damaged, reading stopped early: {}; the outputs cover what came before it", player.damage());
      return 2;
    }
    if (const std::string input_error = host.input_error(); !input_error.empty()) {
      logger->error("the input is unusable, reading stopped: {}", input_error);
      return 2;
    }
    if (!host.executor().ok()) {
      logger->error("the frontend failed: {}", host.executor().failure_reason());
      return 3;
    }
    return interrupted ? 130 : 0;  // 128 + SIGINT, as shells report an interrupted program
  } catch (const asuka_ros::BagPlayerError& e) {
    logger->error("{}", e.what());
    return 2;
  } catch (const asuka::ConfigError& e) {
    logger->error("configuration: {}", e.what());
    return 2;
  } catch (const std::exception& e) {
    logger->error("{}", e.what());
    return 1;
  }
}
