// asuka_doctor: what is in a bag, what is wrong with it, and the config values that fit it.
// See docs/doctor.md.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <CLI/CLI.hpp>

#include <asuka/config/config.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka_doctor/doctor.hpp>

int main(int argc, char** argv) {
  CLI::App app{"asuka_doctor: report topics, rates, gaps, time conventions, IMU units and known faults of ROS 1 bags and ROS 2 bags (rosbag2 folder, .mcap, .db3), and suggest config values"};
  std::vector<std::string> bags;
  std::string config_dir;
  std::string json_path;
  std::string write_config;
  asuka::doctor::Options options;
  app.add_option("bag", bags, "Bag file(s)")->required();
  app.add_option("--config", config_dir, "Config directory: use its imu_topic and points_topic (default: pick the busiest topics)");
  app.add_option("--imu-topic", options.imu_topic, "IMU topic (overrides --config)");
  app.add_option("--points-topic", options.points_topic, "Cloud topic (overrides --config)");
  app.add_option("--image-topic", options.image_topic, "Camera topic (overrides --config; default: the busiest Image or CompressedImage topic)");
  app.add_option("--time-offset-frames", options.time_offset_frames,
                 "Clouds registered (the LiDAR alone) to estimate the lidar-IMU time offset from their rotation against the gyroscope (0: not estimated)")
      ->capture_default_str();
  app.add_option("--json", json_path, "Also write the report as JSON to this file");
  app.add_option("--write-config", write_config, "Write a config folder for this recording (the default files, the matching sensor preset and every "
                 "suggested setting) into this directory, and print the command that uses it");
  CLI11_PARSE(app, argc, argv);

  try {
    if (!config_dir.empty()) {
      // The topics a run with this folder would use: config_ros.json's, else its sensor preset's (#16).
      const auto ros = asuka::Config::load((std::filesystem::path(config_dir) / "config_ros.json").string());
      const auto root = asuka::Config::load((std::filesystem::path(config_dir) / "config.json").string());
      const auto sensor = root.get<std::string>("sensor", "");
      std::optional<asuka::SensorPreset> preset;
      if (!sensor.empty()) preset = asuka::load_sensor_preset(sensor, asuka::sensor_preset_dirs(config_dir, ASUKA_DEFAULT_CONFIG_DIR));
      const auto topic = [&](const std::string& key) {
        const auto value = ros.get<std::string>(key, "");
        if (!value.empty() || !preset) return value;
        const auto from_preset = preset->setting("config_ros." + key);
        return from_preset.empty() ? std::string() : from_preset.substr(1, from_preset.size() - 2);  // a JSON string
      };
      if (options.imu_topic.empty()) options.imu_topic = topic("imu_topic");
      if (options.points_topic.empty()) options.points_topic = topic("points_topic");
      if (options.image_topic.empty()) options.image_topic = ros.get<std::string>("image_topic", "");
    }
    options.preset_dirs = asuka::sensor_preset_dirs(config_dir, ASUKA_DEFAULT_CONFIG_DIR);
    const auto report = asuka::doctor::diagnose(bags, options);
    std::fputs(asuka::doctor::to_text(report).c_str(), stdout);
    if (!write_config.empty()) {
      asuka::doctor::write_config_folder(report, ASUKA_DEFAULT_CONFIG_DIR, write_config);
      std::string command = "asuka_rosbag";
      for (const auto& bag : bags) command += " --bag " + bag;
      std::printf("\nconfig folder written to %s; run it with:\n  %s --config %s --output asuka_output\n", write_config.c_str(), command.c_str(),
                  write_config.c_str());
    }
    if (!json_path.empty()) {
      std::ofstream out(json_path);
      out << asuka::doctor::to_json(report) << "\n";
      if (!out) throw std::runtime_error("cannot write " + json_path);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asuka_doctor: %s\n", e.what());
    return 2;
  }
}
