#!/usr/bin/env bash
# Launch orchestration: a synthetic 60-task launch run serially on the main thread (today's
# didFinishLaunching), with LaunchRunner, and with LaunchRunner without core pinning (for
# comparison), against the makespan lower bound — all in the same process, alternating, with
# repetitions; medians and ratios go to
# bench-results/launch.json (goal: runner ≤ 1.10 × lower bound). The graph itself is written to
# bench-results/launch-graph.json for `vigil launch simulate`.
#   LAUNCH_BENCH_REPETITIONS=N   repetitions after one warm-up (default 9)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" launch \
  --repetitions "${LAUNCH_BENCH_REPETITIONS:-9}" \
  --output bench-results/launch.json \
  --graph-output bench-results/launch-graph.json
