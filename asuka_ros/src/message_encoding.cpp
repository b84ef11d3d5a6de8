#include <asuka_ros/message_encoding.hpp>

#include <algorithm>
#include <cstring>
#include <initializer_list>

namespace asuka_ros {

namespace {

/// Appends one float32 field per name, packed; returns the point step [bytes].
std::uint32_t add_float32_fields(sensor_msgs::PointCloud2& msg, std::initializer_list<const char*> names) {
  std::uint32_t offset = 0;
  for (const char* name : names) {
    sensor_msgs::PointField field;
    field.name = name;
    field.offset = offset;
    field.datatype = sensor_msgs::PointField::FLOAT32;
    field.count = 1;
    msg.fields.push_back(field);
    offset += 4;
  }
  return offset;
}

}  // namespace

sensor_msgs::PointCloud2 to_pointcloud2(const std::vector<asuka::Point>& points, const Eigen::Isometry3d& T_target_source, const std::string& frame_id,
                                        double stamp) {
  sensor_msgs::PointCloud2 msg;
  msg.header.stamp.fromSec(stamp);
  msg.header.frame_id = frame_id;
  msg.height = 1;
  msg.width = static_cast<std::uint32_t>(points.size());
  msg.point_step = add_float32_fields(msg, {"x", "y", "z", "intensity", "offset_ms"});
  msg.row_step = msg.point_step * msg.width;
  msg.is_dense = true;
  msg.data.resize(msg.row_step);
  const Eigen::Isometry3f T = T_target_source.cast<float>();
  std::uint8_t* out = msg.data.data();
  for (const auto& p : points) {
    const Eigen::Vector3f q = T * p.position();
    const float values[5] = {q.x(), q.y(), q.z(), p.intensity, p.offset_ms};
    std::memcpy(out, values, sizeof(values));
    out += msg.point_step;
  }
  return msg;
}

sensor_msgs::PointCloud2 to_pointcloud2_rgb(const std::vector<asuka::Point>& points, const std::vector<std::array<std::uint8_t, 4>>& colours,
                                            const Eigen::Isometry3d& T_target_source, const std::string& frame_id, double stamp) {
  sensor_msgs::PointCloud2 msg;
  msg.header.stamp.fromSec(stamp);
  msg.header.frame_id = frame_id;
  msg.height = 1;
  msg.point_step = add_float32_fields(msg, {"x", "y", "z", "rgb"});
  msg.is_dense = true;
  const Eigen::Isometry3f T = T_target_source.cast<float>();
  const std::size_t n = std::min(points.size(), colours.size());
  msg.data.reserve(n * msg.point_step);
  std::uint32_t width = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& c = colours[i];
    if (c[3] == 0) continue;  // not seen by the camera
    const Eigen::Vector3f q = T * points[i].position();
    const std::uint32_t packed = (static_cast<std::uint32_t>(c[0]) << 16) | (static_cast<std::uint32_t>(c[1]) << 8) | c[2];
    float values[4] = {q.x(), q.y(), q.z(), 0.0f};
    std::memcpy(&values[3], &packed, sizeof(packed));
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(values);
    msg.data.insert(msg.data.end(), bytes, bytes + sizeof(values));
    ++width;
  }
  msg.width = width;
  msg.row_step = msg.point_step * msg.width;
  return msg;
}

geometry_msgs::Pose to_pose(const Eigen::Isometry3d& T) {
  geometry_msgs::Pose pose;
  const Eigen::Vector3d t = T.translation();
  const Eigen::Quaterniond q(T.linear());
  pose.position.x = t.x();
  pose.position.y = t.y();
  pose.position.z = t.z();
  pose.orientation.x = q.x();
  pose.orientation.y = q.y();
  pose.orientation.z = q.z();
  pose.orientation.w = q.w();
  return pose;
}

std_msgs::Float64MultiArray to_localizability(double stamp, const asuka::Localizability& localizability) {
  std_msgs::Float64MultiArray msg;
  msg.layout.dim.resize(1);
  msg.layout.dim[0].label = kLocalizabilityLayout;
  msg.layout.dim[0].size = kLocalizabilityValues;
  msg.layout.dim[0].stride = kLocalizabilityValues;
  msg.data.reserve(kLocalizabilityValues);
  msg.data.push_back(stamp);
  msg.data.push_back(localizability.degenerate);
  msg.data.push_back(localizability.projected ? 1.0 : 0.0);
  msg.data.push_back(static_cast<double>(localizability.points));
  msg.data.push_back(localizability.threshold);
  for (int i = 0; i < 6; ++i) msg.data.push_back(localizability.eigenvalues[i]);
  for (int c = 0; c < 6; ++c) {
    for (int r = 0; r < 6; ++r) msg.data.push_back(localizability.directions(r, c));
  }
  return msg;
}

