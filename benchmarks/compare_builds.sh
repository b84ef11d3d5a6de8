#!/usr/bin/env bash
# Two builds side by side on the standard simulated bags (standard_bags.sh): every
# frontend's trajectory from build A and build B, compared byte for byte, and the per-scan mean of
# each, the runs interleaved (A, B, A, B, ...) so that the machine's drift hits both alike. For a
# refactoring that must not change any estimate (issue #11) and for before/after speed claims.
#   benchmarks/compare_builds.sh BUILD_A BUILD_B [OUTPUT_DIR] [FRONTEND...]
#   REPEAT=N (default 3) runs per build, frontend and bag; the table shows the median per-scan mean.
# Exits 1 when any trajectory differs. The bags are simulated with BUILD_B's asuka_sim.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_A BUILD_B [OUTPUT_DIR] [FRONTEND...]" >&2; exit 2; }
a=$(cd "$1" && pwd); b=$(cd "$2" && pwd); shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/output/compare_builds}; shift || true
frontends=("$@"); [ ${#frontends[@]} -gt 0 ] || frontends=(fastlio batchlio superlio)
repeat=${REPEAT:-3}
mkdir -p "$out"

# shellcheck source=benchmarks/standard_bags.sh
source "$root/benchmarks/standard_bags.sh"
cases=("${standard_bags[@]}")

status=0
printf '| bag | frontend | trajectories | per scan A [ms] | per scan B [ms] |\n|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args overrides <<<"$c"
  # shellcheck disable=SC2086
  [ -f "$out/$name/sim/sim.bag" ] || "$b/bin/asuka_sim" $sim_args --output "$out/$name/sim" >/dev/null
  for fe in "${frontends[@]}"; do
    for rep in $(seq "$repeat"); do
      for side in A B; do
        build=$a; [ $side = B ] && build=$b
        dest=$out/$name/$fe/$side/rep$rep
        mkdir -p "$dest"
        # shellcheck disable=SC2086
        "$build/bin/asuka_rosbag" --config "$root/config" --bag "$out/$name/sim/sim.bag" --frontend "$fe" --output "$dest" $overrides \
          >"$dest/log" 2>&1 || true
      done
    done
    same=identical
    [ -s "$out/$name/$fe/A/rep1/trajectory.tum" ] && [ -s "$out/$name/$fe/B/rep1/trajectory.tum" ] || { same="MISSING (trajectory.tum)"; status=1; }
    for f in trajectory.tum trajectory_high_rate.tum map.pcd; do
      if [ -f "$out/$name/$fe/A/rep1/$f" ] || [ -f "$out/$name/$fe/B/rep1/$f" ]; then
        cmp -s "$out/$name/$fe/A/rep1/$f" "$out/$name/$fe/B/rep1/$f" || { same="DIFFERENT ($f)"; status=1; }
      fi
    done
    python3 - "$out/$name/$fe" "$name" "$fe" "$same" <<'PY'
import json, sys, glob, statistics
d, name, fe, same = sys.argv[1:5]
def med(side):
    v = []
    for p in sorted(glob.glob(f"{d}/{side}/rep*/report.json")):
        try: v.append(json.load(open(p))["time_per_stage_s"]["estimate_per_scan"]["mean"] * 1e3)
        except Exception: pass
    return f"{statistics.median(v):.2f}" if v else "failed"
print(f"| {name} | {fe} | {same} | {med('A')} | {med('B')} |")
PY
  done
done
exit $status
