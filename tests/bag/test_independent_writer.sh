#!/usr/bin/env bash
# #15: bags written by an independent implementation (Node.js: @mcap/core, @foxglove/rosmsg2-
# serialization, sql.js; tests/bag/independent_writer/) read by asuka's reader, compared field by
# field with what the writer says it wrote.
#   test_independent_writer.sh SOURCE_DIR CHECKER WORK_DIR
set -euo pipefail
src=$1/tests/bag/independent_writer
checker=$2
work=$3
command -v node >/dev/null || { echo "node (Node.js) is needed: scripts/setup installs nodejs and npm" >&2; exit 1; }
# The packages go into the build tree, never the source tree; npm ci installs exactly the lockfile.
mkdir -p "$work"
cp "$src/package.json" "$src/package-lock.json" "$src/write_rosbag2.mjs" "$work/"
if [ ! -d "$work/node_modules" ] || ! cmp -s "$src/package-lock.json" "$work/node_modules/.package-lock.json.copy"; then
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$src/package-lock.json" "$work/node_modules/.package-lock.json.copy"
fi
rm -rf "$work/out"
node "$work/write_rosbag2.mjs" "$work/out"
"$checker" "$work/out"
