#include <asuka_doctor/doctor.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <rosbag/bag.h>
#include <rosbag/view.h>
#include <sensor_msgs/Imu.h>
#include <sensor_msgs/PointCloud2.h>

#include <asuka/bag/cdr.hpp>
#include <asuka/config/sensor_preset.hpp>
#include <asuka/bag/rosbag2.hpp>
#include <asuka/bag/rosbag2_player.hpp>
#include <asuka/host/input_checks.hpp>
#include <asuka/host/time_offset_check.hpp>
#include <asuka/lio/default_cloud_preprocessor.hpp>
#include <asuka/lio/lidar_odometry.hpp>
#include <asuka/messages/image_decoder.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace asuka::doctor {

namespace {

constexpr double kGravity = 9.80665;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

const char* datatype_name(std::uint8_t datatype) {
  static const char* names[] = {"?", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
  return datatype <= 8 ? names[datatype] : "unknown";
}

struct TopicData {
  std::string datatype;
  std::vector<double> stamps;     ///< header stamps in bag order
  std::vector<double> latencies;  ///< record time - stamp (clouds: - sweep end)
  std::size_t messages = 0;
};

struct CloudData {
  std::vector<std::string> fields;
  std::string time_field;
  std::uint8_t time_datatype = 0;
  bool livox_custom = false;
  std::vector<double> sweep;        ///< per frame: max offset [s]
  std::vector<double> frame_ends;   ///< per frame: start + max offset [s]
  std::vector<double> header_minus_start;
  std::size_t in_order = 0;
  std::size_t frames = 0;
  std::size_t points = 0;
  std::size_t empty = 0;
  std::size_t nan_points = 0;
  std::optional<msg::PointTimeConvention> convention;
  int max_line = -1;                ///< largest ring (spinning) or line (Livox) seen
  std::vector<float> elevations;    ///< [deg] a sample of the points' elevation in the sensor frame
};

std::string expected_unit_of(const CloudData& c) {
  if (c.livox_custom || c.time_field == "offset_time") return "ns";
  if (c.time_field == "time") return "s";
  if (c.time_field == "t") return "ns";
  return "";  // "timestamp": seconds (Robosense, Hesai) or nanoseconds (Livox): both usual
}

std::string suggest_lidar_type(const CloudData& c) {
  auto has = [&](const std::string& name) {
    return std::any_of(c.fields.begin(), c.fields.end(), [&](const std::string& f) { return f.rfind(name + ":", 0) == 0; });
  };
  if (c.livox_custom || (has("tag") && has("line"))) return "livox";
  if (c.time_field == "t") return "ouster";
  if (c.time_field == "time") return "velodyne";
  if (c.time_field == "timestamp") {
    // Both absolute seconds: Hesai's driver writes the time before the ring, Robosense's XYZIRT after it.
    const auto index = [&](const std::string& name) {
      const auto it = std::find_if(c.fields.begin(), c.fields.end(), [&](const std::string& f) { return f.rfind(name + ":", 0) == 0; });
      return it - c.fields.begin();
    };
    return has("ring") && index("timestamp") < index("ring") ? "hesai" : "robosense";
  }
  if (c.time_field.empty() && has("ring")) return "robosense";  // time rebuilt from the yaw (R-PRE-4)
  return "velodyne";
}

/// Returns the decoded frame, or null.
template <typename Msg>
LidarFrame::Ptr add_frame(CloudData& c, msg::CloudDecoder& decoder, const Msg& msg, double record_time, TopicData& topic) {
  const auto decoded = decoder.decode(msg);
  ++c.frames;
  c.points += decoded.points_in;
  if (!decoded.frame) {
    if (decoded.error && decoded.error->kind == "empty_cloud") ++c.empty;
    if (decoded.error && decoded.error->kind == "non_finite_points") c.nan_points += decoded.points_in;
    return nullptr;
  }
  const auto& f = *decoded.frame;
  c.nan_points += decoded.points_in - f.points.size();
  float previous = 0.0f;
  bool ordered = true;
  constexpr std::size_t kMaxElevations = 400000;
  const bool livox = f.lidar_type == asuka::LidarType::LIVOX;
  for (std::size_t i = 0; i < f.points.size(); ++i) {
    const auto& p = f.points[i];
    if (p.offset_ms < previous) ordered = false;
    previous = p.offset_ms;
    c.max_line = std::max(c.max_line, livox ? static_cast<int>(p.line) : static_cast<int>(p.ring));
    if (i % 7 == 0 && c.elevations.size() < kMaxElevations && p.range() > 0.5) {
      c.elevations.push_back(static_cast<float>(std::atan2(static_cast<double>(p.z), std::hypot(static_cast<double>(p.x), static_cast<double>(p.y))) * 57.29577951308232));
    }
  }
  c.in_order += ordered ? 1 : 0;
  const double sweep = static_cast<double>(f.max_offset_ms()) * 1e-3;
  c.sweep.push_back(sweep);
  c.frame_ends.push_back(f.stamp + sweep);
  c.header_minus_start.push_back(msg.header.stamp.seconds() - f.stamp);
  topic.latencies.push_back(record_time - (f.stamp + sweep));
  return decoded.frame;
}

/// #12 item 4: the LiDAR's own poses over the first frames (lidar_odometry.hpp), for the time offset.
struct LidarRotation {
  std::size_t max_frames = 0;  ///< 0: off
  std::size_t frames = 0;
  lio::DefaultCloudPreprocessor preprocessor{lio::PreprocessParams{}};
  lio::LidarOdometry odometry;
  std::vector<std::pair<double, Eigen::Matrix3d>> poses;  ///< (time, R_map_lidar) of the first and each registered scan

  void add(const LidarFrame& frame) {
    if (frames >= max_frames) return;
    ++frames;
    const auto scan = odometry.add(*preprocessor.preprocess(frame));
    if (!(scan.registered || poses.empty())) return;
    if (!poses.empty() && scan.time <= poses.back().first) return;
    poses.emplace_back(scan.time, scan.T_map_lidar.linear());
  }
};


bool is_imu_type(const std::string& t) { return t == "sensor_msgs/Imu" || t == bag::type_names::kImu; }

bool is_image_type(const std::string& t) { return t == "sensor_msgs/Image" || t == "sensor_msgs/CompressedImage" || bag::is_image_type(t); }

bool is_cloud_type(const std::string& t) {
  return t == "sensor_msgs/PointCloud2" || t == "livox_ros_driver/CustomMsg" || t == "livox_ros_driver2/CustomMsg" || bag::is_cloud_type(t);
}

/// A kind of topic the doctor looks for, and how a wrong choice of it is reported.
struct TopicKind {
  bool (*is_type)(const std::string&);
  const char* key;      ///< config_ros key
  const char* option;   ///< command-line option
  const char* types;    ///< what the topic must hold
  const char* finding;  ///< the finding when the topic asked for is absent or of another type
};

const TopicKind kImuKind{is_imu_type, "imu_topic", "--imu-topic", "sensor_msgs/Imu", "wrong_imu_topic"};
const TopicKind kCloudKind{is_cloud_type, "points_topic", "--points-topic", "sensor_msgs/PointCloud2 or Livox CustomMsg", "wrong_points_topic"};
const TopicKind kImageKind{is_image_type, "image_topic", "--image-topic", "sensor_msgs/Image or CompressedImage", "wrong_image_topic"};

constexpr double kZeroShare = 0.99;   ///< share of the samples that makes "reads zero throughout"
constexpr double kAccZero = 1e-3;     ///< [reported units] |acc| below this reads zero (g, m/s^2 or mg alike)
constexpr double kMinImuRate = 50.0;  ///< [Hz]
constexpr double kMinImuPerFrame = 4.0;

double norm(const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/// #12: what the IMU samples read (non-finite, spikes, zeros, deg/s, rate), each as a finding, and
/// the acceleration at rest over the first still second of the usable samples (units: the caller).
ImuReport check_imu_samples(const std::vector<msg::Imu>& messages, const std::string& topic, double imu_rate, double lidar_rate,
                            std::vector<Finding>& findings) {
  ImuReport imu;
  const std::size_t n = messages.size();
  imu.samples = n;
  std::vector<double> acc(n), gyro(n);
  std::vector<char> finite(n), zero(n), impossible(n);
  std::size_t acc_zero = 0, finite_count = 0;
  double first_non_finite = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = messages[i];
    acc[i] = norm(m.linear_acceleration);
    gyro[i] = norm(m.angular_velocity);
    finite[i] = std::isfinite(acc[i]) && std::isfinite(gyro[i]);
    if (!finite[i]) {
      if (imu.non_finite++ == 0) first_non_finite = m.header.stamp.seconds();
      continue;
    }
    ++finite_count;
    const auto is_zero = [](const std::array<double, 3>& v) { return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0; };
    zero[i] = is_zero(m.linear_acceleration) && is_zero(m.angular_velocity);
    impossible[i] = gyro[i] > InputChecks::kMaxGyro || acc[i] > InputChecks::kMaxAcc;
    imu.zero_samples += zero[i] ? 1 : 0;
    acc_zero += acc[i] < kAccZero ? 1 : 0;
  }
  while (imu.zeros_at_start < n && (zero[imu.zeros_at_start] || !finite[imu.zeros_at_start])) ++imu.zeros_at_start;
  while (imu.zeros_at_start > 0 && !zero[imu.zeros_at_start - 1]) --imu.zeros_at_start;  // a NaN run after the zeros is not a zero
  // A spike is an impossible sample between possible ones; impossible samples in runs are a unit.
  std::vector<char> spike(n);
  std::size_t spike_gyro = 0, impossible_gyro_runs = 0;
  double largest_gyro = 0.0;
  std::size_t first_spike = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (!impossible[i]) continue;
    spike[i] = (i == 0 || !impossible[i - 1]) && (i + 1 == n || !impossible[i + 1]);
    if (spike[i]) {
      ++imu.spikes;
      spike_gyro += gyro[i] > InputChecks::kMaxGyro ? 1 : 0;
      first_spike = std::min(first_spike, i);
    } else if (gyro[i] > InputChecks::kMaxGyro) {
      ++impossible_gyro_runs;
    }
  }
  std::vector<std::size_t> usable;  // finite, not an all-zero sample, not a spike
  std::vector<double> gyro_usable;
  for (std::size_t i = 0; i < n; ++i) {
    if (!finite[i] || zero[i] || spike[i]) continue;
    usable.push_back(i);
    gyro_usable.push_back(gyro[i]);
    largest_gyro = std::max(largest_gyro, gyro[i]);
  }
  if (!gyro_usable.empty()) {
    const auto k = static_cast<std::ptrdiff_t>(0.99 * static_cast<double>(gyro_usable.size() - 1));
    std::nth_element(gyro_usable.begin(), gyro_usable.begin() + k, gyro_usable.end());
    imu.gyro_p99 = gyro_usable[static_cast<std::size_t>(k)];
  }
  const double share = finite_count > 0 ? 1.0 / static_cast<double>(finite_count) : 0.0;
  imu.all_zero = finite_count > 0 && static_cast<double>(imu.zero_samples) * share >= kZeroShare;
  imu.acc_zero = !imu.all_zero && finite_count > 0 && static_cast<double>(acc_zero) * share >= kZeroShare;

  if (imu.non_finite > 0) {
    findings.push_back({"imu_nan", topic,
                        fmt::format("{} of {} IMU sample(s) are not finite (NaN or inf in the acceleration or angular velocity; the first "
                                    "at {:.6f} s): asuka drops them (non_finite_imu, imu_implausible warnings); the driver or the "
                                    "recording is broken there",
                                    imu.non_finite, n, first_non_finite)});
  }
  if (imu.all_zero) {
    findings.push_back({"imu_all_zero", topic,
                        fmt::format("{} of {} IMU samples read exactly zero, acceleration and angular velocity: the driver publishes "
                                    "empty messages on this topic (not streaming, another device, or the data in other fields); asuka "
                                    "cannot initialize from it and stops with exit 2 ([imu_units]). Check the driver and the topic",
                                    imu.zero_samples, n)});
  } else if (imu.acc_zero) {
    findings.push_back({"acc_zero", topic,
                        fmt::format("the accelerometer reads (almost) zero (|acc| < {}) in {} of {} samples while the gyroscope "
                                    "reads: the IMU does not report acceleration on this topic, or reports it in another field; "
                                    "asuka needs it (gravity) and stops with exit 2 ([imu_units]). Check the driver's accelerometer output",
                                    kAccZero, acc_zero, n)});
  }
  if (!imu.all_zero && imu.zeros_at_start > 0) {
    const double from = messages.front().header.stamp.seconds();
    const double until = imu.zeros_at_start < n ? messages[imu.zeros_at_start].header.stamp.seconds() : messages.back().header.stamp.seconds();
    findings.push_back({"imu_zeros_at_start", topic,
                        fmt::format("the first {} IMU sample(s) ({:.3f} s, until {:.6f} s) read exactly zero on all six axes "
                                    "before real data: a driver warming up; the initialization takes them as measurements "
                                    "(gravity too short, gyro bias zero). Trim the bag's start, or have the driver publish "
                                    "only after its warm-up",
                                    imu.zeros_at_start, until - from, until)});
  }
  const bool gyro_in_deg = imu.gyro_p99 > InputChecks::kDegGyro || impossible_gyro_runs >= InputChecks::kMaxImpossible;
  if (gyro_in_deg) {
    findings.push_back({"gyro_in_deg", topic,
                        fmt::format("|gyro| is {:.3g} or more in 1% of the samples (99th percentile; up to {:.4g}; {} sample(s) above {} "
                                    "rad/s in runs): no handheld or vehicle motion turns that fast in rad/s; the gyroscope most likely "
                                    "reports deg/s (x 57.3) where sensor_msgs/Imu and asuka expect rad/s: set config_ros.gyro_scale to "
                                    "0.017453293, or convert the driver's output (x pi/180)",
                                    imu.gyro_p99, largest_gyro, impossible_gyro_runs, InputChecks::kMaxGyro)});
  }
  if (imu.spikes > 0 && !gyro_in_deg) {
    const auto& m = messages[first_spike];
    findings.push_back(
        {"imu_spikes", topic,
         fmt::format("{} isolated IMU sample(s) beyond any IMU's range (|gyro| > {} rad/s or |acc| > {} m/s^2 = 50 g; the first at {:.6f} s "
                     "reads |gyro| {:.4g} rad/s, |acc| {:.4g} m/s^2): corrupt samples; asuka drops each with an imu_implausible warning{}",
                     imu.spikes, InputChecks::kMaxGyro, InputChecks::kMaxAcc, m.header.stamp.seconds(), gyro[first_spike], acc[first_spike],
                     spike_gyro >= InputChecks::kMaxImpossible
                         ? fmt::format(", and after {} such gyro samples it stops with exit 2 as for a gyroscope in deg/s", InputChecks::kMaxImpossible)
                         : std::string())});
  }
  if (imu_rate > 0.0 && (imu_rate < kMinImuRate || (lidar_rate > 0.0 && imu_rate < kMinImuPerFrame * lidar_rate))) {
    findings.push_back(
        {"imu_rate_low", topic,
         fmt::format("the IMU runs at {:.1f} Hz{}: FAST-LIO-class filters propagate the state from sample to sample "
                     "and need the IMU well above the lidar rate (at least {} Hz and {} samples per frame; IMUs give "
                     "100-400 Hz): set the driver's IMU rate, or record the raw topic instead of a throttled one",
                     imu_rate,
                     lidar_rate > 0.0 ? fmt::format(", {:.1f} sample(s) per {:.1f} Hz lidar frame", imu_rate / lidar_rate, lidar_rate) : std::string(),
                     kMinImuRate, kMinImuPerFrame)});
  }

  // Units at rest: the first second of usable samples in which the gyro is still.
  const double period = imu_rate > 0.0 ? std::max(1e-4, 1.0 / imu_rate) : 0.005;
  const std::size_t window = std::max<std::size_t>(10, static_cast<std::size_t>(1.0 / period));
  for (std::size_t start = 0; start + window <= usable.size(); start += window / 2) {
    double sum = 0.0, max_gyro = 0.0;
    for (std::size_t k = start; k < start + window; ++k) {
      sum += acc[usable[k]];
      max_gyro = std::max(max_gyro, gyro[usable[k]]);
    }
    if (max_gyro < 0.05) {
      imu.at_rest_found = true;
      imu.acc_norm_at_rest = sum / static_cast<double>(window);
      break;
    }
  }
  return imu;
}

/// What one pass over a bag collects, whatever the bag's kind: messages arrive already converted to
/// the ROS-free sensor messages.
struct Collector {
  std::map<std::string, TopicData> topics;
  std::map<std::string, std::size_t> counts;  ///< messages per topic, from the bag's index
  std::string imu_topic;
  std::string points_topic;
  std::string image_topic;
  std::size_t max_frames = 0;
  CameraReport camera;
  std::string first_unreadable;  ///< the decoder's message for the first image it refused
  CloudData cloud;
  msg::CloudDecoder decoder{LidarType::VELODYNE, {}};
  LidarRotation lidar_rotation;
  std::vector<msg::Imu> imu_messages;
  std::vector<Finding> topic_findings;  ///< topics asked for that the bag does not hold (wrong_*_topic)
  /// The host's clock check on the stamps in bag order, as asuka runs it: its `clocks` message.
  std::string clock_error;
  InputChecks clock_check{[this](const std::string& kind, const std::string& message, bool) {
    if (kind == "clocks" && clock_error.empty()) clock_error = message;
  }};

