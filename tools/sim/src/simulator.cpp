#include <asuka_sim/simulator.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <rosbag/bag.h>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/mcap.hpp>
#include <asuka/bag/rosbag2.hpp>
#include <asuka/bag/sqlite3_storage.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/lio/degeneracy.hpp>
#include <asuka_ros/message_encoding.hpp>
#include <asuka_sim/sim_messages.hpp>

namespace asuka::sim {

namespace {

namespace fs = std::filesystem;

ros::Time ros_time(double t) {
  ros::Time time;
  time.fromSec(std::max(t, 0.0));
  return time;
}

nlohmann::json to_json(const Eigen::Isometry3d& T) {
  const Eigen::Quaterniond q(T.linear());
  return {{"translation", {T.translation().x(), T.translation().y(), T.translation().z()}}, {"rotation_xyzw", {q.x(), q.y(), q.z(), q.w()}}};
}

/// Writes what the simulation hands out (sim_messages.hpp) into a bag: ROS 1, or ROS 2 (MCAP or SQLite3).
class BagSink : public SimSink {
public:
  BagSink(const SimParams& params, const LidarModel& model, SimResult& result) : params_(params), model_(model), result_(result) {}
  void imu(double received, const ImuSample& sample) override {
    write_imu(received, imu_message(sample, params_));
    ++result_.imu_messages;
  }
  void frame(double received, const SimFrame& frame) override {
    write_cloud(received, cloud_message(model_, params_, frame));
    ++result_.frames;
    result_.points += frame.points.size();
  }
  void image(double received, const SimImage& image) override {
    write_camera(received, camera_message(params_, image));
    ++result_.images;
  }
  virtual void close() = 0;

