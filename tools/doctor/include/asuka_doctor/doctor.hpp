#pragma once
// asuka_doctor: reads a bag and reports what a LIO needs to know about it: per topic type, count,
// rate, gaps and time regressions; for clouds the fields, the per-point time convention, where the
// header stamp sits in the sweep, point order and size; IMU coverage of frame ends, the IMU's
// acceleration unit at rest; named findings for every known fault; and suggested config values.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asuka::doctor {

struct Finding {
  std::string name;     ///< stable identifier, e.g. "imu_gap", "loop_back" (docs/doctor.md lists them)
  std::string topic;
  std::string message;  ///< what was seen, where, and what to do
};

struct TopicReport {
  std::string topic;
  std::string datatype;
  std::size_t messages = 0;
  double first_stamp = 0.0;     ///< header stamps [s]
  double last_stamp = 0.0;
  double rate = 0.0;            ///< [Hz] from the median header period
  double median_period = 0.0;   ///< [s]
  double max_gap = 0.0;         ///< [s] largest forward step between header stamps
  std::size_t regressions = 0;  ///< header stamp older than the previous one
  double largest_regression = 0.0;  ///< [s]
  double median_latency = 0.0;  ///< [s] bag record time minus header stamp (frames: minus the sweep end)
  std::size_t duplicates = 0;   ///< header stamp equal to the previous one
};

struct CloudReport {
  std::vector<std::string> fields;    ///< "name:type"
  std::string time_field;             ///< "" when the clouds carry no per-point time
  std::string time_unit;              ///< detected: s, ms, us, ns
  std::string time_reference;         ///< absolute | relative
  std::string header_position;        ///< "first point" | "last point" | "middle"
  double sweep_duration = 0.0;        ///< [s] median span of point times in a frame
  double points_in_order = 0.0;       ///< fraction of frames whose point times never decrease
  double mean_points = 0.0;
  std::size_t empty_frames = 0;
  std::size_t nan_points = 0;
  std::size_t frames_without_imu_at_end = 0;  ///< frame ends not bracketed by IMU samples
  std::string lidar_type;             ///< suggested lidar_type
  int lines = 0;                      ///< rings (spinning) or lines (Livox) seen: largest index + 1
  double elevation_min_deg = 0.0;     ///< vertical field of view of the points (0.2 and 99.8 percentiles)
  double elevation_max_deg = 0.0;
};

/// #16: the sensor preset that fits the recording, and the command line that runs it.
struct SensorMatch {
  std::string preset;        ///< "" when none fits
  std::string description;
  std::string reason;        ///< why this one: lidar type, lines, vertical field of view
  bool extrinsic_known = false;
  std::string extrinsic;     ///< the preset's extrinsic in words, or what the user must set
};

struct ImuReport {
  double acc_norm_at_rest = 0.0;  ///< mean |acc| over the first still second [reported units]
  bool at_rest_found = false;
  std::string unit;  ///< "m/s^2" | "g" | "" (zeros, or never at rest)
  // #12: what the samples read (docs/doctor.md)
  std::size_t samples = 0;
  std::size_t non_finite = 0;      ///< NaN or inf in the acceleration or angular velocity
  std::size_t spikes = 0;          ///< isolated samples beyond any IMU's range (|gyro| > 40 rad/s or |acc| > 50 g)
  std::size_t zero_samples = 0;    ///< all six axes exactly zero
  std::size_t zeros_at_start = 0;  ///< the leading run of those
  bool acc_zero = false;           ///< the accelerometer reads (almost) zero throughout
  bool all_zero = false;           ///< acceleration and angular velocity read zero throughout
  double gyro_p99 = 0.0;           ///< 99th percentile of |gyro| over the usable samples [reported units]
};

/// #13: the camera topic: what its images are and how their times relate to the lidar scans.
struct CameraReport {
  std::string encoding;              ///< of the first readable image ("jpeg->mono8" for compressed)
  int width = 0;
  int height = 0;
  std::size_t images = 0;
  std::size_t unreadable = 0;        ///< images the decoder refused (encoding, layout, corrupt data)
  std::string relation;              ///< "triggered at scan ends" | "fixed offset from scan ends" | "free-running" | "" (no lidar)
  double median_offset_to_scan_end = 0.0;  ///< [s] image stamp minus the nearest scan end (median)
  double offset_spread = 0.0;        ///< [s] max - min of that offset over the images
  bool exposure_in_messages = false; ///< sensor_msgs images carry no exposure time: always false today
};

/// #12 item 4: the LiDAR-IMU time offset, from the rotation the LiDAR's own scan-to-scan registration
/// sees over the first frames against the gyroscope's (asuka/host/time_offset_check.hpp; the rotation
/// between the two frames is fitted, so no extrinsic is needed).
struct TimeOffsetReport {
  bool valid = false;
  double offset = 0.0;       ///< [s] add to config_ros.time_offset_lidar_to_imu
  double correlation = 0.0;  ///< normalized, at `offset`
  double at_zero = 0.0;      ///< ... and with the stamps as they are
  std::size_t poses = 0;     ///< registered scans used
  std::string reason;        ///< why no estimate (not valid)
};

struct Report {
  std::vector<std::string> bags;
  std::vector<TopicReport> topics;
  std::string imu_topic;
  std::string points_topic;
  std::optional<ImuReport> imu;
  std::optional<CloudReport> cloud;
  std::string image_topic;
  std::optional<CameraReport> camera;
  std::optional<TimeOffsetReport> time_offset;  ///< when the LiDAR was registered (Options::time_offset_frames > 0)
  std::vector<Finding> findings;
  std::map<std::string, std::string> suggested_config;  ///< config_ros key -> JSON value
  std::optional<SensorMatch> sensor;    ///< #16: the matching preset (when presets were given)
  std::vector<std::string> settings;    ///< #16: "FILE.KEY=VALUE" on top of the preset (every problem at once)
  std::string command;                  ///< #16: a ready asuka_rosbag command line
};

struct Options {
  std::string imu_topic;     ///< "" = the sensor_msgs/Imu topic with most messages
  std::string points_topic;  ///< "" = the cloud topic with most messages
  std::string image_topic;   ///< "" = the Image or CompressedImage topic with most messages (if any)
  std::size_t max_frames = 0;  ///< clouds analysed in full (0 = all)
  std::size_t time_offset_frames = 300;  ///< #12: the first clouds registered for the LiDAR-IMU time offset (0 = not estimated)
  std::vector<std::string> preset_dirs;  ///< sensor preset folders (asuka/config/sensor_preset.hpp); none: no preset is matched
};

/// Throws std::runtime_error when a bag cannot be read.
Report diagnose(const std::vector<std::string>& bags, const Options& options);

/// #16: writes a config folder for the recording into `dir`: the default folder's files
/// (`defaults_dir`: config.json, config_ros.json, every config_odometry_*.json) with config.json's
/// "sensor" set to the matching preset and the report's settings applied. Throws std::runtime_error.
void write_config_folder(const Report& report, const std::string& defaults_dir, const std::string& dir);

std::string to_text(const Report& report);
std::string to_json(const Report& report);

}  // namespace asuka::doctor
