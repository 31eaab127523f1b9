#!/usr/bin/env bash
# Network monitoring overhead: the latency an instrumented URLSession adds per request on
# loopback, against an uninstrumented session in the same run (requests alternate).
# Goal: median added latency <= 50 us. Writes bench-results/network.json.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" network --requests "${NETWORK_REQUESTS:-3000}" --out bench-results/network.json
