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

double unit_scale(const std::string& unit) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e3;
  if (unit == "us") return 1e6;
  if (unit == "ns") return 1e9;
  throw std::invalid_argument("unknown point time unit '" + unit + "'; expected s, ms, us or ns");
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

struct FrameData {
  std::int64_t clock0 = 0;  ///< [s] whole seconds added to every stamp (SimParams::start_time)
  double start = 0.0;  ///< [s] frame start on the lidar clock (faults applied), relative to clock0
  double true_start = 0.0;  ///< [s] frame start on the true clock: when the sweep really began
  double period = 0.1;
  std::vector<SimPoint> points;
};

void write_frame(rosbag::Bag& bag, const std::string& topic, const ros::Time& received, const LidarModel& model, const SimParams& params,
                 const FrameData& f) {
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
    const double scale = faults.point_time_unit.empty() ? 1e9 : unit_scale(faults.point_time_unit);
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
  const double wrong = faults.point_time_unit.empty() ? 0.0 : unit_scale(faults.point_time_unit);
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

void validate(const SimParams& p) {
  auto positive = [](double v, const char* what) {
    if (!(v > 0.0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be a positive number");
  };
  auto non_negative = [](double v, const char* what) {
    if (!(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be >= 0");
  };
  positive(p.duration, "--duration");
  positive(p.imu.rate, "--imu-rate");
  non_negative(p.imu.acc_noise_density, "--acc-noise");
  non_negative(p.imu.gyro_noise_density, "--gyro-noise");
  non_negative(p.imu.acc_bias_walk, "--acc-bias-walk");
  non_negative(p.imu.gyro_bias_walk, "--gyro-bias-walk");
  non_negative(p.imu.acc_bias_initial, "--acc-bias");
  non_negative(p.imu.gyro_bias_initial, "--gyro-bias");
  non_negative(p.imu.gyro_range, "--gyro-range");
  non_negative(p.imu.acc_range, "--acc-range");
  non_negative(p.lidar_noise.range_noise, "--range-noise");
  if (!(p.lidar_noise.dropout >= 0.0 && p.lidar_noise.dropout < 1.0)) throw std::invalid_argument("--dropout must be in [0, 1)");
  if (!(p.faults.nan_points >= 0.0 && p.faults.nan_points <= 1.0)) throw std::invalid_argument("--nan-points must be in [0, 1]");
  if (p.faults.empty_frame_every < 0 || p.faults.drop_frame_every < 0 || p.faults.imu_out_of_order < 0) {
    throw std::invalid_argument("--empty-frame-every, --drop-frame-every and --imu-out-of-order must be >= 0");
  }
  if (!p.faults.point_time_unit.empty()) unit_scale(p.faults.point_time_unit);
  if (p.trajectory.static_duration < 0.0 || p.trajectory.ramp_duration < 0.0) throw std::invalid_argument("--static must be >= 0");
}

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
  validate(params);
  const auto scene = make_scene(params.scene, params.seed);
  const auto model = make_lidar(params.lidar);
  const Trajectory trajectory(params.trajectory, *scene);
  const Eigen::Isometry3d T_imu_lidar = params.extrinsic_set ? params.T_imu_lidar : model.T_imu_lidar;
  const auto imu = simulate_imu(trajectory, params.duration, params.imu, params.seed);

  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + output_dir + ": " + ec.message());

  SimResult result;
  result.bag_path = (fs::path(output_dir) / "sim.bag").string();
  result.ground_truth_path = (fs::path(output_dir) / "ground_truth.tum").string();
  result.sidecar_path = (fs::path(output_dir) / "sim.json").string();
  std::tie(result.imu_topic, result.points_topic) = topics_for(model);

  // Ground truth: the IMU pose at every IMU sample time (true clock).
  std::vector<asuka::StampedPose> gt;
  gt.reserve(imu.size());
  for (const auto& s : imu) gt.push_back({static_cast<double>(params.start_time) + s.measured.stamp, trajectory.pose(s.measured.stamp)});
  std::string error;
  if (!asuka::write_tum(result.ground_truth_path, gt, &error)) throw std::runtime_error(error);

  // IMU messages after the faults, in the order they are written.
  const auto& faults = params.faults;
  std::vector<const ImuSample*> imu_order;
  for (const auto& s : imu) {
    const double t = s.measured.stamp;
    if (faults.imu_gap_length > 0.0 && t >= faults.imu_gap_start && t < faults.imu_gap_start + faults.imu_gap_length) continue;
    imu_order.push_back(&s);
  }
  // Record (receive) times stay in order; swapped pairs only swap what they carry.
  std::vector<double> imu_received;
  for (const auto* s : imu_order) imu_received.push_back(static_cast<double>(params.start_time) + s->measured.stamp + params.imu_time_offset + 0.001);
  std::vector<std::size_t> swapped;
  if (faults.imu_out_of_order > 0 && imu_order.size() > 4) {
    // Evenly spread pairs, away from the first second (initialization).
    const std::size_t first = std::min(imu_order.size() - 2, static_cast<std::size_t>(params.imu.rate));
    const std::size_t span = imu_order.size() - 1 - first;
    for (int k = 0; k < faults.imu_out_of_order; ++k) {
      const std::size_t i = first + span * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(faults.imu_out_of_order + 1);
      std::swap(imu_order[i], imu_order[i + 1]);
      swapped.push_back(i);
    }
  }

  rosbag::Bag bag;
  try {
    bag.open(result.bag_path, rosbag::bagmode::Write);
  } catch (const rosbag::BagException& e) {
    throw std::runtime_error("cannot write " + result.bag_path + ": " + e.what());
  }

  const double period = 1.0 / model.rate;
  const int frame_count = static_cast<int>(std::floor((params.duration - period) / period + 1e-9)) + 1;
  const int passes = faults.loop ? 2 : 1;
  const double pass_shift = params.duration + 1.0;  // [s] of record time between the two passes
  std::mt19937_64 rng(params.seed * 0x9E3779B97F4A7C15ULL + 7);
  std::uniform_real_distribution<double> uniform01(0.0, 1.0);
  std::vector<FrameData> frames;  // cast once; the loop pass writes the same frames again
  frames.reserve(static_cast<std::size_t>(frame_count));
  for (int k = 0; k < frame_count; ++k) {
    FrameData f;
    f.period = period;
    const double true_start = k * period;
    f.points = cast_frame(model, *scene, trajectory, T_imu_lidar, true_start, params.lidar_noise, params.instantaneous, rng);
    f.clock0 = params.start_time;
    f.true_start = true_start;
    f.start = true_start + faults.lidar_time_offset;
    if (faults.nan_points > 0.0) {
      for (auto& p : f.points) {
        if (uniform01(rng) < faults.nan_points) p.p_lidar = Eigen::Vector3f::Constant(std::numeric_limits<float>::quiet_NaN());
      }
    }
    if (faults.empty_frame_every > 0 && (k + 1) % faults.empty_frame_every == 0) f.points.clear();
    frames.push_back(std::move(f));
  }

  for (int pass = 0; pass < passes; ++pass) {
    const double shift = pass * pass_shift;
    std::size_t next_imu = 0;
    auto write_imu_until = [&](double record_time) {
      while (next_imu < imu_order.size() && imu_received[next_imu] + shift <= record_time) {
        bag.write(result.imu_topic, ros_time(imu_received[next_imu] + shift), imu_message(*imu_order[next_imu], params));
        ++next_imu;
        ++result.imu_messages;
      }
    };
    for (int k = 0; k < frame_count; ++k) {
      const auto& f = frames[static_cast<std::size_t>(k)];
      // Drivers publish 10 ms after the sweep really ended, whatever their clock says.
      const double received = static_cast<double>(f.clock0) + f.true_start + period + 0.01 + shift;
      write_imu_until(received);
      if (faults.drop_frame_every > 0 && (k + 1) % faults.drop_frame_every == 0) continue;
      write_frame(bag, result.points_topic, ros_time(received), model, params, f);
      ++result.frames;
      result.points += f.points.size();
    }
    write_imu_until(std::numeric_limits<double>::infinity());
  }
  bag.close();

  const Eigen::Vector2d peaks = trajectory.peaks(params.duration);
  nlohmann::json j;
  j["tool"] = "asuka_sim";
  j["seed"] = params.seed;
  j["start_time_s"] = params.start_time;
  j["lidar"] = {{"model", model.name}, {"rate_hz", model.rate}, {"lines", model.lines}, {"min_range_m", model.min_range}, {"max_range_m", model.max_range},
                {"range_noise_m", params.lidar_noise.range_noise}, {"dropout", params.lidar_noise.dropout},
                {"format", model.format == CloudFormat::LIVOX ? (params.livox_pointcloud2 ? "livox_pointcloud2" : "livox_custom_msg")
                           : model.format == CloudFormat::VELODYNE ? "velodyne"
                           : model.format == CloudFormat::OUSTER ? "ouster" : "robosense"},
                {"header_at_end", params.header_at_end}, {"instantaneous", params.instantaneous}};
  j["T_imu_lidar"] = to_json(T_imu_lidar);
  j["imu"] = {{"rate_hz", params.imu.rate}, {"acc_noise_density", params.imu.acc_noise_density}, {"gyro_noise_density", params.imu.gyro_noise_density},
              {"acc_bias_walk", params.imu.acc_bias_walk}, {"gyro_bias_walk", params.imu.gyro_bias_walk},
              {"acc_bias_initial_sigma", params.imu.acc_bias_initial}, {"gyro_bias_initial_sigma", params.imu.gyro_bias_initial},
              {"gyro_range", params.imu.gyro_range}, {"acc_range", params.imu.acc_range},
              {"acc_bias_initial", {imu.front().bias_acc.x(), imu.front().bias_acc.y(), imu.front().bias_acc.z()}},
              {"gyro_bias_initial", {imu.front().bias_gyro.x(), imu.front().bias_gyro.y(), imu.front().bias_gyro.z()}},
              {"acc_bias_final", {imu.back().bias_acc.x(), imu.back().bias_acc.y(), imu.back().bias_acc.z()}},
              {"gyro_bias_final", {imu.back().bias_gyro.x(), imu.back().bias_gyro.y(), imu.back().bias_gyro.z()}},
              {"acc_unit", params.acc_in_g ? "g" : "m/s^2"}, {"time_offset_s", params.imu_time_offset}, {"gravity", kGravity}};
  j["scene"] = params.scene;
  j["trajectory"] = {{"profile", params.trajectory.profile}, {"duration_s", params.duration}, {"static_s", params.trajectory.static_duration},
                     {"ramp_s", params.trajectory.ramp_duration}, {"tilted_start", params.trajectory.tilted_start}, {"peak_speed_mps", peaks.x()},
                     {"peak_yaw_rate_dps", peaks.y() * 180.0 / 3.14159265358979323846}};
  j["faults"] = {{"loop", faults.loop}, {"imu_gap_start_s", faults.imu_gap_start}, {"imu_gap_length_s", faults.imu_gap_length},
                 {"imu_out_of_order_pairs", faults.imu_out_of_order}, {"imu_out_of_order_indices", swapped}, {"no_point_time", faults.no_point_time},
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
