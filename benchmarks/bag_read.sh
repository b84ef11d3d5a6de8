#!/usr/bin/env bash
# Bag reading speed (#15): one simulated recording as a ROS 1 bag and as ROS 2 bags (MCAP zstd, lz4,
# uncompressed; SQLite3), read by each reader, raw and with deserialization and decoding. Prints a
# Markdown table (benchmarks/README.md keeps the last one measured).
#
#   benchmarks/bag_read.sh [BUILD_DIR] [WORK_DIR] [DURATION_S]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../build}
work=${2:-/tmp/asuka_bag_read}
duration=${3:-30}
mkdir -p "$work"
for format in ros1 ros2-mcap; do
  [ -e "$work/$format/sim.json" ] || "$build/bin/asuka_sim" --duration "$duration" --format "$format" --output "$work/$format" >/dev/null
done
"$build/bin/asuka_bench_bag_read" "$work/ros1/sim.bag" "$work/ros2-mcap/sim_ros2" "$work/variants" 3
