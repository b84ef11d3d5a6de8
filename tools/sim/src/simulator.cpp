#include <asuka_sim/simulator.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <rosbag/bag.h>
#include <sensor_msgs/Imu.h>
#include <sensor_msgs/PointCloud2.h>

#include <asuka/io/trajectory_io.hpp>
#include <asuka_ros/livox_msgs.hpp>

namespace asuka::sim {

namespace {

namespace fs = std::filesystem;

ros::Time ros_time(double t) {
  ros::Time time;
  time.fromSec(std::max(t, 0.0));
  return time;
}

/// Packs PointCloud2 fields in order.
class CloudWriter {
public:
  void field(const std::string& name, std::uint8_t datatype, std::uint32_t size) {
    sensor_msgs::PointField f;
    f.name = name;
    f.offset = step_;
    f.datatype = datatype;
    f.count = 1;
    msg_.fields.push_back(f);
    step_ += size;
  }
  void resize(std::size_t n) {
    msg_.height = 1;
    msg_.width = static_cast<std::uint32_t>(n);
    msg_.point_step = step_;
    msg_.row_step = step_ * msg_.width;
    msg_.is_dense = false;
    msg_.data.assign(msg_.row_step, 0);
  }
  template <typename T>
  void set(std::size_t i, std::size_t field, T value) {
    std::memcpy(msg_.data.data() + i * step_ + msg_.fields[field].offset, &value, sizeof(T));
  }
  sensor_msgs::PointCloud2& msg() { return msg_; }

private:
  sensor_msgs::PointCloud2 msg_;
  std::uint32_t step_ = 0;
};

constexpr std::uint8_t F32 = sensor_msgs::PointField::FLOAT32;
constexpr std::uint8_t F64 = sensor_msgs::PointField::FLOAT64;
constexpr std::uint8_t U8 = sensor_msgs::PointField::UINT8;
constexpr std::uint8_t U16 = sensor_msgs::PointField::UINT16;
constexpr std::uint8_t U32 = sensor_msgs::PointField::UINT32;

void write_frame(rosbag::Bag& bag, const std::string& topic, const ros::Time& received, const LidarModel& model, const SimParams& params,
                 const SimFrame& f) {
  const auto& faults = params.faults;
  const bool has_time = !faults.no_point_time;
  // Integer nanoseconds: an absolute time of ~1.7e18 ns does not fit a double exactly.
  const std::uint64_t start_ns = static_cast<std::uint64_t>(f.clock0) * 1000000000ULL + static_cast<std::uint64_t>(std::llround(f.start * 1e9));

  if (model.format == CloudFormat::LIVOX && !params.livox_pointcloud2) {
    asuka_ros::LivoxCustomMsg msg;
    msg.header.stamp.fromNSec(start_ns);
    msg.header.frame_id = "livox_frame";
    msg.timebase = start_ns;
    msg.point_num = static_cast<std::uint32_t>(f.points.size());
    const double scale = faults.point_time_unit.empty() ? 1e9 : point_time_unit_scale(faults.point_time_unit);
    for (const auto& p : f.points) {
      asuka_ros::livox::CustomPointT<asuka_ros::livox::DriverV1> q;
      q.offset_time = has_time ? static_cast<std::uint32_t>(std::llround(p.offset * scale)) : 0u;
      q.x = p.p_lidar.x();
      q.y = p.p_lidar.y();
      q.z = p.p_lidar.z();
      q.reflectivity = static_cast<std::uint8_t>(std::min(255.0f, p.intensity));
      q.line = static_cast<std::uint8_t>(p.ring);
      msg.points.push_back(q);
    }
    bag.write(topic, received, msg);
    return;
  }

  CloudWriter w;
  w.field("x", F32, 4);
  w.field("y", F32, 4);
  w.field("z", F32, 4);
  w.field("intensity", F32, 4);
  std::size_t time_field = 0;
  double header = f.start;  // relative to clock0 until written
  switch (model.format) {
    case CloudFormat::LIVOX:  // PointXYZRTLT: tag, line, timestamp (absolute ns as float64)
      w.field("tag", U8, 1);
      w.field("line", U8, 1);
      if (has_time) w.field("timestamp", F64, 8), time_field = 6;
      break;
    case CloudFormat::VELODYNE:  // ring, time (float32 s relative to the header)
      w.field("ring", U16, 2);
      if (has_time) w.field("time", F32, 4), time_field = 5;
      if (params.header_at_end) header = f.start + f.period;
      break;
    case CloudFormat::OUSTER:  // t (uint32 ns from the scan start), reflectivity, ring, ambient, range
      if (has_time) w.field("t", U32, 4), time_field = 4;
      w.field("reflectivity", U16, 2);
      w.field("ring", U16, 2);
      w.field("ambient", U16, 2);
      w.field("range", U32, 4);
      break;
    case CloudFormat::ROBOSENSE:  // ring, timestamp (float64 absolute s)
      w.field("ring", U16, 2);
      if (has_time) w.field("timestamp", F64, 8), time_field = 5;
      if (params.header_at_end) header = f.start + f.period;
      break;
  }
  w.resize(f.points.size());
  const double wrong = faults.point_time_unit.empty() ? 0.0 : point_time_unit_scale(faults.point_time_unit);
  for (std::size_t i = 0; i < f.points.size(); ++i) {
    const auto& p = f.points[i];
    w.set<float>(i, 0, p.p_lidar.x());
    w.set<float>(i, 1, p.p_lidar.y());
    w.set<float>(i, 2, p.p_lidar.z());
    w.set<float>(i, 3, p.intensity);
    const double t_abs = static_cast<double>(f.clock0) + f.start + p.offset;
    switch (model.format) {
      case CloudFormat::LIVOX:
        w.set<std::uint8_t>(i, 4, 0);
        w.set<std::uint8_t>(i, 5, static_cast<std::uint8_t>(p.ring));
        if (has_time) w.set<double>(i, 6, wrong > 0.0 ? t_abs * wrong : static_cast<double>(start_ns) + p.offset * 1e9);
        break;
      case CloudFormat::VELODYNE:
        w.set<std::uint16_t>(i, 4, p.ring);
        if (has_time) w.set<float>(i, 5, static_cast<float>((f.start + p.offset - header) * (wrong > 0.0 ? wrong : 1.0)));
        break;
      case CloudFormat::OUSTER:
        if (has_time) w.set<std::uint32_t>(i, 4, static_cast<std::uint32_t>(std::llround(p.offset * (wrong > 0.0 ? wrong : 1e9))));
        w.set<std::uint16_t>(i, time_field == 4 ? 5 : 4, static_cast<std::uint16_t>(p.intensity));
        w.set<std::uint16_t>(i, time_field == 4 ? 6 : 5, p.ring);
        w.set<std::uint32_t>(i, time_field == 4 ? 8 : 7, static_cast<std::uint32_t>(p.p_lidar.norm() * 1000.0f));
        break;
      case CloudFormat::ROBOSENSE:
        w.set<std::uint16_t>(i, 4, p.ring);
        if (has_time) w.set<double>(i, 5, wrong > 0.0 ? t_abs * wrong : t_abs);
        break;
    }
  }
  auto& msg = w.msg();
  msg.header.stamp = ros_time(static_cast<double>(f.clock0) + header);
  msg.header.frame_id = model.format == CloudFormat::OUSTER ? "os_sensor" : model.format == CloudFormat::LIVOX ? "livox_frame" : "lidar";
  bag.write(topic, received, msg);
}

sensor_msgs::Imu imu_message(const ImuSample& s, const SimParams& params) {
  sensor_msgs::Imu msg;
  msg.header.stamp = ros_time(static_cast<double>(params.start_time) + s.measured.stamp + params.imu_time_offset);
  msg.header.frame_id = "imu";
  const double scale = params.acc_in_g ? 1.0 / kGravity : 1.0;
  msg.linear_acceleration.x = s.measured.acc.x() * scale;
  msg.linear_acceleration.y = s.measured.acc.y() * scale;
  msg.linear_acceleration.z = s.measured.acc.z() * scale;
  msg.angular_velocity.x = s.measured.gyro.x();
  msg.angular_velocity.y = s.measured.gyro.y();
  msg.angular_velocity.z = s.measured.gyro.z();
  msg.orientation_covariance[0] = -1.0;  // no orientation estimate
  return msg;
}

nlohmann::json to_json(const Eigen::Isometry3d& T) {
  const Eigen::Quaterniond q(T.linear());
  return {{"translation", {T.translation().x(), T.translation().y(), T.translation().z()}}, {"rotation_xyzw", {q.x(), q.y(), q.z(), q.w()}}};
}

/// Writes what the simulation hands out as ROS 1 messages into a bag.
class BagSink : public SimSink {
public:
  BagSink(const std::string& path, const SimParams& params, const LidarModel& model, SimResult& result)
  : params_(params), model_(model), result_(result) {
    try {
      bag_.open(path, rosbag::bagmode::Write);
    } catch (const rosbag::BagException& e) {
      throw std::runtime_error("cannot write " + path + ": " + e.what());
    }
  }
  void imu(double received, const ImuSample& sample) override {
    bag_.write(result_.imu_topic, ros_time(received), imu_message(sample, params_));
    ++result_.imu_messages;
  }
  void frame(double received, const SimFrame& frame) override {
    write_frame(bag_, result_.points_topic, ros_time(received), model_, params_, frame);
    ++result_.frames;
    result_.points += frame.points.size();
  }
  void close() { bag_.close(); }

private:
  const SimParams& params_;
  const LidarModel& model_;
  SimResult& result_;
  rosbag::Bag bag_;
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
  }
  return {"/imu", "/points"};
}

SimResult run_simulation(const SimParams& params, const std::string& output_dir) {
  const auto model = make_lidar(params.lidar);
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + output_dir + ": " + ec.message());

