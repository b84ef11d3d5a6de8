// Test helper: writes the small synthetic bag of the ROS tests (IMU /imu 200 Hz, PointCloud2
// /points 10 Hz) to argv[1], for the node integration test that plays it with `rosbag play`.
#include <cstdio>
#include <cstdlib>

#include "ros_test_support.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.bag [DURATION_S]\n", argv[0]);
    return 2;
  }
  asuka_ros::test::BagSpec spec;
  if (argc > 2) spec.duration = std::atof(argv[2]);
  asuka_ros::test::write_bag(argv[1], spec);
  return 0;
}