  std::size_t count_of(const std::string& name) const { return counts.count(name) ? counts.at(name) : 0; }
  /// `wanted` when the bag holds it with the right type; otherwise the busiest topic of the kind,
  /// and (for a `wanted` that is absent or of another type) a finding that names the real topics.
  std::string pick(const std::string& wanted, const TopicKind& kind) {
    std::vector<std::string> candidates;
    for (const auto& [name, t] : topics) {
      if (kind.is_type(t.datatype)) candidates.push_back(name);
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](const std::string& a, const std::string& b) { return count_of(a) > count_of(b); });
    if (wanted.empty()) return candidates.empty() ? "" : candidates.front();
    const auto it = topics.find(wanted);
    if (it != topics.end() && kind.is_type(it->second.datatype)) return wanted;
    std::string real;
    for (const auto& name : candidates) real += fmt::format("{}'{}' ({} messages)", real.empty() ? "" : ", ", name, count_of(name));
    const std::string what = it == topics.end() ? "is not in the bag" : fmt::format("holds {}, not {}", it->second.datatype, kind.types);
    const std::string instead = candidates.empty()
                                    ? fmt::format("; the bag has no {} topic", kind.types)
                                    : fmt::format(": the bag's {} topic{} {}; set {} (or config_ros.{}) to '{}' (the report below uses it)", kind.types,
                                                  candidates.size() > 1 ? "s are" : " is", real, kind.option, kind.key, candidates.front());
    topic_findings.push_back({kind.finding, wanted, fmt::format("{} '{}' {}{}", kind.key, wanted, what, instead)});
    return candidates.empty() ? "" : candidates.front();
  }
  void pick_topics(const Options& options) {
    imu_topic = pick(options.imu_topic, kImuKind);
    points_topic = pick(options.points_topic, kCloudKind);
    image_topic = pick(options.image_topic, kImageKind);
  }
  bool wants_frame() const { return max_frames == 0 || cloud.frames < max_frames; }
  void imu(const std::string& topic, double record, const msg::Imu& m) {
    auto& t = topics[topic];
    t.stamps.push_back(m.header.stamp.seconds());
    t.latencies.push_back(record - m.header.stamp.seconds());
    imu_messages.push_back(m);
    ImuData stamp_only;  // the clock check needs the stamp; the doctor diagnoses the values itself
    stamp_only.stamp = m.header.stamp.seconds();
    clock_check.check_imu(stamp_only, 1.0, false);
  }
  void frame(const std::string& topic, double record, const msg::PointCloud2& m) {
    auto& t = topics[topic];
    t.stamps.push_back(m.header.stamp.seconds());
    clock_check.check_frame(m.header.stamp.seconds());
    if (cloud.fields.empty()) {
      for (const auto& f : m.fields) cloud.fields.push_back(f.name + ":" + datatype_name(f.datatype));
    }
    if (const auto f = add_frame(cloud, decoder, m, record, t)) lidar_rotation.add(*f);
    if (cloud.time_field.empty()) cloud.time_field = decoder.time_field();
  }
  void image(const std::string& topic, double record, const msg::Header& header, const msg::DecodedImage& decoded, bool compressed) {
    auto& t = topics[topic];
    t.stamps.push_back(header.stamp.seconds());
    t.latencies.push_back(record - header.stamp.seconds());
    ++camera.images;
    if (!decoded.image) {
      ++camera.unreadable;
      if (first_unreadable.empty() && decoded.error) first_unreadable = decoded.error->message;
      return;
    }
    if (camera.encoding.empty()) {
      camera.encoding = std::string(compressed ? "compressed -> " : "") + to_string(decoded.image->encoding);
      camera.width = decoded.image->width;
      camera.height = decoded.image->height;
    }
  }
  void frame(const std::string& topic, double record, const msg::LivoxCustomMsg& m) {
    auto& t = topics[topic];
    cloud.livox_custom = true;
    t.stamps.push_back(m.header.stamp.seconds());
    clock_check.check_frame(m.header.stamp.seconds());
    if (const auto f = add_frame(cloud, decoder, m, record, t)) lidar_rotation.add(*f);
  }
};