  SimResult result;
  result.bag_path = (fs::path(output_dir) / "sim.bag").string();
  result.ground_truth_path = (fs::path(output_dir) / "ground_truth.tum").string();
  result.sidecar_path = (fs::path(output_dir) / "sim.json").string();
  std::tie(result.imu_topic, result.points_topic) = topics_for(model);
  BagSink sink(result.bag_path, params, model, result);
  const SimOutput result_sim = simulate(params, sink);
  sink.close();
  std::string error;
  if (!asuka::write_tum(result.ground_truth_path, result_sim.ground_truth, &error)) throw std::runtime_error(error);
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
  j["faults"] = {{"loop", faults.loop}, {"imu_gap_start_s", faults.imu_gap_start}, {"imu_gap_length_s", faults.imu_gap_length},
                 {"imu_out_of_order_pairs", faults.imu_out_of_order}, {"imu_out_of_order_indices", result_sim.swapped_imu}, {"no_point_time", faults.no_point_time},
                 {"point_time_unit", faults.point_time_unit}, {"nan_points", faults.nan_points}, {"empty_frame_every", faults.empty_frame_every},
                 {"drop_frame_every", faults.drop_frame_every}, {"lidar_time_offset_s", faults.lidar_time_offset}};
  j["topics"] = {{"imu", result.imu_topic}, {"points", result.points_topic}};
  j["outputs"] = {{"bag", "sim.bag"}, {"ground_truth", "ground_truth.tum"}, {"frames", result.frames}, {"imu_messages", result.imu_messages},
                  {"points", result.points}};
  std::ofstream out(result.sidecar_path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + result.sidecar_path);
  return result;
}

}  // namespace asuka::sim