nav_msgs::Odometry to_odometry(double stamp, const Eigen::Isometry3d& T_world_imu, const Eigen::Vector3d& v_world, const std::string& frame_id,
                               const std::string& child_frame_id, const Eigen::Matrix<double, 6, 6>* pose_covariance) {
  nav_msgs::Odometry msg;
  msg.header.stamp.fromSec(stamp);
  msg.header.frame_id = frame_id;
  msg.child_frame_id = child_frame_id;
  msg.pose.pose = to_pose(T_world_imu);
  const Eigen::Vector3d v_body = T_world_imu.linear().transpose() * v_world;  // nav_msgs: twist in child frame
  msg.twist.twist.linear.x = v_body.x();
  msg.twist.twist.linear.y = v_body.y();
  msg.twist.twist.linear.z = v_body.z();
  if (pose_covariance != nullptr) {
    // The filter's rotation error is in the body frame (R = R_hat Exp(dtheta)); ROS wants it about the
    // world's axes: dtheta_world = R dtheta. J maps [dtheta, dp] to [dp, dtheta_world].
    Eigen::Matrix<double, 6, 6> J = Eigen::Matrix<double, 6, 6>::Zero();
    J.block<3, 3>(0, 3).setIdentity();
    J.block<3, 3>(3, 0) = T_world_imu.linear();
    const Eigen::Matrix<double, 6, 6> ros = J * *pose_covariance * J.transpose();
    for (int r = 0; r < 6; ++r) {
      for (int c = 0; c < 6; ++c) msg.pose.covariance[static_cast<std::size_t>(6 * r + c)] = ros(r, c);
    }
  }
  return msg;
}

geometry_msgs::TransformStamped to_transform(double stamp, const Eigen::Isometry3d& T_world_imu, const std::string& frame_id, const std::string& child_frame_id) {
  geometry_msgs::TransformStamped msg;
  msg.header.stamp.fromSec(stamp);
  msg.header.frame_id = frame_id;
  msg.child_frame_id = child_frame_id;
  const geometry_msgs::Pose pose = to_pose(T_world_imu);
  msg.transform.translation.x = pose.position.x;
  msg.transform.translation.y = pose.position.y;
  msg.transform.translation.z = pose.position.z;
  msg.transform.rotation = pose.orientation;
  return msg;
}

std_msgs::Header to_ros(const asuka::msg::Header& header) {
  std_msgs::Header out;
  out.stamp.sec = static_cast<std::uint32_t>(header.stamp.sec);
  out.stamp.nsec = header.stamp.nanosec;
  out.frame_id = header.frame_id;
  return out;
}

sensor_msgs::Imu to_ros(const asuka::msg::Imu& msg) {
  sensor_msgs::Imu out;
  out.header = to_ros(msg.header);
  out.orientation.x = msg.orientation[0];
  out.orientation.y = msg.orientation[1];
  out.orientation.z = msg.orientation[2];
  out.orientation.w = msg.orientation[3];
  out.angular_velocity.x = msg.angular_velocity[0];
  out.angular_velocity.y = msg.angular_velocity[1];
  out.angular_velocity.z = msg.angular_velocity[2];
  out.linear_acceleration.x = msg.linear_acceleration[0];
  out.linear_acceleration.y = msg.linear_acceleration[1];
  out.linear_acceleration.z = msg.linear_acceleration[2];
  for (std::size_t i = 0; i < 9; ++i) {
    out.orientation_covariance[i] = msg.orientation_covariance[i];
    out.angular_velocity_covariance[i] = msg.angular_velocity_covariance[i];
    out.linear_acceleration_covariance[i] = msg.linear_acceleration_covariance[i];
  }
  return out;
}

sensor_msgs::PointCloud2 to_ros(const asuka::msg::PointCloud2& msg) {
  sensor_msgs::PointCloud2 out;
  out.header = to_ros(msg.header);
  out.height = msg.height;
  out.width = msg.width;
  for (const auto& f : msg.fields) {
    sensor_msgs::PointField field;
    field.name = f.name;
    field.offset = f.offset;
    field.datatype = f.datatype;
    field.count = f.count;
    out.fields.push_back(field);
  }
  out.is_bigendian = msg.is_bigendian;
  out.point_step = msg.point_step;
  out.row_step = msg.row_step;
  out.data.assign(msg.data.begin(), msg.data.end());
  out.is_dense = msg.is_dense;
  return out;
}

LivoxCustomMsg to_ros(const asuka::msg::LivoxCustomMsg& msg) {
  LivoxCustomMsg out;
  out.header = to_ros(msg.header);
  out.timebase = msg.timebase;
  out.point_num = msg.point_num;
  out.lidar_id = msg.lidar_id;
  out.rsvd = {{msg.rsvd[0], msg.rsvd[1], msg.rsvd[2]}};
  out.points.reserve(msg.points.size());
  for (const auto& p : msg.points) {
    livox::CustomPointT<livox::DriverV1> q;
    q.offset_time = p.offset_time;
    q.x = p.x;
    q.y = p.y;
    q.z = p.z;
    q.reflectivity = p.reflectivity;
    q.tag = p.tag;
    q.line = p.line;
    out.points.push_back(q);
  }
  return out;
}

sensor_msgs::Image to_ros(const asuka::msg::Image& msg) {
  sensor_msgs::Image out;
  out.header = to_ros(msg.header);
  out.height = msg.height;
  out.width = msg.width;
  out.encoding = msg.encoding;
  out.is_bigendian = msg.is_bigendian ? 1 : 0;
  out.step = msg.step;
  out.data.assign(msg.data.begin(), msg.data.end());
  return out;
}

sensor_msgs::CompressedImage to_ros(const asuka::msg::CompressedImage& msg) {
  sensor_msgs::CompressedImage out;
  out.header = to_ros(msg.header);
  out.format = msg.format;
  out.data.assign(msg.data.begin(), msg.data.end());
  return out;
}

}  // namespace asuka_ros
