#!/usr/bin/env bash
# Crash capture: signal-to-report-written latency for a crash with a 64-frame stack, the cost of
# installing the handler, and crash-to-exit time with and without Vigil (same run, both sides).
# Writes bench-results/crash.json. Run by `make bench` (VIGIL_BIN_DIR = release build).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
# Swift's own backtracer would run after the crash on both sides; it is not what is measured.
export SWIFT_BACKTRACE=enable=no
"$VIGIL_BIN_DIR/vigil-bench" crash --sample "$VIGIL_BIN_DIR/vigil-sample" \
  --runs "${CRASH_RUNS:-30}" --installs "${CRASH_INSTALLS:-30}" --out bench-results/crash.json
