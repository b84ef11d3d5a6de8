#!/usr/bin/env bash
# The extrinsic rotation check (#16, docs/sensors.md) over sensors, motions and seeds: each case is
# simulated with asuka_sim, the lidar mounted as the preset says ("right") or turned against the IMU
# ("wrong"), and run with asuka_rosbag --sensor PRESET and nothing else. One table row per run: exit
# code, ATE RMSE, the check's verdict, its disagreement, the intervals used and slipped, and, when the
# motion determined it, how far the estimated rotation lies from the true one.
#   benchmarks/extrinsic_check.sh [BUILD_DIR] [OUTPUT_DIR]     FRONTENDS="fastlio batchlio superlio" SEEDS="1 2 3" DURATION=20
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/output/extrinsic_check}
frontends=(${FRONTENDS:-fastlio batchlio superlio})
seeds=(${SEEDS:-1 2 3})
duration=${DURATION:-20}
mkdir -p "$out"

# name|preset|asuka_sim arguments|mount turned by (roll pitch yaw deg; empty: as the preset says)
cases=(
  "avia_handheld|avia|--lidar avia --profile handheld|"
  "avia_aggressive|avia|--lidar avia --profile aggressive|"
  "mid360_vehicle|mid360|--lidar mid360 --profile vehicle|"
  "os1_handheld|os1|--lidar os1-64 --profile handheld|"
  "hdl32_aggressive|hdl32|--lidar hdl32 --profile aggressive|"
  "vlp16_vehicle|vlp16|--lidar vlp16 --profile vehicle|"
  "rs16_handheld|rs16|--lidar rs16 --profile handheld|"
  "avia_aggressive_upside_down|avia|--lidar avia --profile aggressive|180 0 0"
  "mid360_handheld_upside_down|mid360|--lidar mid360 --profile handheld|180 0 0"
  "hdl32_handheld_rolled_90|hdl32|--lidar hdl32 --profile handheld|90 0 0"
  "mid360_aggressive_pitched_90|mid360|--lidar mid360 --profile aggressive|0 90 0"
  "vlp16_vehicle_upside_down|vlp16|--lidar vlp16 --profile vehicle|180 0 0"
)

# The preset's translation, so that a turned mount keeps the rig's lever arm.
preset_t() { python3 -c "import json,sys; print(' '.join(str(v) for v in json.load(open(sys.argv[1]))['settings']['config_odometry']['sensor']['extrinsic_t']))" "$root/config/sensors/$1.json"; }

printf '| case | seed | frontend | exit | ATE RMSE [m] | verdict | disagreement [deg] | intervals used / slipped | estimate to truth [deg] |\n|---|---|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name preset sim_args turn <<<"$c"
  for seed in "${seeds[@]}"; do
    dir=$out/$name/seed$seed
    extrinsic=()
    [ -n "$turn" ] && extrinsic=(--extrinsic "$(preset_t "$preset") $turn")
    # shellcheck disable=SC2086
    [ -f "$dir/sim/sim.bag" ] || "$build/bin/asuka_sim" $sim_args --duration "$duration" --seed "$seed" "${extrinsic[@]}" --output "$dir/sim" >/dev/null 2>&1
    for fe in "${frontends[@]}"; do
      "$build/bin/asuka_rosbag" --bag "$dir/sim/sim.bag" --sensor "$preset" --frontend "$fe" --output "$dir/$fe" >"$dir/$fe.log" 2>&1
      rc=$?
      ate=$("$build/bin/asuka_eval" "$dir/$fe/trajectory.tum" "$dir/sim/ground_truth.tum" --json "$dir/$fe/eval.json" >/dev/null 2>&1 &&
            python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['ate_m']['rmse'])" "$dir/$fe/eval.json" 2>/dev/null || echo "-")
      row=$(python3 - "$dir/$fe/report.json" "$dir/sim/sim.json" <<'EOF'
import json, math, sys
try:
    c = json.load(open(sys.argv[1])).get('extrinsic_check')
except Exception:
    c = None
if not c:
    print('- | - | - | -'); sys.exit()
est = '-'
if c.get('estimated'):
    x, y, z, w = json.load(open(sys.argv[2]))['T_imu_lidar']['rotation_xyzw']
    T = [[1 - 2*(y*y + z*z), 2*(x*y - z*w), 2*(x*z + y*w)], [2*(x*y + z*w), 1 - 2*(x*x + z*z), 2*(y*z - x*w)], [2*(x*z - y*w), 2*(y*z + x*w), 1 - 2*(x*x + y*y)]]
    E = c['R_imu_lidar_estimated_row_major']
    trace = sum(T[i][j] * E[3*i + j] for i in range(3) for j in range(3))  # trace(T^T E)
    est = '%.1f' % math.degrees(math.acos(max(-1.0, min(1.0, (trace - 1) / 2))))
print('%s | %.1f | %d / %d | %s' % (c['verdict'], c['disagreement_deg'], c['pairs'], c['slipped_pairs'], est))
EOF
)
      printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$seed" "$fe" "$rc" "$ate" "$row"
    done
  done
done
