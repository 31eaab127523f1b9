#!/usr/bin/env bash
# Hang monitoring overhead: the same main-thread workload with and without Vigil (CPU time
# of each child from wait4), and the latency of one main-thread stack sample.
# Writes bench-results/monitoring.json. Run by `make bench` (VIGIL_BIN_DIR = release build).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" monitoring --sample "$VIGIL_BIN_DIR/vigil-sample" \
  --seconds "${MONITORING_SECONDS:-20}" --rounds "${MONITORING_ROUNDS:-3}" \
  --out bench-results/monitoring.json
