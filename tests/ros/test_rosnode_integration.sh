#!/usr/bin/env bash
# Integration test of asuka_rosnode (issue #3, R-ROS-6): a real roscore, the node with the fake
# frontend and the imu_prediction extension, a bag played with `rosbag play`; checks that odometry
# (estimate rate and IMU rate) and the localizability (#21: the fake frontend reports translation along
# world x unconstrained) arrive, and that the outputs are saved on shutdown (SIGINT).
#   test_rosnode_integration.sh BIN_DIR LIB_DIR TEST_PLUGIN_DIR
set -euo pipefail
bin=$1 lib=$2 plugins=$3

source "$(dirname "${BASH_SOURCE[0]}")/ros_integration_lib.sh"
fail() { echo "FAIL: $*" >&2; [ -f "$work/node.log" ] && tail -n 30 "$work/node.log" >&2; exit 1; }

"$bin/asuka_test_write_bag" "$work/input.bag" 4.0

mkdir -p "$work/config"
cat >"$work/config/config.json" <<JSON
{"config_ros": "config_ros.json", "config_odometry": "config_odometry_fake.json",
 "extensions": ["$lib/libasuka_extension_imu_prediction.so"]}
JSON
cat >"$work/config/config_ros.json" <<'JSON'
{"imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne", "acc_scale": "auto"}
JSON
cat >"$work/config/config_odometry_fake.json" <<JSON
{"so_name": "$plugins/libasuka_odometry_fake.so", "fake": {"process_steps_per_event": 1, "degenerate_along_x": true}}
JSON

start_roscore

"$bin/asuka_rosnode" --config "$work/config" --output "$work/out" >"$work/node.log" 2>&1 &
node=$!
pids+=($node)
wait_for 30 subscribed /imu asuka_rosnode || fail "asuka_rosnode did not subscribe to /imu"
wait_for 30 subscribed /points asuka_rosnode || fail "asuka_rosnode did not subscribe to /points"

timeout 60 rostopic echo -n 3 /asuka/odometry >"$work/odometry.txt" 2>&1 &
echo_odom=$!
timeout 60 rostopic echo -n 20 /asuka/odometry_imu >"$work/odometry_imu.txt" 2>&1 &
echo_imu=$!
timeout 60 rostopic echo -n 2 /asuka/localizability >"$work/localizability.txt" 2>&1 &
echo_loc=$!
pids+=($echo_odom $echo_imu $echo_loc)
wait_for 30 subscribed /asuka/odometry rostopic || fail "rostopic echo did not subscribe"
wait_for 30 subscribed /asuka/odometry_imu rostopic || fail "rostopic echo did not subscribe"
wait_for 30 subscribed /asuka/localizability rostopic || fail "rostopic echo did not subscribe"

rosbag play -q "$work/input.bag" >"$work/play.log" 2>&1 || fail "rosbag play failed: $(cat "$work/play.log")"

wait "$echo_odom" || fail "no odometry on /asuka/odometry: $(cat "$work/odometry.txt")"
wait "$echo_imu" || fail "no odometry on /asuka/odometry_imu: $(cat "$work/odometry_imu.txt")"
[ "$(grep -c '^pose:' "$work/odometry.txt")" -eq 3 ] || fail "expected 3 odometry messages: $(cat "$work/odometry.txt")"
[ "$(grep -c '^pose:' "$work/odometry_imu.txt")" -eq 20 ] || fail "expected 20 IMU-rate odometry messages"
wait "$echo_loc" || fail "no localizability on /asuka/localizability: $(cat "$work/localizability.txt")"
[ "$(grep -c '^data:' "$work/localizability.txt")" -eq 2 ] || fail "expected 2 localizability messages: $(cat "$work/localizability.txt")"
grep -q 'label: "stamp_s,degenerate,projected,points,threshold,shares\[6\]' "$work/localizability.txt" || fail "localizability layout label missing"
# The first message: 47 values; one degenerate direction, projected, 250 points, threshold 0.01, the
# shares, and the first direction translation along x (values 12-17: 0 0 0 1 0 0).
python3 - "$work/localizability.txt" <<'PY' || fail "localizability values: $(cat "$work/localizability.txt")"
import sys
line = next(l for l in open(sys.argv[1]) if l.startswith("data:"))
v = [float(x) for x in line.split("[", 1)[1].rsplit("]", 1)[0].split(",")]
assert len(v) == 47, len(v)
assert v[1:5] == [1.0, 1.0, 250.0, 0.01], v[1:5]
assert v[5:11] == [0.002, 0.3, 0.4, 0.5, 0.6, 0.7], v[5:11]
assert v[11:17] == [0, 0, 0, 1, 0, 0], v[11:17]
PY

kill -INT "$node"
for _ in $(seq 1 150); do kill -0 "$node" 2>/dev/null || break; sleep 0.2; done
kill -0 "$node" 2>/dev/null && fail "asuka_rosnode did not exit after SIGINT"
wait "$node" || fail "asuka_rosnode exited with $?"

[ -s "$work/out/trajectory.tum" ] || fail "no trajectory saved on shutdown"
lines=$(wc -l <"$work/out/trajectory.tum")
[ "$lines" -ge 30 ] || fail "trajectory has $lines poses, expected one per frame (about 39)"
grep -q '"processed": 39' "$work/out/report.json" || fail "report.json does not count 39 frames: $(cat "$work/out/report.json")"
[ -f "$work/out/config/config_ros.json" ] || fail "effective config not saved"
echo "PASS: odometry published at estimate and IMU rate, localizability per scan; trajectory ($lines poses), report and config saved on shutdown"
