#!/usr/bin/env bash
# Integration test of the catkin package (#16): a real roscore, `roslaunch asuka_ros avia.launch` (the
# package as the build lays it out in build/ros/), a simulated Livox Avia bag played with `rosbag
# play`; checks the FAST-LIO-compatible names (/Odometry with the pose covariance in camera_init ->
# body, /path, /cloud_registered, /cloud_registered_body with intensity, the map on /Laser_map every
# 20 scans), and that Ctrl-C saves the
# trajectory, the map and a report naming the preset. Then the node on a wrong IMU topic, given as a
# private ROS parameter: it names the silent topic and the one that holds sensor_msgs/Imu within
# seconds, and exits 2 with report.json input.ok false.
#   test_roslaunch_integration.sh BIN_DIR ROS_PACKAGE_DIR
set -euo pipefail
bin=$1 packages=$2

source "$(dirname "${BASH_SOURCE[0]}")/ros_integration_lib.sh"
export ROS_PACKAGE_PATH=$packages${ROS_PACKAGE_PATH:+:$ROS_PACKAGE_PATH}
fail() { echo "FAIL: $*" >&2; for f in launch.log node2.log; do [ -f "$work/$f" ] && tail -n 40 "$work/$f" >&2; done; exit 1; }
stop() {  # stop PID: SIGINT, then wait up to 30 s for the exit
  kill -INT "$1"
  for _ in $(seq 1 150); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
  return 1
}

"$bin/asuka_sim" --lidar avia --duration 8 --output "$work/sim" >"$work/sim.log" 2>&1 || fail "asuka_sim failed: $(cat "$work/sim.log")"

start_roscore

# --- 1. roslaunch of a preset, FAST-LIO names, outputs on Ctrl-C
roslaunch asuka_ros avia.launch rviz:=false output:="$work/out" >"$work/launch.log" 2>&1 &
launch=$!
pids+=($launch)
wait_for 60 subscribed /livox/imu /asuka || fail "the launched node did not subscribe to /livox/imu"
wait_for 30 subscribed /livox/lidar /asuka || fail "the launched node did not subscribe to /livox/lidar"

timeout 90 rostopic echo -n 3 /Odometry >"$work/odometry.txt" 2>&1 &
echo_odom=$!
timeout 90 rostopic echo -n 1 /path >"$work/path.txt" 2>&1 &
echo_path=$!
timeout 90 rostopic echo -n 1 --noarr /cloud_registered >"$work/cloud.txt" 2>&1 &
echo_cloud=$!
timeout 90 rostopic echo -n 1 --noarr /cloud_registered_body >"$work/cloud_body.txt" 2>&1 &
echo_body=$!
timeout 90 rostopic echo -n 1 /cloud_registered/fields >"$work/fields.txt" 2>&1 &
echo_fields=$!
timeout 90 rostopic echo -n 1 --noarr /Laser_map >"$work/map.txt" 2>&1 &
echo_map=$!
pids+=($echo_odom $echo_path $echo_cloud $echo_body $echo_fields $echo_map)
for t in /Odometry /path /cloud_registered /cloud_registered_body /Laser_map; do
  wait_for 30 subscribed "$t" rostopic || fail "rostopic echo did not subscribe to $t"
done

rosbag play -q "$work/sim/sim.bag" >"$work/play.log" 2>&1 || fail "rosbag play failed: $(cat "$work/play.log")"

wait "$echo_odom" || fail "no odometry on /Odometry: $(cat "$work/odometry.txt")"
wait "$echo_path" || fail "no path on /path"
wait "$echo_cloud" || fail "no cloud on /cloud_registered"
wait "$echo_body" || fail "no cloud on /cloud_registered_body"
wait "$echo_fields" || fail "no fields of /cloud_registered"
wait "$echo_map" || fail "no map on /Laser_map (map_every 20 by default)"
width=$(sed -n 's/^width: //p' "$work/map.txt" | head -1)
[ "${width:-0}" -gt 1000 ] || fail "the map on /Laser_map has ${width:-no} points"
grep -q 'frame_id: "camera_init"' "$work/map.txt" || fail "/Laser_map is not in camera_init"
grep -q 'frame_id: "camera_init"' "$work/odometry.txt" || fail "/Odometry is not in camera_init: $(head -20 "$work/odometry.txt")"
grep -q 'child_frame_id: "body"' "$work/odometry.txt" || fail "/Odometry's child frame is not body"
# The pose covariance is the filter's, not zeros: its first row has a positive x variance.
covariance=$(grep -A1 'covariance' "$work/odometry.txt" | head -2 | tr -d '[] ' | sed -n 's/covariance://p' | cut -d, -f1)
[ -n "$covariance" ] && awk "BEGIN { exit !($covariance > 0) }" || fail "the pose covariance is zero: $(grep -A2 covariance "$work/odometry.txt" | head -3)"
grep -q 'frame_id: "camera_init"' "$work/cloud.txt" || fail "/cloud_registered is not in camera_init"
grep -q 'frame_id: "body"' "$work/cloud_body.txt" || fail "/cloud_registered_body is not in body"
grep -q 'name: "intensity"' "$work/fields.txt" || fail "/cloud_registered has no intensity field: $(cat "$work/fields.txt")"

stop "$launch" || fail "roslaunch did not exit after SIGINT"
[ -s "$work/out/trajectory.tum" ] || fail "no trajectory saved on shutdown"
[ -s "$work/out/map.pcd" ] || fail "no map saved on shutdown"
lines=$(wc -l <"$work/out/trajectory.tum")
[ "$lines" -ge 40 ] || fail "trajectory has $lines poses, expected about 55"
grep -q '"preset": "avia"' "$work/out/report.json" || fail "report.json does not name the preset: $(cat "$work/out/report.json")"
[ -f "$work/out/config/sensors/avia.json" ] || fail "the saved config/ has no copy of the preset"
grep -q '"sensor": "avia"' "$work/out/config/config.json" || fail "the saved config.json does not name the preset"

# --- 2. the node on a wrong IMU topic (a private ROS parameter): named within seconds, exit 2
"$bin/asuka_rosnode" __name:=asuka_wrong _config_ros/imu_topic:=/wrong_imu --sensor avia --output "$work/out2" >"$work/node2.log" 2>&1 &
node2=$!
pids+=($node2)
wait_for 30 subscribed /wrong_imu asuka_wrong || fail "the node did not subscribe to /wrong_imu"
grep -q 'ROS parameter: config_ros.imu_topic="/wrong_imu"' "$work/node2.log" || fail "the private parameter was not applied"
rosbag play -q "$work/sim/sim.bag" >"$work/play2.log" 2>&1 || fail "rosbag play failed"
grep -q "no message on '/wrong_imu' (IMU) after" "$work/node2.log" || fail "the silent IMU topic was not named"
grep -q "'/livox/imu' holds sensor_msgs/Imu: --set config_ros.imu_topic=/livox/imu" "$work/node2.log" || fail "the IMU topic of the graph was not suggested"
kill -INT "$node2"
status=0
wait "$node2" || status=$?
[ "$status" -eq 2 ] || fail "the node exited with $status, expected 2 (nothing estimated)"
grep -q '"ok": false' "$work/out2/report.json" || fail "report.json does not say the input was unusable"
echo "PASS: roslaunch of a preset publishes /Odometry (with covariance), /path, /cloud_registered and /cloud_registered_body, and saves on Ctrl-C; a silent topic is named with the right one and ends with exit 2"