  // The truth beside the bag, written as the simulation hands it out (#18).
  void open_truth(const std::string& output_dir) {
    std::string error;
    if (!ground_truth_.open(result_.ground_truth_path, &error)) throw std::runtime_error(error);
    // #21: the IMU-only bound and the scene's degeneracy per frame (degeneracy_truth.hpp).
    if (!dead_reckoning_.open((fs::path(output_dir) / "dead_reckoning.tum").string(), &error)) throw std::runtime_error(error);
    degeneracy_path_ = (fs::path(output_dir) / "degeneracy_truth.csv").string();
    degeneracy_.open(degeneracy_path_);
    degeneracy_ << "# stamp_s,degenerate,share0,share1,share2,share3,share4,share5,weakest_rot_x,weakest_rot_y,weakest_rot_z,weakest_trans_x,weakest_trans_y,weakest_trans_z\n";
    if (!degeneracy_) throw std::runtime_error("cannot write " + degeneracy_path_);
  }
  void ground_truth(const StampedPose& pose) override { ground_truth_.write(pose); }
  void dead_reckoning(const StampedPose& pose) override { dead_reckoning_.write(pose); }
  void degeneracy_truth(double stamp, const Localizability& loc) override {
    const auto& e = loc.eigenvalues;
    const auto w = loc.directions.col(0);
    char line[512];
    std::snprintf(line, sizeof line, "%.6f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", stamp, loc.degenerate, e[0], e[1], e[2], e[3], e[4],
                  e[5], w[0], w[1], w[2], w[3], w[4], w[5]);
    degeneracy_ << line;
    ++degeneracy_frames_;
    if (loc.degenerate > 0) ++degenerate_frames_;
  }
  void close_truth() {
    std::string error;
    if (!ground_truth_.close(&error) || !dead_reckoning_.close(&error)) throw std::runtime_error(error);
    degeneracy_.flush();
    if (!degeneracy_) throw std::runtime_error("cannot write " + degeneracy_path_);
  }
  std::size_t degeneracy_frames() const { return degeneracy_frames_; }
  std::size_t degenerate_frames() const { return degenerate_frames_; }

protected:
  virtual void write_imu(double received, const msg::Imu& m) = 0;
  virtual void write_cloud(double received, const CloudMessage& m) = 0;
  virtual void write_camera(double received, const CameraMessage& m) = 0;
  const SimParams& params_;
  const LidarModel& model_;
  SimResult& result_;

private:
  TumWriter ground_truth_, dead_reckoning_;
  std::ofstream degeneracy_;
  std::string degeneracy_path_;
  std::size_t degeneracy_frames_ = 0, degenerate_frames_ = 0;
};

class Ros1BagSink : public BagSink {
public:
  Ros1BagSink(const std::string& path, const SimParams& params, const LidarModel& model, SimResult& result) : BagSink(params, model, result) {
    try {
      bag_.open(path, rosbag::bagmode::Write);
    } catch (const rosbag::BagException& e) {
      throw std::runtime_error("cannot write " + path + ": " + e.what());
    }
  }
  void close() override { bag_.close(); }

private:
  void write_imu(double received, const msg::Imu& m) override { bag_.write(result_.imu_topic, ros_time(received), asuka_ros::to_ros(m)); }
  void write_cloud(double received, const CloudMessage& m) override {
    if (m.is_livox) {
      bag_.write(result_.points_topic, ros_time(received), asuka_ros::to_ros(m.livox));
    } else {
      bag_.write(result_.points_topic, ros_time(received), asuka_ros::to_ros(m.cloud));
    }
  }
  void write_camera(double received, const CameraMessage& m) override {
    if (m.compressed) {
      bag_.write(result_.image_topic, ros_time(received), asuka_ros::to_ros(m.compressed_image));
    } else {
      bag_.write(result_.image_topic, ros_time(received), asuka_ros::to_ros(m.image));
    }
  }
  rosbag::Bag bag_;
};

/// A rosbag2 folder as `ros2 bag record` leaves it: metadata.yaml and one storage file.
class Ros2BagSink : public BagSink {
public:
  Ros2BagSink(const std::string& folder, bool mcap, const SimParams& params, const LidarModel& model, SimResult& result)
      : BagSink(params, model, result), folder_(folder), mcap_(mcap) {
    fs::remove_all(folder);
    fs::create_directories(folder);
    file_ = fs::path(folder).filename().string() + (mcap ? "_0.mcap" : "_0.db3");
    const std::string path = (fs::path(folder) / file_).string();
    const bool livox = model.format == CloudFormat::LIVOX && !params.livox_pointcloud2;
    cloud_type_ = livox ? bag::type_names::kLivoxCustomMsg : bag::type_names::kPointCloud2;
    if (mcap) {
      mcap_writer_ = std::make_unique<bag::McapWriter>(path);
    } else {
      sqlite_writer_ = std::make_unique<bag::Sqlite3Writer>(path);
    }
    add_topic(result_.imu_topic, bag::type_names::kImu);
    add_topic(result_.points_topic, cloud_type_);
    if (!result_.image_topic.empty()) {
      image_type_ = params.camera.format == "jpeg" ? bag::type_names::kCompressedImage : bag::type_names::kImage;
      add_topic(result_.image_topic, image_type_);
    }
  }
  void close() override {
    if (mcap_writer_) mcap_writer_->close();
    if (sqlite_writer_) sqlite_writer_->close();
    std::vector<bag::TopicInfo> topics(2);
    topics[0].name = result_.imu_topic;
    topics[0].type = bag::type_names::kImu;
    topics[0].messages = result_.imu_messages;
    topics[1].name = result_.points_topic;
    topics[1].type = cloud_type_;
    topics[1].messages = result_.frames;
    if (!result_.image_topic.empty()) {
      topics.emplace_back();
      topics.back().name = result_.image_topic;
      topics.back().type = image_type_;
      topics.back().messages = result_.images;
    }
    bag::write_rosbag2_metadata(folder_, mcap_ ? "mcap" : "sqlite3", {file_}, topics, first_, last_);
  }

private:
  void add_topic(const std::string& topic, const std::string& type) {
    if (mcap_writer_) mcap_writer_->add_topic(topic, type, bag::definition_of(type));
    if (sqlite_writer_) sqlite_writer_->add_topic(topic, type, bag::definition_of(type));
  }
  void write(const std::string& topic, double received, const std::vector<std::uint8_t>& cdr) {
    const std::uint64_t t = record_time_ns(received);
    first_ = any_ ? std::min(first_, t) : t;
    last_ = any_ ? std::max(last_, t) : t;
    any_ = true;
    if (mcap_writer_) mcap_writer_->write(topic, t, cdr);
    if (sqlite_writer_) sqlite_writer_->write(topic, t, cdr);
  }
  void write_imu(double received, const msg::Imu& m) override { write(result_.imu_topic, received, bag::write_imu(m)); }
  void write_cloud(double received, const CloudMessage& m) override {
    write(result_.points_topic, received, m.is_livox ? bag::write_livox_custom_msg(m.livox) : bag::write_point_cloud2(m.cloud));
  }
  void write_camera(double received, const CameraMessage& m) override {
    write(result_.image_topic, received, m.compressed ? bag::write_compressed_image(m.compressed_image) : bag::write_image(m.image));
  }

