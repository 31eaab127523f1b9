#!/usr/bin/env bash
# Event store and uploader: enqueue cost on the calling thread (goal: median <= 2 us, against
# encoding and writing synchronously), store throughput (goal: >= 100,000 small events/s),
# upload of 10,000 events to a loopback server (time, gzip ratio).
# Writes bench-results/store.json.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" store --out bench-results/store.json