/// ROS 1 bags, through ROS's bag library. Returns "" or why reading stopped early.
std::string read_ros1(const std::vector<std::string>& bag_paths, const Options& options, Collector& c) {
  std::vector<std::unique_ptr<rosbag::Bag>> bags;
  for (const auto& path : bag_paths) {
    auto bag = std::make_unique<rosbag::Bag>();
    try {
      bag->open(path, rosbag::bagmode::Read);
    } catch (const rosbag::BagException& e) {
      throw std::runtime_error(fmt::format("cannot read bag '{}': {}", path, e.what()));
    }
    bags.push_back(std::move(bag));
  }
  {
    rosbag::View all;
    for (const auto& b : bags) all.addQuery(*b);
    for (const auto* conn : all.getConnections()) c.topics[conn->topic].datatype = conn->datatype;
    for (const auto& [name, t] : c.topics) {
      rosbag::View v;
      for (const auto& b : bags) v.addQuery(*b, rosbag::TopicQuery(name));
      c.counts[name] = v.size();
    }
  }
  c.pick_topics(options);

  std::vector<msg::LivoxPoint> points;
  rosbag::View view;
  for (const auto& b : bags) view.addQuery(*b);
  try {
    for (const auto& m : view) {
      auto& t = c.topics[m.getTopic()];
      ++t.messages;
      const double record = m.getTime().toSec();
      if (m.getTopic() == c.imu_topic) {
        if (auto imu = m.instantiate<sensor_msgs::Imu>()) c.imu(m.getTopic(), record, asuka_ros::to_message(*imu));
      } else if (m.getTopic() == c.points_topic && c.wants_frame()) {
        if (auto pc = m.instantiate<sensor_msgs::PointCloud2>()) {
          c.frame(m.getTopic(), record, asuka_ros::to_message(*pc));
        } else if (auto lv = m.instantiate<asuka_ros::LivoxCustomMsg>()) {
          c.frame(m.getTopic(), record, asuka_ros::to_message(*lv, points));
        } else if (auto lv2 = m.instantiate<asuka_ros::Livox2CustomMsg>()) {
          c.frame(m.getTopic(), record, asuka_ros::to_message(*lv2, points));
        }
      } else if (m.getTopic() == c.image_topic) {
        if (auto image = m.instantiate<sensor_msgs::Image>()) {
          const auto message = asuka_ros::to_message(*image);
          c.image(m.getTopic(), record, message.header, msg::decode_image(message), false);
        } else if (auto compressed = m.instantiate<sensor_msgs::CompressedImage>()) {
          const auto message = asuka_ros::to_message(*compressed);
          c.image(m.getTopic(), record, message.header, msg::decode_compressed_image(message), true);
        }
      }
    }
  } catch (const rosbag::BagException& e) {
    return e.what();
  }
  return "";
}