  std::string folder_;
  bool mcap_;
  std::string file_;
  std::string cloud_type_;
  std::string image_type_;
  std::unique_ptr<bag::McapWriter> mcap_writer_;
  std::unique_ptr<bag::Sqlite3Writer> sqlite_writer_;
  std::uint64_t first_ = 0, last_ = 0;
  bool any_ = false;
};

}  // namespace

std::pair<std::string, std::string> topics_for(const LidarModel& model) {
  switch (model.format) {
    case CloudFormat::LIVOX:
      return {"/livox/imu", "/livox/lidar"};
    case CloudFormat::VELODYNE:
      return {"/imu/data", "/velodyne_points"};
    case CloudFormat::OUSTER:
      return {"/os_cloud_node/imu", "/os_cloud_node/points"};
    case CloudFormat::ROBOSENSE:
      return {"/imu/data", "/rslidar_points"};
    case CloudFormat::HESAI:
      return {"/imu/data", "/hesai/pandar"};
  }
  return {"/imu", "/points"};
}

std::string camera_block_json(const SimCamera& camera) {
  const auto& k = camera.intrinsics;
  const Eigen::Matrix3d R = camera.T_imu_camera.linear();
  const Eigen::Vector3d t = camera.T_imu_camera.translation();
  nlohmann::json rotation = nlohmann::json::array();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) rotation.push_back(R(r, c));
  }
  const nlohmann::json block = {{"width", k.width}, {"height", k.height}, {"fx", k.fx}, {"fy", k.fy}, {"cx", k.cx}, {"cy", k.cy},
                                {"distortion", camera::to_string(k.distortion)}, {"coeffs", k.coeffs},
                                {"extrinsic_t", {t.x(), t.y(), t.z()}}, {"extrinsic_R", rotation}};
  return block.dump();
}

