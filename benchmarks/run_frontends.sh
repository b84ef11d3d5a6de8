#!/usr/bin/env bash
# The filter frontends side by side on the standard simulated bags (#5, #6): simulates each bag once,
# runs asuka_rosbag with every frontend on it, evaluates against the ground truth and prints a
# Markdown table (ATE, drift, per-scan time, real-time factor, peak memory, and for frontends with
# a high-rate pose stream its rate and latency). Long runs: not part of the test suite. Needs a
# build (scripts/setup). Timing is only comparable within one run on an otherwise idle machine.
#   benchmarks/run_frontends.sh [OUTPUT_DIR] [FRONTEND...]   (default: output/bench_frontends fastlio batchlio superlio)
#   A FRONTEND may carry settings: NAME@KEY=VALUE[,KEY=VALUE...] runs NAME with each
#   `--set config_odometry.KEY=VALUE` (a before/after in one interleaved run, e.g.
#   fastlio fastlio@mapping.plane_curvature=false); its rows and folder are named by the whole spec.
#   REPEAT=N (default 3): each bag is run N times per frontend, the frontends interleaved, and the
#   per-scan mean is the median of the N runs (this machine's run-to-run noise is about +-0.4 ms;
#   the runs are deterministic, so accuracy and the other columns come from the first).
set -euo pipefail
repeat=${REPEAT:-3}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/output/bench_frontends}
shift || true
frontends=("$@")
[ ${#frontends[@]} -gt 0 ] || frontends=(fastlio batchlio superlio)
mkdir -p "$out"

# shellcheck source=benchmarks/standard_bags.sh
source "$root/benchmarks/standard_bags.sh"
cases=("${standard_bags[@]}")

printf '| bag | frontend | ATE RMSE [cm] | ATE max [cm] | drift [%%] | per scan mean / p95 / max [ms] | real-time factor | peak RSS [MB] | high-rate poses [1/s] / latency mean / max [ms] |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args overrides <<<"$c"
  # shellcheck disable=SC2086
  "$bin/asuka_sim" $sim_args --output "$out/$name/sim" >/dev/null
  for rep in $(seq "$repeat"); do
    for fe in "${frontends[@]}"; do
      run=$out/$name/$fe
      mkdir -p "$run"
      dest=$run/out
      [ "$rep" = 1 ] || dest=$run/rep$rep
      settings=()
      frontend_settings "$fe" settings
      # (fastlio has no imu.* keys: the saturation overrides are reported as unknown keys and ignored.)
      # shellcheck disable=SC2086
      /usr/bin/time -f '%M' -o "$run/rss_kb" "$bin/asuka_rosbag" --bag "$out/$name/sim/sim.bag" --frontend "${fe%%@*}" --output "$dest" \
        $overrides "${settings[@]}" >"$run/run$rep.log" 2>&1 || true
    done
  done
  for fe in "${frontends[@]}"; do
    run=$out/$name/$fe
    "$bin/asuka_eval" "$run/out/trajectory.tum" "$out/$name/sim/ground_truth.tum" --json "$run/eval.json" >/dev/null 2>&1 || true
    python3 - "$run" "$name" "$fe" <<'PY'
import json, sys, os
d, name, fe = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    r = json.load(open(f"{d}/out/report.json"))
    s = r["time_per_stage_s"]["estimate_per_scan"]
    import glob, statistics
    means = [json.load(open(p))["time_per_stage_s"]["estimate_per_scan"]["mean"] for p in [f"{d}/out/report.json"] + sorted(glob.glob(f"{d}/rep*/report.json"))]
    s = dict(s, mean=statistics.median(means))
    rss = int(open(f"{d}/rss_kb").read().split()[-1]) / 1024.0
    e = json.load(open(f"{d}/eval.json")) if os.path.exists(f"{d}/eval.json") else None
    ate = f"{e['ate_m']['rmse'] * 100:.2f} | {e['ate_m']['max'] * 100:.2f} | {e['drift']['translation_percent']:.2f}" if e else "n/a | n/a | n/a"
    h = r.get("high_rate_poses")
    hr = f"{h['per_second_of_data']:.0f} / {h['latency_s']['mean'] * 1e3:.1f} / {h['latency_s']['max'] * 1e3:.1f}" if h else "-"
    print(f"| {name} | {fe} | {ate} | {s['mean'] * 1e3:.2f} / {s['p95'] * 1e3:.2f} / {s['max'] * 1e3:.2f} | {r['real_time_factor']:.1f}x | {rss:.0f} | {hr} |")
except Exception as ex:  # a failed run is a row too, never a silent gap
    print(f"| {name} | {fe} | failed: {ex} | | | | | | |")
PY
  done
done
