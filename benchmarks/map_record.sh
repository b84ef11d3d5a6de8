#!/usr/bin/env bash
# What map.pcd's record of the run costs (#16, asuka/lio/map_record.hpp): the first three standard
# bags (benchmarks/standard_bags.sh), each LiDAR frontend, the record on (default) and off
# (output.map_record_max_points=0), interleaved, REPEATS times. One line per run: the frontend's mean
# per-scan CPU time (scans.csv), the peak resident memory (GNU time), and the points map.pcd holds.
#   benchmarks/map_record.sh [BUILD_DIR] [OUTPUT_DIR]     FRONTENDS="fastlio batchlio superlio" REPEATS=2
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/output/map_record}
frontends=(${FRONTENDS:-fastlio batchlio superlio})
repeats=${REPEATS:-2}
mkdir -p "$out"
# shellcheck source=benchmarks/standard_bags.sh
source "$root/benchmarks/standard_bags.sh"
cases=("${standard_bags[@]:0:3}")

for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args _ <<<"$c"
  # shellcheck disable=SC2086
  [ -f "$out/$name/sim.bag" ] || "$build/bin/asuka_sim" $sim_args --output "$out/$name" >/dev/null 2>&1
done
printf '| bag | frontend | record | repeat | per-scan CPU mean [ms] | peak resident [MB] | map.pcd points |\n|---|---|---|---|---|---|---|\n'
for rep in $(seq 1 "$repeats"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r name _ over <<<"$c"
    for f in "${frontends[@]}"; do
      for record in 10000000 0; do
        run=$out/$name/$f/record$record/$rep
        # shellcheck disable=SC2086
        /usr/bin/time -f "%M" -o "$out/time.txt" "$build/bin/asuka_rosbag" --bag "$out/$name/sim.bag" --frontend "$f" $over \
          --set config_odometry.output.map_record_max_points=$record --output "$run" >"$run.log" 2>&1 || true
        mean=$(awk -F, 'NR > 1 { s += $5; n++ } END { if (n) printf "%.3f", s / n }' "$run/scans.csv" 2>/dev/null)
        points=$(head -c 400 "$run/map.pcd" 2>/dev/null | grep -a '^POINTS' | cut -d' ' -f2)
        printf '| %s | %s | %s | %s | %s | %.1f | %s |\n' "$name" "$f" "$([ "$record" = 0 ] && echo off || echo on)" "$rep" "${mean:-?}" \
          "$(awk '{ print $1 / 1024 }' "$out/time.txt")" "${points:-?}"
      done
    done
  done
done
