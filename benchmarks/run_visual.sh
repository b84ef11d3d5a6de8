#!/usr/bin/env bash
# The camera bags (#19): every frontend on simulated Livox Avia bags with a 640x512 camera (asuka_sim
# --camera pinhole), interleaved on one machine in one run: the LiDAR-degenerate textured corridor,
# the standard courtyard and aggressive walks with a camera, more seeds of both, and a free-running
# 15 Hz camera (the standard Livox bags and a 20 s seed). Prints a Markdown table: ATE, per-frame time,
# peak memory and, for the visual frontends, the inverse-exposure error against the simulator's
# auto-exposure and the coloured map's error against the simulator's texture (asuka_colour_check:
# mean |error| after one fitted gain, grey levels, and the share of map points checked). Not part of
# the test suite.
#   benchmarks/run_visual.sh [OUTPUT_DIR] [FRONTEND...]   (default: output/bench_visual fastlio batchlio superlio fastlivo srlivo)
#   A FRONTEND may carry settings, as in run_frontends.sh: NAME@KEY=VALUE[,KEY=VALUE...].
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/output/bench_visual}
shift || true
frontends=("$@")
[ ${#frontends[@]} -gt 0 ] || frontends=(fastlio batchlio superlio fastlivo srlivo)
mkdir -p "$out"
# shellcheck source=benchmarks/standard_bags.sh
source "$root/benchmarks/standard_bags.sh"  # frontend_settings

cases=(
  "avia_corridor_textured_30s|--scene corridor_textured --profile handheld --duration 30"
  "avia_courtyard_60s_camera|--scene courtyard --profile handheld --duration 60"
  "avia_aggressive_40s_camera|--scene courtyard --profile aggressive --duration 40 --tilted-start"
  "avia_courtyard_20s_seed2|--scene courtyard --profile handheld --duration 20 --seed 2"
  "avia_courtyard_20s_seed3|--scene courtyard --profile handheld --duration 20 --seed 3"
  "avia_aggressive_20s_seed2|--scene courtyard --profile aggressive --duration 20 --seed 2 --tilted-start"
  "avia_aggressive_20s_seed3|--scene courtyard --profile aggressive --duration 20 --seed 3 --tilted-start"
  "avia_courtyard_20s_free15hz|--scene courtyard --profile handheld --duration 20 --seed 3 --camera-free-running --camera-rate 15"
  "avia_courtyard_60s_free15hz|--scene courtyard --profile handheld --duration 60 --camera-free-running --camera-rate 15"
  "avia_aggressive_40s_free15hz|--scene courtyard --profile aggressive --duration 40 --tilted-start --camera-free-running --camera-rate 15"
)

printf '| bag | frontend | ATE RMSE [cm] | ATE max [cm] | per frame mean / p95 / max [ms] | frames | peak RSS [MB] | inverse exposure error mean / max [%%] | map colour error [grey] (checked) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args <<<"$c"
  # shellcheck disable=SC2086
  [ -f "$out/$name/sim/sim.bag" ] || "$bin/asuka_sim" --lidar avia --camera pinhole $sim_args --output "$out/$name/sim" >/dev/null
  camera=$(cat "$out/$name/sim/camera.json")
  for fe in "${frontends[@]}"; do
    run=$out/$name/$fe
    mkdir -p "$run"
    settings=()
    frontend_settings "$fe" settings
    /usr/bin/time -f '%M' -o "$run/rss_kb" "$bin/asuka_rosbag" --bag "$out/$name/sim/sim.bag" --frontend "${fe%%@*}" --output "$run/out" \
      --set config_ros.image_topic=/camera/image_raw --set "config_odometry.sensor.camera=$camera" "${settings[@]}" >"$run/run.log" 2>&1 || true
    "$bin/asuka_eval" "$run/out/trajectory.tum" "$out/$name/sim/ground_truth.tum" --json "$run/eval.json" >/dev/null 2>&1 || true
    rm -f "$run/colour.json"
    if [ -f "$run/out/exposure.csv" ]; then  # a coloured map
      "$bin/asuka_colour_check" --sim "$out/$name/sim" --map "$run/out/map.pcd" --json "$run/colour.json" >/dev/null 2>&1 || true
    fi
  done
  for fe in "${frontends[@]}"; do
    python3 - "$out/$name" "$name" "$fe" <<'PY'
import json, os, sys
d, name, fe = sys.argv[1], sys.argv[2], sys.argv[3]
run = f"{d}/{fe}"
try:
    r = json.load(open(f"{run}/out/report.json"))
    s = r["time_per_stage_s"]["estimate_per_scan"]
    e = json.load(open(f"{run}/eval.json"))
    rss = int(open(f"{run}/rss_kb").read().split()[-1]) / 1024.0
    frames = sum(1 for _ in open(f"{run}/out/trajectory.tum"))
    exposure = "-"
    csv = f"{run}/out/exposure.csv"
    if os.path.exists(csv):
        sim = json.load(open(f"{d}/sim/sim.json"))
        truth = {round(i["time_s"] * 1e4): i["exposure_s"] for i in sim["camera"]["images"]}
        est = [tuple(map(float, l.split(","))) for l in open(csv) if not l.startswith("#")]
        e0 = truth[round(est[0][0] * 1e4)]
        errors = [abs(tau * truth[round(t * 1e4)] / e0 - 1.0) for t, tau in est if round(t * 1e4) in truth]
        exposure = f"{100 * sum(errors) / len(errors):.1f} / {100 * max(errors):.1f}"
    colour = "-"
    if os.path.exists(f"{run}/colour.json"):
        c = json.load(open(f"{run}/colour.json"))
        colour = f"{c['mean_abs_error_grey_levels']['fitted_gain']:.1f} ({c['checked_percent']:.0f} %)"
    print(f"| {name} | {fe} | {e['ate_m']['rmse'] * 100:.2f} | {e['ate_m']['max'] * 100:.2f} | "
          f"{s['mean'] * 1e3:.2f} / {s['p95'] * 1e3:.2f} / {s['max'] * 1e3:.2f} | {frames} | {rss:.0f} | {exposure} | {colour} |")
except Exception as ex:  # a failed run is a row too, never a silent gap
    print(f"| {name} | {fe} | failed: {ex} | | | | | | |")
PY
  done
done
