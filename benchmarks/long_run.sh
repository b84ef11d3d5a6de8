#!/usr/bin/env bash
# #18: long runs. Simulates one long bag per sensor family (Livox Avia handheld in the courtyard,
# Velodyne VLP-16 at vehicle speed in the courtyard: both bounded scenes), runs each frontend over it
# and reports, per 10-minute block, the per-scan time (mean, p95, p99, max), the peak resident memory,
# and over the whole run ATE and drift; writes the per-scan time series as an SVG per run. The
# per-scan series comes from the run's scans.csv (asuka_rosbag writes it as it goes).
# Not part of the test suite: an hour of data is 12 GB of bag and 10 minutes of simulation (Avia),
# 20.5 GB and 14 minutes (VLP-16); a run over it takes 2-4 minutes per frontend, plus reading the bag
# into the page cache first. Needs a build (scripts/setup).
# The camera family (avia_camera: the Avia walk with a 640x512 camera at the scan ends) is for the
# visual frontends (fastlivo, srlivo); it costs about 0.9 s of simulation and 6.7 MB of bag per
# second of data (24 GB for an hour).
#   benchmarks/long_run.sh [OUTPUT_DIR] [FRONTEND...]   (default: output/bench_long fastlio batchlio superlio)
#   DURATION=3600 BLOCK=600 FAMILIES="avia vlp16" (defaults); KEEP_BAGS=1 keeps the bags (else removed after use)
#   REPEAT=2 runs each frontend twice (FRONTEND, FRONTEND.run2): the runs compute the same trajectory,
#   so a scan's least time over the runs is what the computation costs, and a scan slow in one run
#   only was the machine's (the report's third table)
#   FAMILIES=avia_camera DURATION=1200 benchmarks/long_run.sh output/bench_long_camera fastlivo srlivo
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=${1:-$root/output/bench_long}
shift || true
frontends=("$@")
[ ${#frontends[@]} -gt 0 ] || frontends=(fastlio batchlio superlio)
duration=${DURATION:-3600}
block=${BLOCK:-600}
families=${FAMILIES:-avia vlp16}
mkdir -p "$out"

for family in $families; do
  case $family in
    avia) sim_args="--lidar avia --scene courtyard --profile handheld" ;;
    vlp16) sim_args="--lidar vlp16 --scene courtyard --profile vehicle" ;;
    avia_camera) sim_args="--lidar avia --scene courtyard --profile handheld --camera pinhole" ;;
    *) echo "unknown family $family (avia, vlp16, avia_camera)" >&2; exit 2 ;;
  esac
  sensor=${family%_camera}
  bag=$out/$family
  if [ ! -f "$bag/sim.json" ]; then
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %M" -o "$bag.sim_time" "$bin/asuka_sim" $sim_args --duration "$duration" --output "$bag" >/dev/null
  fi
  t=$(python3 -c "import json,sys; print(','.join(str(v) for v in json.load(open(sys.argv[1]))['T_imu_lidar']['translation']))" "$bag/sim.json")
  camera_args=()
  if [ -f "$bag/camera.json" ]; then
    camera_args=(--set config_ros.image_topic=/camera/image_raw --set "config_odometry.sensor.camera=$(cat "$bag/camera.json")")
  fi
  for fe in "${frontends[@]}"; do
    for ((r = 1; r <= ${REPEAT:-1}; ++r)); do
      run=$bag/$fe
      [ "$r" -eq 1 ] || run=$bag/$fe.run$r
      rm -rf "$run"
      # The bag is read into the page cache first when it fits: streamed from a virtual disk at 20-30x
      # real time, the reads stalled the worker's CPU for 50-110 ms on single scans (thread CPU time as
      # long as the wall time, on other scans every run; docs/performance.md, "Long runs"), which a
      # sensor at 1x never causes. A bag larger than the free memory is read cold, and the report says so.
      bag_kb=$(($(stat -c %s "$bag/sim.bag") / 1024))
      available_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
      if [ "$bag_kb" -lt $((available_kb * 9 / 10)) ]; then
        cat "$bag/sim.bag" >/dev/null
        echo warm >"$run.cache"
      else
        echo cold >"$run.cache"
      fi
      /usr/bin/time -f "%e %M" -o "$run.time" "$bin/asuka_rosbag" --bag "$bag/sim.bag" --sensor "$sensor" --frontend "$fe" \
        --set "config_odometry.sensor.extrinsic_t=[$t]" "${camera_args[@]}" --output "$run" >"$run.log" 2>&1 || true
      "$bin/asuka_eval" "$run/trajectory.tum" "$bag/ground_truth.tum" --json "$run/eval.json" >/dev/null 2>&1 || true
    done
  done
  [ -n "${KEEP_BAGS:-}" ] || rm -f "$bag/sim.bag"
done

python3 "$root/benchmarks/long_run_report.py" "$out" "$block" $families -- "${frontends[@]}"
