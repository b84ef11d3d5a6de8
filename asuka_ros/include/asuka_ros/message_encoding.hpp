#pragma once
// Core types -> ROS messages, for the live node's publishers (RViz).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <geometry_msgs/TransformStamped.h>
#include <nav_msgs/Odometry.h>
#include <sensor_msgs/PointCloud2.h>

#include <sensor_msgs/CompressedImage.h>
#include <sensor_msgs/Image.h>
#include <sensor_msgs/Imu.h>
#include <std_msgs/Float64MultiArray.h>

#include <asuka/core/types.hpp>
#include <asuka/messages/messages.hpp>
#include <asuka_ros/livox_msgs.hpp>

namespace asuka_ros {

/// x y z intensity (float32) and time offset_ms (float32), points transformed by T_target_source.
sensor_msgs::PointCloud2 to_pointcloud2(const std::vector<asuka::Point>& points, const Eigen::Isometry3d& T_target_source, const std::string& frame_id,
                                        double stamp);

/// x y z (float32) and rgb (float32 whose bits are 0x00RRGGBB, PCL's and RViz's convention) of the
/// points the camera saw (colour alpha 255; alpha 0 points are left out), transformed by
/// T_target_source. `colours` has one entry per point.
sensor_msgs::PointCloud2 to_pointcloud2_rgb(const std::vector<asuka::Point>& points, const std::vector<std::array<std::uint8_t, 4>>& colours,
                                            const Eigen::Isometry3d& T_target_source, const std::string& frame_id, double stamp);

/// Pose and twist of the IMU/body frame (`child_frame_id`) in `frame_id`; twist in the child frame.
/// With `pose_covariance` (the filter's: [rotation in the body frame, position in the world], as
/// EstimationFrame::pose_covariance), the pose covariance in ROS's order (x y z, then rotation about
/// the world's fixed axes), row-major; otherwise zeros.
nav_msgs::Odometry to_odometry(double stamp, const Eigen::Isometry3d& T_world_imu, const Eigen::Vector3d& v_world, const std::string& frame_id,
                               const std::string& child_frame_id, const Eigen::Matrix<double, 6, 6>* pose_covariance = nullptr);

/// #21: what `/asuka/localizability` carries per registered scan, in this order (47 values; the one
/// dimension's label lists them): the pose stamp [s], the number of degenerate directions, whether
/// the update was restricted to the constrained ones (0/1), the point-to-plane rows, the threshold,
/// the six shares (Localizability::eigenvalues: degenerate first, each group ascending), then the six
/// directions, each six values in the world frame: rotation x y z, translation x y z.
inline constexpr const char* kLocalizabilityLayout =
    "stamp_s,degenerate,projected,points,threshold,shares[6],directions[6][rot_x,rot_y,rot_z,trans_x,trans_y,trans_z]";
inline constexpr std::size_t kLocalizabilityValues = 47;
std_msgs::Float64MultiArray to_localizability(double stamp, const asuka::Localizability& localizability);

/// The pose of T_world_imu as a geometry_msgs/Pose.
geometry_msgs::Pose to_pose(const Eigen::Isometry3d& T_world_imu);

/// The ROS-free sensor messages as ROS 1 messages (the simulator's ROS 1 bags).
std_msgs::Header to_ros(const asuka::msg::Header& header);
sensor_msgs::Imu to_ros(const asuka::msg::Imu& msg);
sensor_msgs::PointCloud2 to_ros(const asuka::msg::PointCloud2& msg);
LivoxCustomMsg to_ros(const asuka::msg::LivoxCustomMsg& msg);
sensor_msgs::Image to_ros(const asuka::msg::Image& msg);
sensor_msgs::CompressedImage to_ros(const asuka::msg::CompressedImage& msg);

geometry_msgs::TransformStamped to_transform(double stamp, const Eigen::Isometry3d& T_world_imu, const std::string& frame_id, const std::string& child_frame_id);

}  // namespace asuka_ros
