#!/usr/bin/env bash
# Symbolicating a 60-thread, 2,000-frame crash report with its dSYM: Vigil (read .ips, build the
# SymCache, symbolicate, write .ips) against llvm-symbolizer on the same addresses, in one run.
# Writes bench-results/reports.json with both medians, the ratio and the frames both agree on.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" reports --dsym Tests/Fixtures/macho/app-arm64-O2.dSYM --runs 7 --threads 60 --frames 2000 \
  --output bench-results/reports.json