/// ROS 2 bags (rosbag2 folders, MCAP, SQLite3), through asuka's own reader. Returns "" or why reading
/// stopped early (damage, a message that cannot be deserialized is counted per topic instead).
std::string read_ros2(const std::vector<std::string>& bag_paths, const Options& options, Collector& c, std::vector<Finding>& findings) {
  std::vector<std::unique_ptr<bag::BagReader>> readers;
  try {
    for (const auto& path : bag_paths) readers.push_back(bag::open_rosbag2(path));
  } catch (const bag::BagError& e) {
    throw std::runtime_error(e.what());
  }
  auto reader = bag::merge_readers(std::move(readers));
  for (const auto& t : reader->topics()) {
    c.topics[t.name].datatype = t.type;
    c.counts[t.name] = t.messages;
    if (const auto problem = bag::check_definition(t.type, t.definition); !problem.empty()) findings.push_back({"definition_mismatch", t.name, problem});
  }
  c.pick_topics(options);

  std::vector<msg::LivoxPoint> points;
  std::map<std::string, std::size_t> bad;
  bag::BagMessage m;
  while (reader->next(m)) {
    const std::string& topic = m.topic->name;
    ++c.topics[topic].messages;
    // As ros::Time::toSec: whole seconds plus nanoseconds, so both bag kinds give the same numbers.
    const double record = msg::Stamp{static_cast<std::int64_t>(m.log_time / 1000000000ULL), static_cast<std::uint32_t>(m.log_time % 1000000000ULL)}.seconds();
    try {
      if (topic == c.imu_topic && is_imu_type(m.topic->type)) {
        c.imu(topic, record, bag::read_imu(m.data));
      } else if (topic == c.image_topic && m.topic->type == bag::type_names::kImage) {
        const auto message = bag::read_image(m.data);
        c.image(topic, record, message.header, msg::decode_image(message), false);
      } else if (topic == c.image_topic && m.topic->type == bag::type_names::kCompressedImage) {
        const auto message = bag::read_compressed_image(m.data);
        c.image(topic, record, message.header, msg::decode_compressed_image(message), true);
      } else if (topic == c.points_topic && c.wants_frame()) {
        if (m.topic->type == bag::type_names::kPointCloud2) {
          c.frame(topic, record, bag::read_point_cloud2(m.data));
        } else if (bag::is_cloud_type(m.topic->type)) {
          c.frame(topic, record, bag::read_livox_custom_msg(m.data, points));
        }
      }
    } catch (const bag::CdrError& e) {
      if (bad[topic]++ == 0) findings.push_back({"bad_cdr", topic, fmt::format("a message cannot be deserialized: {}", e.what())});
    }
  }
  return reader->damage();
}

}  // namespace

