# The standard simulated bags, sourced by run_frontends.sh and compare_builds.sh so that both run the
# same cases. One entry per bag: name | asuka_sim arguments | config overrides (the same for every
# frontend).
# shellcheck shell=bash disable=SC2034
vlp16="--set config_ros.lidar_type=velodyne --set config_ros.imu_topic=/imu/data --set config_ros.points_topic=/velodyne_points --set config_odometry.sensor.extrinsic_t=[0,0,0.12]"
standard_bags=(
  "avia_courtyard_60s|--lidar avia --scene courtyard --profile handheld --duration 60|"
  "avia_aggressive_40s|--lidar avia --scene courtyard --profile aggressive --duration 40 --tilted-start|"
  "vlp16_street_60s|--lidar vlp16 --scene courtyard --profile vehicle --duration 60|$vlp16"
  "avia_corridor_40s|--lidar avia --scene corridor --profile handheld --duration 40|"
  "avia_extreme_30s_saturated|--lidar avia --scene courtyard --profile extreme --duration 30 --gyro-range 4.36 --acc-range 19.6|--set config_odometry.imu.satu_gyro=4.36 --set config_odometry.imu.satu_acc=19.6"
)

# A frontend spec NAME@KEY=VALUE[,KEY=VALUE...] (run_frontends.sh, degeneracy.sh, run_visual.sh): appends a
# `--set config_odometry.KEY=VALUE` per setting to the array named by $2. The frontend is ${spec%%@*}.
frontend_settings() {
  local -n into=$2
  [[ $1 == *@* ]] || return 0
  local kvs kv
  IFS=',' read -r -a kvs <<<"${1#*@}"
  for kv in "${kvs[@]}"; do into+=(--set "config_odometry.$kv"); done
}
