#!/usr/bin/env bash
# Dashboard render time on a large SQLite database: `vigil-bench dashboard` seeds 1,000,000
# events over 30 days (5 releases, 6 OS versions, 8 device models, 6 pages), processes them into
# roll-ups and issues, then fetches every dashboard page without and with each filter (last 7
# days, release, OS version, device model, page, all three together) and reports each one's p95.
# Goal: p95 < 200 ms for every page and filter. Writes bench-results/dashboard.json.
#   DASHBOARD_BENCH_EVENTS=N    events seeded (default 1000000)
#   DASHBOARD_BENCH_SAMPLES=N   renders per page and filter after two warm-ups (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" dashboard \
  --events "${DASHBOARD_BENCH_EVENTS:-1000000}" \
  --samples "${DASHBOARD_BENCH_SAMPLES:-15}" \
  --output bench-results/dashboard.json