namespace {

std::string shell_word(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:,[]+") == std::string::npos) return text;
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

/// The preset whose lidar type and line count match the recording's, nearest in vertical field of view.
std::optional<SensorMatch> match_preset(const CloudReport& c, const std::vector<SensorPreset>& presets, const SensorPreset** chosen) {
  const auto distance = [&](const SensorPreset& p) { return std::fabs(p.elevation_min_deg - c.elevation_min_deg) + std::fabs(p.elevation_max_deg - c.elevation_max_deg); };
  const SensorPreset* best = nullptr;
  bool lines_match = true;
  for (int pass = 0; pass < 2 && best == nullptr; ++pass) {
    for (const auto& p : presets) {
      if (p.lidar_type != c.lidar_type) continue;
      if (pass == 0 && p.lines > 0 && c.lines > 0 && p.lines != c.lines) continue;
      if (best == nullptr || distance(p) < distance(*best)) best = &p;
    }
    lines_match = pass == 0;
  }
  if (best == nullptr) return std::nullopt;
  *chosen = best;
  SensorMatch m;
  m.preset = best->name;
  m.description = best->description;
  m.extrinsic_known = best->extrinsic_known;
  m.reason = fmt::format("lidar_type {}, {} line(s){}, vertical field of view [{:.1f}, {:.1f}] deg (the preset's [{:.1f}, {:.1f}])", c.lidar_type, c.lines,
                         lines_match ? "" : " (no preset has that many: the nearest field of view)", c.elevation_min_deg, c.elevation_max_deg,
                         best->elevation_min_deg, best->elevation_max_deg);
  const Eigen::Vector3d t = best->T_imu_lidar.translation();
  m.extrinsic = best->extrinsic_known
                    ? fmt::format("the preset's T_imu_lidar t = ({:.5f}, {:.5f}, {:.5f}) m: {}", t.x(), t.y(), t.z(), best->extrinsic_source)
                    : fmt::format("unknown: {}. Measure T_imu_lidar (the lidar origin and axes in the IMU frame) and add --set "
                                  "config_odometry.sensor.extrinsic_t=[x,y,z] --set config_odometry.sensor.extrinsic_R=[9 numbers, row-major]",
                                  best->imu_builtin ? "the manufacturer does not publish it" : "the IMU is external, so it is your rig's");
  return m;
}

/// #12 item 4: the LiDAR's own rotation over the first frames against the gyroscope, with the rotation
/// between their frames fitted (the doctor does not know the extrinsic). The LiDAR's poses owe nothing
/// to the IMU here, so the whole offset shows (a filter's poses, which follow the IMU a little, show
/// 40-60 % of it: the host's check in asuka_rosbag).
void estimate_time_offset(const LidarRotation& lidar, const std::vector<msg::Imu>& imu_messages, Report& report) {
  if (lidar.max_frames == 0 || report.imu_topic.empty() || !report.cloud) return;
  std::vector<std::pair<double, Eigen::Vector3d>> gyro;
  gyro.reserve(imu_messages.size());
  for (const auto& m : imu_messages) {
    const Eigen::Vector3d w(m.angular_velocity[0], m.angular_velocity[1], m.angular_velocity[2]);
    if (w.allFinite() && w.norm() < InputChecks::kMaxGyro) gyro.emplace_back(m.header.stamp.seconds(), w);
  }
  std::stable_sort(gyro.begin(), gyro.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  gyro.erase(std::unique(gyro.begin(), gyro.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), gyro.end());
  TimeOffsetParams params;
  params.unknown_rotation = true;
  params.window_poses = lidar.max_frames;
  const TimeOffsetEstimate e = TimeOffsetCheck::estimate(lidar.poses, gyro, params);
  TimeOffsetReport r;
  r.valid = e.valid;
  r.offset = e.offset;
  r.correlation = e.correlation;
  r.at_zero = e.at_zero;
  r.poses = lidar.poses.size();
  r.reason = e.reason;
  report.time_offset = r;
  if (!e.valid || std::fabs(e.offset) <= params.warn_above) return;
  report.findings.push_back(
      {"time_offset", report.points_topic,
       fmt::format("the rotation the LiDAR registers over its first {} scans matches the gyroscope {:.3f} s {} (normalized correlation {:.3f}, {:.3f} "
                   "with the stamps as they are): the lidar and IMU stamps are offset by about {:.3f} s; set config_ros.time_offset_lidar_to_imu "
                   "to {:.3f}",
                   r.poses, std::fabs(e.offset), e.offset > 0.0 ? "later" : "earlier", e.correlation, e.at_zero, std::fabs(e.offset), e.offset)});
  report.suggested_config["time_offset_lidar_to_imu"] = fmt::format("{:.3f}", e.offset);
}

void suggest_command(Report& report, const Options& options) {
  const SensorPreset* preset = nullptr;
  const auto presets = options.preset_dirs.empty() ? std::vector<SensorPreset>() : list_sensor_presets(options.preset_dirs);
  if (report.cloud && !presets.empty()) {
    report.sensor = match_preset(*report.cloud, presets, &preset);
    if (report.sensor && !report.sensor->extrinsic_known) {
      report.findings.push_back({"extrinsic_unknown", report.points_topic, fmt::format("sensor preset '{}': the lidar-IMU extrinsic is {}",
                                                                                       report.sensor->preset, report.sensor->extrinsic)});
    }
  }
  // Everything the recording needs beyond the preset, at once.
  for (const char* key : {"imu_topic", "points_topic", "lidar_type", "point_time.unit", "time_offset_lidar_to_imu"}) {
    const auto it = report.suggested_config.find(key);
    if (it == report.suggested_config.end()) continue;
    const std::string preset_value = preset != nullptr ? preset->setting(std::string("config_ros.") + key) : std::string();
    if (!preset_value.empty() && nlohmann::json::parse(it->second) == nlohmann::json::parse(preset_value)) continue;
    const auto value = nlohmann::json::parse(it->second);
    report.settings.push_back(std::string("config_ros.") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  std::string command = "asuka_rosbag";
  for (const auto& bag : report.bags) command += " --bag " + shell_word(bag);
  if (report.sensor) command += " --sensor " + report.sensor->preset;
  for (const auto& setting : report.settings) command += " --set " + shell_word(setting);
  command += " --output asuka_output";
  report.command = command;
}

}  // namespace

void write_config_folder(const Report& report, const std::string& defaults_dir, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(defaults_dir, ec)) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && (name == "config.json" || name == "config_ros.json" || name.rfind("config_odometry_", 0) == 0)) files.push_back(entry.path());
  }
  if (ec || files.empty()) throw std::runtime_error("no default config files in " + defaults_dir);
  const auto read_json = [](const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::ordered_json::parse(in);
  };
  const auto write_json = [](const fs::path& path, const nlohmann::ordered_json& j) {
    std::ofstream out(path);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + path.string());
  };
  for (const auto& file : files) {
    auto j = read_json(file);
    const auto name = file.filename().string();
    // No matching preset: none, rather than the default folder's (a Livox Avia's extrinsic on another sensor).
    if (name == "config.json") j["sensor"] = report.sensor ? report.sensor->preset : std::string();
    for (const auto& setting : report.settings) {
      const auto dot = setting.find('.'), eq = setting.find('=');
      const std::string module = setting.substr(0, dot);
      if (module + ".json" != name && !(module == "config_odometry" && name.rfind("config_odometry_", 0) == 0)) continue;
      nlohmann::ordered_json* node = &j;
      std::string key = setting.substr(dot + 1, eq - dot - 1);
      for (auto sep = key.find('.'); sep != std::string::npos; sep = key.find('.')) {
        node = &(*node)[key.substr(0, sep)];
        key = key.substr(sep + 1);
      }
      const std::string value = setting.substr(eq + 1);
      try {
        (*node)[key] = nlohmann::ordered_json::parse(value);
      } catch (const nlohmann::json::exception&) {
        (*node)[key] = value;
      }
    }
    write_json(fs::path(dir) / name, j);
  }
}

