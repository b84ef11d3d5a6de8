# Shared by the ROS integration tests (sourced): a scratch folder, a private roscore on a random port,
# cleanup of every started process, and waiting helpers.
#   work: the scratch folder; pids: processes to stop at exit (append to it)
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
export ROS_MASTER_URI=http://127.0.0.1:$port ROS_HOSTNAME=127.0.0.1 ROS_HOME=$work/ros_home ROS_LOG_DIR=$work/ros_log
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  sleep 0.5
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

wait_for() {  # wait_for SECONDS COMMAND...: retries COMMAND until it succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}
subscribed() { rostopic info "$1" 2>/dev/null | sed -n '/Subscribers:/,$p' | grep -q "$2"; }

start_roscore() {
  roscore -p "$port" >"$work/roscore.log" 2>&1 &
  pids+=($!)
  wait_for 30 rostopic list || fail "roscore did not start"
}
