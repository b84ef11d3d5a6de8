#!/usr/bin/env bash
# #21: the LiDAR frontends on scenes that are degenerate by design (docs/degeneracy.md), with the
# handling on (mapping.degeneracy_projection=true, every LiDAR frontend's default; batchlio's since
# 2026-12-07) and off (false: detection and reporting only, the update as before #21), next to the
# IMU-only dead reckoning the simulator writes
# (dead_reckoning.tum). Errors are origin-aligned (asuka_eval --align-origin: every trajectory starts
# from the same state, as the dead reckoning does) and split by the scene's axes: x along the
# corridor or tunnel, y across it, z vertical; plus the SE(3)-aligned ATE. Detection quality against
# the scene's own per-frame localizability (degeneracy_truth.csv): the share of truly degenerate
# frames the frontend flagged, and of well-conditioned frames it flagged wrongly.
# Long runs: not part of the test suite. Needs a build (scripts/setup).
#   benchmarks/degeneracy.sh [OUTPUT_DIR] [FRONTEND...]   (default: output/bench_degeneracy fastlio batchlio superlio)
#   SEEDS="1 2 3" (default) seeds per scene. A FRONTEND may carry settings, as in run_frontends.sh:
#   NAME@KEY=VALUE[,KEY=VALUE...] runs NAME with each `--set config_odometry.KEY=VALUE`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/output/bench_degeneracy}
shift || true
frontends=("$@")
[ ${#frontends[@]} -gt 0 ] || frontends=(fastlio batchlio superlio)
seeds=${SEEDS:-1 2 3}
mkdir -p "$out"

# shellcheck source=benchmarks/standard_bags.sh
source "$root/benchmarks/standard_bags.sh"  # $vlp16: the VLP-16 settings
cases=(
  "avia_corridor_30s|--lidar avia --scene corridor --profile handheld --duration 30|"
  "avia_corridor_sparse_30s|--lidar avia --scene corridor_sparse --profile handheld --duration 30|"
  "vlp16_tunnel_30s|--lidar vlp16 --scene tunnel --profile vehicle --duration 30|$vlp16"
  "avia_open_field_20s|--lidar avia --scene open_field --profile handheld --duration 20|"
)

printf '| bag | seed | frontend | handling | ATE [cm] | along x rms / final [m] | across y rms [cm] | vertical z rms [cm] | rotation rms [deg] | IMU alone: along x rms / final [m] | degenerate frames flagged | good frames flagged | per scan [ms] |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args overrides <<<"$c"
  for seed in $seeds; do
    sim=$out/$name/seed$seed/sim
    # shellcheck disable=SC2086
    [ -f "$sim/sim.bag" ] || "$bin/asuka_sim" $sim_args --seed "$seed" --output "$sim" >/dev/null
    for fe in "${frontends[@]}"; do
      for handling in on off; do
        run=$out/$name/seed$seed/$fe-$handling
        projection=true
        [ "$handling" = on ] || projection=false
        set_handling=(--set "config_odometry.mapping.degeneracy_projection=$projection")
        frontend_settings "$fe" set_handling
        # shellcheck disable=SC2086
        "$bin/asuka_rosbag" --bag "$sim/sim.bag" --frontend "${fe%%@*}" --output "$run" $overrides "${set_handling[@]}" >"$run.log" 2>&1 || true
        python3 - "$bin" "$sim" "$run" "$name" "$seed" "$fe" "$handling" <<'PY'
import bisect, json, subprocess, sys
bin_dir, sim, run, name, seed, fe, handling = sys.argv[1:8]

def evaluate(tum, *extra):
    out = subprocess.run([f"{bin_dir}/asuka_eval", tum, f"{sim}/ground_truth.tum", "--json", "-", *extra], capture_output=True, text=True)
    return json.loads(out.stdout)

def rows(path):
    return [line.strip().split(",") for line in open(path) if line.strip() and not line.startswith("#")]

try:
    aligned = evaluate(f"{run}/trajectory.tum")
    origin = evaluate(f"{run}/trajectory.tum", "--align-origin")
    dr = evaluate(f"{sim}/dead_reckoning.tum", "--align-origin")
    report = json.load(open(f"{run}/report.json"))
    per_scan = report["time_per_stage_s"]["estimate_per_scan"]["mean"] * 1e3
    # Detection against the scene's truth, frame by frame (nearest stamp within 50 ms).
    truth = [(float(r[0]), int(r[1]) > 0) for r in rows(f"{sim}/degeneracy_truth.csv")]
    stamps = [t for t, _ in truth]
    flagged = {True: [0, 0], False: [0, 0]}  # truth -> [flagged, total]
    for r in rows(f"{run}/localizability.csv"):
        t = float(r[0])
        i = bisect.bisect_left(stamps, t)
        best = min((j for j in (i - 1, i) if 0 <= j < len(stamps)), key=lambda j: abs(stamps[j] - t))
        if abs(stamps[best] - t) > 0.05:
            continue
        degenerate = truth[best][1]
        flagged[degenerate][1] += 1
        flagged[degenerate][0] += int(r[1]) > 0
    share = lambda k: f"{flagged[k][0] / flagged[k][1] * 100:.0f} % of {flagged[k][1]}" if flagged[k][1] else "-"
    ax, fin = origin["ate_axes_rmse_m"], origin["final_error_m"]
    print(f"| {name} | {seed} | {fe} | {handling} | {aligned['ate_m']['rmse'] * 100:.1f} | {ax[0]:.2f} / {fin[0]:+.2f} | {ax[1] * 100:.1f} | {ax[2] * 100:.1f} | "
          f"{origin['rotation_rmse_deg']:.2f} | {dr['ate_axes_rmse_m'][0]:.2f} / {dr['final_error_m'][0]:+.2f} | {share(True)} | {share(False)} | {per_scan:.2f} |")
except Exception as ex:  # a failed run is a row too, never a silent gap
    print(f"| {name} | {seed} | {fe} | {handling} | failed: {ex} | | | | | | | | |")
PY
      done
    done
  done
done