Report diagnose(const std::vector<std::string>& bag_paths, const Options& options) {
  Report report;
  report.bags = bag_paths;
  std::size_t ros2 = 0;
  for (const auto& path : bag_paths) {
    const auto format = bag::detect_format(path);
    if (format == bag::BagFormat::MCAP || format == bag::BagFormat::SQLITE3 || format == bag::BagFormat::ROSBAG2_FOLDER) ++ros2;
  }
  if (ros2 > 0 && ros2 != bag_paths.size()) throw std::runtime_error("the bags mix ROS 1 and ROS 2: diagnose one kind at a time");

  Collector collector;
  collector.max_frames = options.max_frames;
  collector.lidar_rotation.max_frames = options.time_offset_frames;
  const std::string stopped = ros2 > 0 ? read_ros2(bag_paths, options, collector, report.findings) : read_ros1(bag_paths, options, collector);
  if (!stopped.empty()) report.findings.push_back({"corrupt_bag", "", fmt::format("reading stopped early: {}", stopped)});
  report.imu_topic = collector.imu_topic;
  report.points_topic = collector.points_topic;
  report.image_topic = collector.image_topic;
  report.findings.insert(report.findings.end(), collector.topic_findings.begin(), collector.topic_findings.end());
  collector.clock_check.finish(1.0, false);
  auto& topics = collector.topics;
  auto& cloud = collector.cloud;
  auto& decoder = collector.decoder;
  auto& imu_messages = collector.imu_messages;
  if (cloud.livox_custom) {
    cloud.fields = {"offset_time:uint32", "x:float32", "y:float32", "z:float32", "reflectivity:uint8", "tag:uint8", "line:uint8"};
    cloud.time_field = "offset_time";
  }
  cloud.convention = decoder.convention();

  // Per-topic statistics and time findings.
  for (auto& [name, data] : topics) {
    TopicReport r;
    r.topic = name;
    r.datatype = data.datatype;
    r.messages = data.messages;
    if (!data.stamps.empty()) {
      r.first_stamp = data.stamps.front();
      r.last_stamp = data.stamps.back();
      std::vector<double> steps;
      for (std::size_t i = 1; i < data.stamps.size(); ++i) {
        const double d = data.stamps[i] - data.stamps[i - 1];
        if (d < 0.0) {
          ++r.regressions;
          r.largest_regression = std::max(r.largest_regression, -d);
        } else {
          steps.push_back(d);
        }
      }
      r.median_period = median(steps);
      r.rate = r.median_period > 0.0 ? 1.0 / r.median_period : 0.0;
      for (double s : steps) r.max_gap = std::max(r.max_gap, s);
      r.median_latency = median(data.latencies);
      // Time going backwards: a jump of more than a second (or 10 periods) is a loop back.
      const double loop_threshold = std::max(1.0, 10.0 * r.median_period);
      std::size_t loops = 0, small = 0;
      for (std::size_t i = 1; i < data.stamps.size(); ++i) {
        const double d = data.stamps[i - 1] - data.stamps[i];
        if (d > loop_threshold) ++loops;
        else if (d > 0.0) ++small;
      }
      if (loops > 0) {
        report.findings.push_back({"loop_back", name, fmt::format("header stamps jump back {} time(s), by up to {:.3f} s: the bag was looped or the clock "
                                                                  "reset; asuka warns and continues, but the estimate restarts from a wrong state",
                                                                  loops, r.largest_regression)});
      }
      if (small > 0) {
        report.findings.push_back({"out_of_order", name, fmt::format("{} message(s) older than their predecessor (by less than a loop): messages out of order", small)});
      }
      for (std::size_t i = 1; i < data.stamps.size(); ++i) r.duplicates += data.stamps[i] == data.stamps[i - 1] ? 1 : 0;
      if (r.duplicates > 0) {
        const auto first = std::adjacent_find(data.stamps.begin(), data.stamps.end());
        report.findings.push_back({"duplicate_stamps", name,
                                   fmt::format("{} of {} message(s) carry the same header stamp as the one before (the first at {:.6f} s): "
                                               "a driver that repeats messages or stamps them from a coarse or stalled clock; "
                                               "the estimator then sees two measurements at one time. Check the driver's time source",
                                               r.duplicates, data.stamps.size(), *first)});
      }
      const bool is_imu = name == report.imu_topic;
      const bool is_cloud = name == report.points_topic;
      if (is_imu && r.median_period > 0.0 && r.max_gap > 3.0 * r.median_period) {
        report.findings.push_back({"imu_gap", name, fmt::format("largest IMU gap {:.3f} s ({:.0f} periods of {:.4f} s): the estimate is blind there", r.max_gap,
                                                                r.max_gap / r.median_period, r.median_period)});
      }
      if (is_cloud && r.median_period > 0.0) {
        std::size_t dropped = 0;
        for (double s : steps) dropped += s > 1.5 * r.median_period ? static_cast<std::size_t>(std::lround(s / r.median_period)) - 1 : 0;
        if (dropped > 0) report.findings.push_back({"dropped_frames", name, fmt::format("about {} frame(s) missing (gaps between header stamps)", dropped)});
      }
    }
    report.topics.push_back(r);
  }
  if (report.imu_topic.empty()) report.findings.push_back({"no_imu_topic", "", "no sensor_msgs/Imu (ROS 2: sensor_msgs/msg/Imu) topic in the bag"});
  if (report.points_topic.empty()) report.findings.push_back({"no_cloud_topic", "", "no PointCloud2 or Livox CustomMsg topic in the bag"});

  const auto rate_of = [&](const std::string& topic) {
    for (const auto& t : report.topics) {
      if (t.topic == topic) return t.rate;
    }
    return 0.0;
  };
  // The IMU samples: what they read (#12), then the units at rest.
  if (!imu_messages.empty()) {
    ImuReport imu = check_imu_samples(imu_messages, report.imu_topic, rate_of(report.imu_topic), rate_of(report.points_topic), report.findings);
    if (imu.acc_zero || imu.all_zero) {
      // No unit can be told from zeros; acc_in_g would be wrong.
    } else if (imu.at_rest_found) {
      imu.unit = imu.acc_norm_at_rest < std::sqrt(kGravity) ? "g" : "m/s^2";
      // "auto" decides from the samples at start, as the doctor did here; a fixed number would be wrong
      // for the next recording of another IMU.
      report.suggested_config["acc_scale"] = "\"auto\"";
      if (imu.unit == "g") {
        report.findings.push_back({"acc_in_g", report.imu_topic, fmt::format("at rest |acc| = {:.4f}: the IMU reports in g (Livox does); acc_scale \"auto\" "
                                                                             "(the default) converts it, as does 9.80665", imu.acc_norm_at_rest)});
      } else if (std::fabs(imu.acc_norm_at_rest - kGravity) > 0.5) {
        report.findings.push_back({"acc_norm_unusual", report.imu_topic, fmt::format("at rest |acc| = {:.4f} m/s^2, far from g: a scale or bias problem",
                                                                                     imu.acc_norm_at_rest)});
      }
    } else {
      report.suggested_config["acc_scale"] = "\"auto\"";
    }
    report.imu = imu;
  }
  // LiDAR and IMU on different clocks: the host's run-time check (asuka/host/input_checks.hpp) on
  // the stamps in bag order, with the whole bag's ranges.
  if (!collector.clock_error.empty()) {
    const auto range = [&](const std::string& topic) {
      const auto& s = topics[topic].stamps;
      const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
      return std::make_pair(*lo, *hi);
    };
    const auto lidar = range(report.points_topic), imu = range(report.imu_topic);
    report.findings.push_back({"different_clocks", report.points_topic,
                               fmt::format("over the whole bag the lidar frames are stamped [{:.6f}, {:.6f}] s and the IMU samples [{:.6f}, {:.6f}] s; "
                                           "asuka stops with exit 2: {}",
                                           lidar.first, lidar.second, imu.first, imu.second, collector.clock_error)});
  }

  // Clouds: time convention, header position, order, coverage by IMU.
  if (!report.points_topic.empty() && cloud.frames > 0) {
    CloudReport c;
    c.fields = cloud.fields;
    c.time_field = cloud.time_field;
    c.sweep_duration = median(cloud.sweep);
    c.points_in_order = cloud.sweep.empty() ? 0.0 : static_cast<double>(cloud.in_order) / static_cast<double>(cloud.sweep.size());
    c.mean_points = static_cast<double>(cloud.points) / static_cast<double>(cloud.frames);
    c.empty_frames = cloud.empty;
    c.nan_points = cloud.nan_points;
    c.lidar_type = suggest_lidar_type(cloud);
    c.lines = cloud.max_line + 1;
    if (!cloud.elevations.empty()) {
      std::vector<float> e = cloud.elevations;
      const auto at = [&](double q) {
        const auto k = static_cast<std::size_t>(q * static_cast<double>(e.size() - 1));
        std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(k), e.end());
        return static_cast<double>(e[k]);
      };
      c.elevation_min_deg = at(0.002);
      c.elevation_max_deg = at(0.998);
    }
    const auto& cloud_topic = topics[report.points_topic];
    const double frame_period = [&] {
      for (const auto& t : report.topics) {
        if (t.topic == report.points_topic) return t.median_period;
      }
      return 0.1;
    }();
    if (cloud.convention) {
      c.time_unit = asuka_ros::to_string(cloud.convention->unit);
      c.time_reference = asuka_ros::to_string(cloud.convention->reference);
    }
    const bool has_time = !c.time_field.empty() && c.sweep_duration > 0.0;
    if (!has_time) {
      report.findings.push_back({"missing_point_time", report.points_topic, "the clouds carry no usable per-point time: motion within a sweep cannot be "
                                                                            "removed (fine only for instantaneous or Robosense clouds, whose time is rebuilt "
                                                                            "from the yaw)"});
    } else {
      const std::string expected = expected_unit_of(cloud);
      const double ratio = frame_period > 0.0 ? c.sweep_duration / frame_period : 1.0;
      if (!expected.empty() && !cloud.livox_custom && expected != c.time_unit) {
        report.findings.push_back({"point_time_unit", report.points_topic, fmt::format("field '{}' holds {} but its drivers write {}: set point_time.unit "
                                                                                       "to \"{}\"", c.time_field, c.time_unit, expected, c.time_unit)});
        report.suggested_config["point_time.unit"] = "\"" + c.time_unit + "\"";
      } else if (ratio < 0.2 || ratio > 2.0) {
        report.findings.push_back({"point_time_unit", report.points_topic, fmt::format("a sweep spans {:.6f} s of point time but frames come every {:.3f} s: "
                                                                                       "the per-point time is in another unit", c.sweep_duration,
                                                                                       frame_period)});
      }
      const double head = median(cloud.header_minus_start);
      c.header_position = std::fabs(head) < 0.1 * c.sweep_duration ? "first point" : std::fabs(head - c.sweep_duration) < 0.1 * c.sweep_duration ? "last point" : "middle";
      if (c.header_position == "last point") {
        report.findings.push_back({"header_at_end", report.points_topic, "the header stamp is the last point's time (the scan end); asuka stamps frames at "
                                                                         "their first point from the per-point times, so this is handled"});
      }
      if (c.points_in_order < 0.9) {
        report.findings.push_back({"points_not_in_time_order", report.points_topic, fmt::format("{:.0f}% of frames store points out of time order; the frame "
                                                                                                "end must come from the maximum time, not the last point",
                                                                                                100.0 * (1.0 - c.points_in_order))});
      }
    }
    if (c.empty_frames > 0) report.findings.push_back({"empty_frames", report.points_topic, fmt::format("{} frame(s) without points", c.empty_frames)});
    if (c.nan_points > 0) {
      report.findings.push_back({"nan_points", report.points_topic, fmt::format("{} point(s) with non-finite coordinates or time (dropped when read)", c.nan_points)});
    }
    // IMU coverage: every frame end should have IMU samples on both sides within 3 periods.
    const auto& imu_stamps = topics[report.imu_topic].stamps;
    std::vector<double> sorted = imu_stamps;
    std::sort(sorted.begin(), sorted.end());
    double imu_period = 0.005;
    for (const auto& t : report.topics) {
      if (t.topic == report.imu_topic && t.median_period > 0.0) imu_period = t.median_period;
    }
    for (double end : cloud.frame_ends) {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(), end);
      const bool after = it != sorted.end() && *it - end <= 3.0 * imu_period;
      const bool before = it != sorted.begin() && end - *(it - 1) <= 3.0 * imu_period;
      if (!after || !before) ++c.frames_without_imu_at_end;
    }
    if (c.frames_without_imu_at_end > 0) {
      report.findings.push_back({"imu_coverage", report.imu_topic, fmt::format("{} of {} frame end(s) have no IMU sample within {:.3f} s on both sides",
                                                                               c.frames_without_imu_at_end, cloud.frame_ends.size(), 3.0 * imu_period)});
    }
    // Clock offset: a frame cannot be recorded before its sweep ended, nor an IMU sample before it was measured.
    double imu_latency = 0.0;
    for (const auto& t : report.topics) {
      if (t.topic == report.imu_topic) imu_latency = t.median_latency;
    }
    const double lidar_latency = median(cloud_topic.latencies);
    if (collector.clock_error.empty() && (lidar_latency < -0.002 || imu_latency < -0.002)) {
      report.findings.push_back({"lidar_imu_time_offset", report.points_topic,
                                 fmt::format("stamps lie after the time the messages were recorded (median lidar {:+.4f} s after the sweep end, IMU {:+.4f} "
                                             "s): the lidar and IMU clocks are offset; set time_offset_lidar_to_imu / imu_time_offset",
                                             lidar_latency, imu_latency)});
    }
    report.suggested_config["lidar_type"] = "\"" + c.lidar_type + "\"";
    report.cloud = c;
  }
  // The camera: what its images are, and how they sit relative to the scans.
  if (!report.image_topic.empty() && collector.camera.images > 0) {
    CameraReport cam = collector.camera;
    if (cam.unreadable > 0) {
      report.findings.push_back({"unreadable_images", report.image_topic,
                                 fmt::format("{} of {} image(s) cannot be decoded; the first: {}", cam.unreadable, cam.images, collector.first_unreadable)});
    }
    std::vector<double> ends = cloud.frame_ends;
    std::sort(ends.begin(), ends.end());
    std::vector<double> offsets;
    for (double s : topics[report.image_topic].stamps) {
      const auto it = std::lower_bound(ends.begin(), ends.end(), s);
      double best = 1e300;
      if (it != ends.end()) best = *it - s;
      if (it != ends.begin() && std::fabs(s - *(it - 1)) < std::fabs(best)) best = *(it - 1) - s;
      if (best < 1e299) offsets.push_back(-best);  // image stamp minus the nearest scan end
    }
    if (!offsets.empty()) {
      const auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
      cam.median_offset_to_scan_end = median(offsets);
      cam.offset_spread = *hi - *lo;
      cam.relation = cam.offset_spread > 0.004                      ? "free-running"
                     : std::fabs(cam.median_offset_to_scan_end) < 0.002 ? "triggered at scan ends"
                                                                        : "fixed offset from scan ends";
    }
    if (cam.relation == "fixed offset from scan ends") {
      report.findings.push_back({"image_scan_offset", report.image_topic,
                                 fmt::format("images are stamped a constant {:+.4f} s from the scan ends: a triggered camera whose stamps are offset "
                                             "(set time_offset_camera_to_imu), or one triggered at another phase",
                                             cam.median_offset_to_scan_end)});
    }
    report.camera = cam;
    report.suggested_config["image_topic"] = "\"" + report.image_topic + "\"";
  }
  if (!report.imu_topic.empty()) report.suggested_config["imu_topic"] = "\"" + report.imu_topic + "\"";
  if (!report.points_topic.empty()) report.suggested_config["points_topic"] = "\"" + report.points_topic + "\"";
  estimate_time_offset(collector.lidar_rotation, imu_messages, report);
  suggest_command(report, options);
  return report;
}

