#!/usr/bin/env bash
# The wrong-input cases of issue #12 that need a whole run to judge (docs/reliability.md): a moving
# start, an IMU that starts late, a long IMU gap and LiDAR-IMU time offsets, each simulated with
# asuka_sim and run with asuka_rosbag; prints one table row per run with the exit code, ATE RMSE and
# what the run said (the moving-start warning, the time-offset estimate).
#   benchmarks/reliability.sh [BUILD_DIR] [OUTPUT_DIR]     FRONTENDS="fastlio batchlio superlio" SEEDS="1 2 3"
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/output/reliability}
frontends=(${FRONTENDS:-fastlio batchlio superlio})
seeds=(${SEEDS:-1 2 3})
mkdir -p "$out"
vlp16="--set config_ros.lidar_type=velodyne --set config_ros.imu_topic=/imu/data --set config_ros.points_topic=/velodyne_points --set config_odometry.sensor.extrinsic_t=[0,0,0.12]"

# name|asuka_sim arguments|asuka_rosbag arguments
cases=(
  "moving_start_handheld|--duration 12 --static 0 --ramp 0|"
  "moving_start_aggressive|--duration 12 --static 0 --ramp 0 --profile aggressive|"
  "moving_start_vlp16_vehicle|--duration 12 --static 0 --ramp 0 --lidar vlp16 --profile vehicle|$vlp16"
  "imu_starts_5s_late|--duration 20 --fault-imu-gap 0:5|"
  "imu_gap_2s|--duration 30 --fault-imu-gap 12:2|"
  "lidar_time_offset_+0.5|--duration 60 --fault-lidar-time-offset 0.5|"
  "lidar_time_offset_-0.5|--duration 60 --fault-lidar-time-offset -0.5|"
  "imu_time_offset_+0.5|--duration 60 --imu-time-offset 0.5|"
)

printf '| case | seed | frontend | exit | ATE RMSE [m] | what the run said |\n|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name sim_args run_args <<<"$c"
  for seed in "${seeds[@]}"; do
    dir=$out/$name/seed$seed
    # shellcheck disable=SC2086
    [ -f "$dir/sim/sim.bag" ] || "$build/bin/asuka_sim" $sim_args --seed "$seed" --output "$dir/sim" >/dev/null 2>&1
    for fe in "${frontends[@]}"; do
      # shellcheck disable=SC2086
      "$build/bin/asuka_rosbag" --bag "$dir/sim/sim.bag" --frontend "$fe" $run_args --output "$dir/$fe" >"$dir/$fe.log" 2>&1
      rc=$?
      ate=$("$build/bin/asuka_eval" "$dir/$fe/trajectory.tum" "$dir/sim/ground_truth.tum" --json "$dir/$fe/eval.json" >/dev/null 2>&1 &&
            python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['ate_m']['rmse'])" "$dir/$fe/eval.json" 2>/dev/null || echo "-")
      said=""
      grep -q 'moving during IMU initialization' "$dir/$fe.log" && said="moving start warned; "
      offset=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])).get('time_offset'); print('' if not r else ('offset %+.3f s, set %.3f' % (r['offset_s'], r['suggested_time_offset_lidar_to_imu']) if r['estimated'] else 'no estimate: ' + r['reason']))" "$dir/$fe/report.json" 2>/dev/null)
      said="$said$offset"
      printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$seed" "$fe" "$rc" "$ate" "$said"
    done
  done
done