SimResult run_simulation(const SimParams& params, const std::string& output_dir) {
  const auto model = make_lidar(params.lidar);
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + output_dir + ": " + ec.message());

  SimResult result;
  if (params.format != "ros1" && params.format != "ros2-mcap" && params.format != "ros2-sqlite") {
    throw std::invalid_argument("--format '" + params.format + "' is not one of ros1, ros2-mcap, ros2-sqlite");
  }
  const std::string bag_name = params.format == "ros1" ? "sim.bag" : "sim_ros2";
  result.bag_path = (fs::path(output_dir) / bag_name).string();
  result.ground_truth_path = (fs::path(output_dir) / "ground_truth.tum").string();
  result.sidecar_path = (fs::path(output_dir) / "sim.json").string();
  std::tie(result.imu_topic, result.points_topic) = topics_for(model);
  if (!params.camera.model.empty()) result.image_topic = camera_topic(params.camera);
  std::unique_ptr<BagSink> sink_owner;
  if (params.format == "ros1") {
    sink_owner = std::make_unique<Ros1BagSink>(result.bag_path, params, model, result);
  } else {
    sink_owner = std::make_unique<Ros2BagSink>(result.bag_path, params.format == "ros2-mcap", params, model, result);
  }
  BagSink& sink = *sink_owner;
  sink.open_truth(output_dir);
  const SimOutput result_sim = simulate(params, sink);
  sink.close();
  sink.close_truth();
  const auto& faults = params.faults;


  const Eigen::Vector2d peaks = result_sim.peaks;
  nlohmann::json j;
  j["tool"] = "asuka_sim";
  j["seed"] = params.seed;
  j["start_time_s"] = params.start_time;
  j["lidar"] = {{"model", result_sim.model.name}, {"rate_hz", result_sim.model.rate}, {"lines", result_sim.model.lines}, {"min_range_m", result_sim.model.min_range}, {"max_range_m", result_sim.model.max_range},
                {"range_noise_m", params.lidar_noise.range_noise}, {"dropout", params.lidar_noise.dropout},
                {"format", result_sim.model.format == CloudFormat::LIVOX ? (params.livox_pointcloud2 ? "livox_pointcloud2" : "livox_custom_msg")
                           : result_sim.model.format == CloudFormat::VELODYNE ? "velodyne"
                           : result_sim.model.format == CloudFormat::OUSTER ? "ouster" : "robosense"},
                {"header_at_end", params.header_at_end}, {"instantaneous", params.instantaneous}};
  j["T_imu_lidar"] = to_json(result_sim.T_imu_lidar);
  j["imu"] = {{"rate_hz", params.imu.rate}, {"acc_noise_density", params.imu.acc_noise_density}, {"gyro_noise_density", params.imu.gyro_noise_density},
              {"acc_bias_walk", params.imu.acc_bias_walk}, {"gyro_bias_walk", params.imu.gyro_bias_walk},
              {"acc_bias_initial_sigma", params.imu.acc_bias_initial}, {"gyro_bias_initial_sigma", params.imu.gyro_bias_initial},
              {"gyro_range", params.imu.gyro_range}, {"acc_range", params.imu.acc_range},
              {"acc_bias_initial", {result_sim.first_imu.bias_acc.x(), result_sim.first_imu.bias_acc.y(), result_sim.first_imu.bias_acc.z()}},
              {"gyro_bias_initial", {result_sim.first_imu.bias_gyro.x(), result_sim.first_imu.bias_gyro.y(), result_sim.first_imu.bias_gyro.z()}},
              {"acc_bias_final", {result_sim.last_imu.bias_acc.x(), result_sim.last_imu.bias_acc.y(), result_sim.last_imu.bias_acc.z()}},
              {"gyro_bias_final", {result_sim.last_imu.bias_gyro.x(), result_sim.last_imu.bias_gyro.y(), result_sim.last_imu.bias_gyro.z()}},
              {"acc_unit", params.acc_in_g ? "g" : "m/s^2"}, {"time_offset_s", params.imu_time_offset}, {"gravity", kGravity}};
  j["scene"] = params.scene;
  j["trajectory"] = {{"profile", params.trajectory.profile}, {"duration_s", params.duration}, {"static_s", params.trajectory.static_duration},
                     {"ramp_s", params.trajectory.ramp_duration}, {"tilted_start", params.trajectory.tilted_start}, {"peak_speed_mps", peaks.x()},
                     {"peak_yaw_rate_dps", peaks.y() * 180.0 / 3.14159265358979323846}};
  if (params.trajectory.motion_seed != 0) j["trajectory"]["motion_seed"] = params.trajectory.motion_seed;  // #17 --random-motion
  j["faults"] = {{"loop", faults.loop}, {"imu_gap_start_s", faults.imu_gap_start}, {"imu_gap_length_s", faults.imu_gap_length},
                 {"imu_out_of_order_pairs", faults.imu_out_of_order}, {"imu_out_of_order_indices", result_sim.swapped_imu}, {"no_point_time", faults.no_point_time},
                 {"point_time_unit", faults.point_time_unit}, {"nan_points", faults.nan_points}, {"empty_frame_every", faults.empty_frame_every},
                 {"drop_frame_every", faults.drop_frame_every}, {"lidar_time_offset_s", faults.lidar_time_offset}};
  // The IMU value faults (#12) only when set: without them sim.json stays as it was.
  if (faults.imu_zeros_at_start > 0.0) j["faults"]["imu_zeros_at_start_s"] = faults.imu_zeros_at_start;
  if (faults.imu_zero_acc) j["faults"]["imu_zero_acc"] = true;
  if (faults.lidar_late_start > 0.0) j["faults"]["lidar_late_start_s"] = faults.lidar_late_start;
  if (faults.gyro_in_deg) j["faults"]["gyro_in_deg"] = true;
  if (faults.imu_nan_every > 0) j["faults"]["imu_nan_every"] = faults.imu_nan_every;
  if (faults.imu_spike_every > 0) j["faults"]["imu_spike_every"] = faults.imu_spike_every;
  if (faults.imu_duplicate_every > 0) j["faults"]["imu_duplicate_every"] = faults.imu_duplicate_every;
  j["topics"] = {{"imu", result.imu_topic}, {"points", result.points_topic}};
  if (result_sim.camera) {
    const auto& cam = params.camera;
    const auto& k = result_sim.camera->intrinsics;
    nlohmann::json images = nlohmann::json::array();
    for (std::size_t i = 0; i < result_sim.image_times.size(); ++i) {
      images.push_back({{"time_s", static_cast<double>(params.start_time) + result_sim.image_times[i]}, {"exposure_s", result_sim.image_exposures[i]}});
    }
    j["camera"] = {{"model", cam.model},
                   {"width", k.width},
                   {"height", k.height},
                   {"fx", k.fx},
                   {"fy", k.fy},
                   {"cx", k.cx},
                   {"cy", k.cy},
                   {"distortion", camera::to_string(k.distortion)},
                   {"coeffs", k.coeffs},
                   {"T_imu_camera", to_json(result_sim.camera->T_imu_camera)},
                   {"rate_hz", cam.rate},
                   {"free_running", cam.free_running},
                   {"format", cam.format},
                   {"topic", result.image_topic},
                   {"stamp", "mid-exposure, true clock + time_offset_s"},
                   {"auto_exposure", cam.auto_exposure},
                   {"noise", cam.noise},
                   {"faults", {{"drop_every", cam.drop_every}, {"time_offset_s", cam.time_offset}, {"wrong_encoding", cam.wrong_encoding},
                               {"corrupt_jpeg_every", cam.corrupt_jpeg_every}, {"dropped_indices", result_sim.dropped_images}}},
                   {"images", images}};
  }
  if (result_sim.camera) {
    result.camera_path = (fs::path(output_dir) / "camera.json").string();
    std::ofstream camera_out(result.camera_path);
    camera_out << camera_block_json(*result_sim.camera) << "\n";
    if (!camera_out) throw std::runtime_error("cannot write " + result.camera_path);
  }
  j["degeneracy_truth"] = {{"file", "degeneracy_truth.csv"}, {"threshold", asuka::lio::kDefaultDegeneracyThreshold}, {"frames", sink.degeneracy_frames()},
                           {"degenerate_frames", sink.degenerate_frames()}, {"voxel_m", 0.5}};
  j["outputs"] = {{"bag", bag_name}, {"format", params.format}, {"ground_truth", "ground_truth.tum"}, {"dead_reckoning", "dead_reckoning.tum"}, {"frames", result.frames}, {"imu_messages", result.imu_messages}, {"images", result.images},
                  {"points", result.points}};
  std::ofstream out(result.sidecar_path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + result.sidecar_path);
  return result;
}

}  // namespace asuka::sim