std::string to_text(const Report& r) {
  std::string out;
  for (const auto& b : r.bags) out += "bag " + b + "\n";
  out += "\ntopics:\n";
  for (const auto& t : r.topics) {
    out += fmt::format("  {} ({}): {} messages", t.topic, t.datatype, t.messages);
    if (t.rate > 0.0) {
      out += fmt::format(", {:.1f} Hz, max gap {:.3f} s, {} regression(s), record latency {:+.4f} s", t.rate, t.max_gap, t.regressions, t.median_latency);
      if (t.duplicates > 0) out += fmt::format(", {} duplicate stamp(s)", t.duplicates);
    }
    out += "\n";
  }
  if (r.imu) {
    out += fmt::format("\nIMU '{}': ", r.imu_topic);
    out += r.imu->at_rest_found ? fmt::format("|acc| at rest {:.4f} -> {}\n", r.imu->acc_norm_at_rest, r.imu->unit.empty() ? "no unit (zeros)" : r.imu->unit)
                                : "never at rest in the bag\n";
    out += fmt::format("  {} samples: {} not finite, {} spikes, {} all zero ({} at the start), 99th percentile |gyro| {:.4g}\n", r.imu->samples,
                       r.imu->non_finite, r.imu->spikes, r.imu->zero_samples, r.imu->zeros_at_start, r.imu->gyro_p99);
  }
  if (r.cloud) {
    const auto& c = *r.cloud;
    std::string fields;
    for (const auto& f : c.fields) fields += " " + f;
    out += fmt::format("\nclouds '{}':\n  fields:{}\n", r.points_topic, fields);
    if (!c.time_field.empty()) {
      out += fmt::format("  point time '{}': {} {}, sweep {:.4f} s, header at the {}\n", c.time_field, c.time_reference, c.time_unit, c.sweep_duration,
                         c.header_position);
    } else {
      out += "  no per-point time\n";
    }
    out += fmt::format("  {:.0f} points/frame, {:.0f}% of frames in time order, {} empty, {} NaN points, {} frame ends without IMU around\n", c.mean_points,
                       100.0 * c.points_in_order, c.empty_frames, c.nan_points, c.frames_without_imu_at_end);
  }
  if (r.camera) {
    const auto& c = *r.camera;
    out += fmt::format("\ncamera '{}':\n  {} images, {}x{} {}, {} unreadable; exposure time {}\n", r.image_topic, c.images, c.width, c.height,
                       c.encoding.empty() ? "?" : c.encoding, c.unreadable, c.exposure_in_messages ? "in the messages" : "not in the messages");
    if (!c.relation.empty()) {
      out += fmt::format("  {}: image stamp - nearest scan end {:+.4f} s (median), spread {:.4f} s\n", c.relation, c.median_offset_to_scan_end,
                         c.offset_spread);
    }
  }
  if (r.time_offset) {
    const auto& t = *r.time_offset;
    out += t.valid ? fmt::format("\nlidar-IMU time offset: {:+.4f} s (correlation {:.3f}, {:.3f} at no offset; the LiDAR's own rotation over {} scans)\n",
                                 t.offset, t.correlation, t.at_zero, t.poses)
                   : fmt::format("\nlidar-IMU time offset: no estimate ({}; {} scans registered)\n", t.reason, t.poses);
  }
  out += "\nfindings:\n";
  if (r.findings.empty()) out += "  none\n";
  for (const auto& f : r.findings) out += fmt::format("  [{}]{} {}\n", f.name, f.topic.empty() ? "" : " " + f.topic + ":", f.message);
  out += "\nsuggested config_ros.json values:\n";
  for (const auto& [key, value] : r.suggested_config) out += fmt::format("  \"{}\": {}\n", key, value);
  if (r.sensor) {
    out += fmt::format("\nsensor preset: {} ({})\n  why: {}\n  extrinsic: {}\n", r.sensor->preset, r.sensor->description, r.sensor->reason, r.sensor->extrinsic);
  } else if (r.cloud) {
    out += "\nsensor preset: none matches (asuka_rosbag --list-sensors); set the topics, lidar_type and the extrinsic with --set\n";
  }
  if (!r.command.empty()) {
    out += "\nrun it with:\n  " + r.command + "\n";
    if (r.sensor && !r.sensor->extrinsic_known) out += "  (and your rig's extrinsic: see extrinsic above)\n";
    if (!r.image_topic.empty()) out += fmt::format("  for a visual frontend: --frontend fastlivo --set config_ros.image_topic={} and the camera block (docs/camera.md)\n", r.image_topic);
  }
  return out;
}

