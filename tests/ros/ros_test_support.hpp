#pragma once
// Builders for ROS messages in the layouts real drivers publish, for the ROS layer tests.

#include <cstring>
#include <string>
#include <vector>

#include <cmath>

#include <rosbag/bag.h>
#include <sensor_msgs/Imu.h>
#include <sensor_msgs/PointCloud2.h>

#include <asuka_ros/livox_msgs.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace asuka_ros::test {

struct FieldSpec {
  std::string name;
  std::uint8_t datatype;
};

/// A PointCloud2 with the given fields packed in order; values[i][f] is point i's value of field f.
inline sensor_msgs::PointCloud2 make_cloud(double header_stamp, const std::vector<FieldSpec>& fields, const std::vector<std::vector<double>>& values) {
  sensor_msgs::PointCloud2 msg;
  msg.header.stamp.fromSec(header_stamp);
  msg.header.frame_id = "lidar";
  msg.height = 1;
  msg.width = static_cast<std::uint32_t>(values.size());
  std::uint32_t offset = 0;
  for (const auto& f : fields) {
    sensor_msgs::PointField pf;
    pf.name = f.name;
    pf.offset = offset;
    pf.datatype = f.datatype;
    pf.count = 1;
    msg.fields.push_back(pf);
    offset += static_cast<std::uint32_t>(point_field_size(f.datatype));
  }
  msg.point_step = offset;
  msg.row_step = msg.point_step * msg.width;
  msg.data.resize(msg.row_step);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint8_t* p = msg.data.data() + i * msg.point_step;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const double v = values[i][f];
      std::uint8_t* q = p + msg.fields[f].offset;
      switch (fields[f].datatype) {
        case sensor_msgs::PointField::INT8: { std::int8_t x = static_cast<std::int8_t>(v); std::memcpy(q, &x, 1); break; }
        case sensor_msgs::PointField::UINT8: { std::uint8_t x = static_cast<std::uint8_t>(v); std::memcpy(q, &x, 1); break; }
        case sensor_msgs::PointField::INT16: { std::int16_t x = static_cast<std::int16_t>(v); std::memcpy(q, &x, 2); break; }
        case sensor_msgs::PointField::UINT16: { std::uint16_t x = static_cast<std::uint16_t>(v); std::memcpy(q, &x, 2); break; }
        case sensor_msgs::PointField::INT32: { std::int32_t x = static_cast<std::int32_t>(v); std::memcpy(q, &x, 4); break; }
        case sensor_msgs::PointField::UINT32: { std::uint32_t x = static_cast<std::uint32_t>(v); std::memcpy(q, &x, 4); break; }
        case sensor_msgs::PointField::FLOAT32: { float x = static_cast<float>(v); std::memcpy(q, &x, 4); break; }
        default: { std::memcpy(q, &v, 8); break; }
      }
    }
  }
  return msg;
}

constexpr std::uint8_t F32 = sensor_msgs::PointField::FLOAT32;
constexpr std::uint8_t F64 = sensor_msgs::PointField::FLOAT64;
constexpr std::uint8_t U8 = sensor_msgs::PointField::UINT8;
constexpr std::uint8_t U16 = sensor_msgs::PointField::UINT16;
constexpr std::uint8_t U32 = sensor_msgs::PointField::UINT32;

inline sensor_msgs::Imu make_imu(double stamp, double az = 9.81) {
  sensor_msgs::Imu msg;
  msg.header.stamp.fromSec(stamp);
  msg.linear_acceleration.z = az;
  msg.angular_velocity.z = 0.1;
  return msg;
}

inline LivoxCustomMsg make_livox(std::uint64_t timebase_ns, const std::vector<std::uint32_t>& offsets_ns) {
  LivoxCustomMsg msg;
  msg.header.stamp.fromNSec(timebase_ns);
  msg.timebase = timebase_ns;
  msg.point_num = static_cast<std::uint32_t>(offsets_ns.size());
  for (std::size_t i = 0; i < offsets_ns.size(); ++i) {
    livox::CustomPointT<livox::DriverV1> p;
    p.offset_time = offsets_ns[i];
    p.x = 5.0f + static_cast<float>(i);
    p.y = 1.0f;
    p.z = 0.5f;
    p.reflectivity = 42;
    p.tag = 0x10;
    p.line = static_cast<std::uint8_t>(i % 6);
    msg.points.push_back(p);
  }
  return msg;
}

struct BagSpec {
  double duration = 2.0;      ///< [s]
  double imu_rate = 200.0;    ///< [Hz]
  double lidar_rate = 10.0;   ///< [Hz]
  bool livox = false;         ///< CustomMsg instead of PointCloud2
  bool extra_topic = true;    ///< a topic the player must ignore
  bool nan_imu = false;       ///< every IMU message non-finite
  bool empty_clouds = false;  ///< every cloud empty
};

/// Frames are written at their end time (stamp + 0.1), as drivers publish them: the bag's order
/// differs from sensor-time order.
inline void write_bag(const std::string& path, const BagSpec& spec) {
  rosbag::Bag bag;
  bag.open(path, rosbag::bagmode::Write);
  const double t0 = 1000.0;
  const int imu_count = static_cast<int>(spec.duration * spec.imu_rate);
  for (int i = 0; i < imu_count; ++i) {
    const double t = t0 + i / spec.imu_rate;
    auto imu = make_imu(t);
    if (spec.nan_imu) imu.linear_acceleration.x = std::nan("");
    bag.write("/imu", ros::Time(t), imu);
  }
  const int frames = static_cast<int>(spec.duration * spec.lidar_rate) - 1;
  for (int k = 0; k < frames; ++k) {
    const double start = t0 + k / spec.lidar_rate;
    const ros::Time received(start + 0.1);
    if (spec.livox) {
      std::vector<std::uint32_t> offsets;
      for (int j = 0; j < (spec.empty_clouds ? 0 : 50); ++j) offsets.push_back(static_cast<std::uint32_t>(j * 2000000));
      bag.write("/points", received, make_livox(static_cast<std::uint64_t>(start * 1e9), offsets));
    } else {
      std::vector<std::vector<double>> values;
      for (int j = 0; j < (spec.empty_clouds ? 0 : 50); ++j) values.push_back({5.0 + j, 1.0, 0.0, j * 0.002});
      bag.write("/points", received, make_cloud(start, {{"x", F32}, {"y", F32}, {"z", F32}, {"time", F32}}, values));
    }
    if (spec.extra_topic) bag.write("/camera/info", received, make_imu(start));
  }
  bag.close();
}

}  // namespace asuka_ros::test
