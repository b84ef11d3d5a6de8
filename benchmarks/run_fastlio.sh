#!/usr/bin/env bash
# fastlio on the standard simulated bags (#5): simulates each, runs asuka_rosbag with fastlio, evaluates
# against the ground truth and prints a Markdown table (ATE, drift, per-scan time, real-time factor,
# peak memory). Long runs: not part of the test suite. Needs a build (scripts/setup).
#   benchmarks/run_fastlio.sh [OUTPUT_DIR]     (default: output/bench_fastlio)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/output/bench_fastlio}
mkdir -p "$out"

# name | asuka_sim arguments | config_ros / config_odometry overrides
cases=(
  "avia_courtyard_60s|--lidar avia --scene courtyard --profile handheld --duration 60|"
  "avia_aggressive_40s|--lidar avia --scene courtyard --profile aggressive --duration 40 --tilted-start|"
  "vlp16_street_60s|--lidar vlp16 --scene courtyard --profile vehicle --duration 60|--set config_ros.lidar_type=velodyne --set config_ros.imu_topic=/imu/data --set config_ros.points_topic=/velodyne_points --set config_odometry.sensor.extrinsic_t=[0,0,0.12]"
  "avia_corridor_40s|--lidar avia --scene corridor --profile handheld --duration 40|"
)

printf '| bag | ATE RMSE [cm] | ATE max [cm] | drift [%%] | per scan mean / p95 / max [ms] | real-time factor | peak RSS [MB] |\n'
printf '|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args overrides <<<"$c"
  # shellcheck disable=SC2086
  "$bin/asuka_sim" $sim_args --output "$out/$name/sim" >/dev/null
  # shellcheck disable=SC2086
  /usr/bin/time -f '%M' -o "$out/$name/rss_kb" "$bin/asuka_rosbag" --bag "$out/$name/sim/sim.bag" --frontend fastlio --output "$out/$name/run" \
    $overrides >"$out/$name/run.log" 2>&1 || true
  "$bin/asuka_eval" "$out/$name/run/trajectory.tum" "$out/$name/sim/ground_truth.tum" --json "$out/$name/eval.json" >/dev/null 2>&1 || true
  python3 - "$out/$name" "$name" <<'PY'
import json, sys, os
d, name = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(f"{d}/run/report.json"))
    s = r["time_per_stage_s"]["estimate_per_scan"]
    rss = int(open(f"{d}/rss_kb").read().split()[-1]) / 1024.0
    e = json.load(open(f"{d}/eval.json")) if os.path.exists(f"{d}/eval.json") else None
    ate = f"{e['ate_m']['rmse'] * 100:.2f} | {e['ate_m']['max'] * 100:.2f} | {e['drift']['translation_percent']:.2f}" if e else "n/a | n/a | n/a"
    print(f"| {name} | {ate} | {s['mean'] * 1e3:.2f} / {s['p95'] * 1e3:.2f} / {s['max'] * 1e3:.2f} | {r['real_time_factor']:.1f}x | {rss:.0f} |")
except Exception as ex:  # a failed run is a row too, never a silent gap
    print(f"| {name} | failed: {ex} | | | | | |")
PY
done