std::string to_json(const Report& r) {
  nlohmann::json j;
  j["bags"] = r.bags;
  j["imu_topic"] = r.imu_topic;
  j["points_topic"] = r.points_topic;
  for (const auto& t : r.topics) {
    j["topics"].push_back({{"topic", t.topic},
                           {"datatype", t.datatype},
                           {"messages", t.messages},
                           {"rate_hz", t.rate},
                           {"max_gap_s", t.max_gap},
                           {"regressions", t.regressions},
                           {"largest_regression_s", t.largest_regression},
                           {"median_latency_s", t.median_latency},
                           {"duplicate_stamps", t.duplicates}});
  }
  if (r.imu) {
    const auto& m = *r.imu;
    j["imu"] = {{"at_rest_found", m.at_rest_found},
                {"acc_norm_at_rest", m.acc_norm_at_rest},
                {"unit", m.unit},
                {"samples", m.samples},
                {"non_finite", m.non_finite},
                {"spikes", m.spikes},
                {"zero_samples", m.zero_samples},
                {"zeros_at_start", m.zeros_at_start},
                {"acc_zero", m.acc_zero},
                {"all_zero", m.all_zero},
                {"gyro_p99", m.gyro_p99}};
  }
  if (r.cloud) {
    const auto& c = *r.cloud;
    j["cloud"] = {{"fields", c.fields}, {"time_field", c.time_field}, {"time_unit", c.time_unit}, {"time_reference", c.time_reference},
                  {"header_position", c.header_position}, {"sweep_duration_s", c.sweep_duration}, {"points_in_order", c.points_in_order},
                  {"mean_points", c.mean_points}, {"empty_frames", c.empty_frames}, {"nan_points", c.nan_points},
                  {"frames_without_imu_at_end", c.frames_without_imu_at_end}, {"lidar_type", c.lidar_type}};
  }
  if (r.camera) {
    const auto& c = *r.camera;
    j["image_topic"] = r.image_topic;
    j["camera"] = {{"images", c.images},        {"width", c.width},
                   {"height", c.height},        {"encoding", c.encoding},
                   {"unreadable", c.unreadable}, {"relation", c.relation},
                   {"median_offset_to_scan_end_s", c.median_offset_to_scan_end}, {"offset_spread_s", c.offset_spread},
                   {"exposure_in_messages", c.exposure_in_messages}};
  }
  if (r.time_offset) {
    const auto& t = *r.time_offset;
    j["time_offset"] = {{"valid", t.valid}, {"offset_s", t.offset}, {"correlation", t.correlation}, {"at_zero", t.at_zero}, {"poses", t.poses}, {"reason", t.reason}};
  }
  j["findings"] = nlohmann::json::array();
  for (const auto& f : r.findings) j["findings"].push_back({{"name", f.name}, {"topic", f.topic}, {"message", f.message}});
  nlohmann::json suggested = nlohmann::json::object();
  for (const auto& [k, v] : r.suggested_config) suggested[k] = nlohmann::json::parse(v);
  j["suggested_config"] = suggested;
  if (r.sensor) {
    j["sensor"] = {{"preset", r.sensor->preset}, {"description", r.sensor->description}, {"reason", r.sensor->reason},
                   {"extrinsic_known", r.sensor->extrinsic_known}, {"extrinsic", r.sensor->extrinsic}};
  }
  if (r.cloud) j["cloud"].update({{"lines", r.cloud->lines}, {"elevation_deg", {r.cloud->elevation_min_deg, r.cloud->elevation_max_deg}}});
  j["settings"] = r.settings;
  j["command"] = r.command;
  return j.dump(2);
}

}  // namespace asuka::doctor
