#!/usr/bin/env bash
# Symbols benchmark: vigil's SymCache and batch symbolication vs Sentry's symbolic and
# llvm-symbolizer, on a generated arm64 iOS program with a multi-MB dSYM (built at bench time,
# not committed). Writes bench-results/symbols.json. Run through `make bench` (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
venv=.build/bench-venv
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import symbolic" 2>/dev/null; then
  echo "symbols: installing symbolic into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip >/dev/null
  "$venv/bin/pip" install --quiet symbolic
fi
mkdir -p bench-results
"$VIGIL_BIN_DIR/vigil-bench" symbols --vigil "$VIGIL_BIN_DIR/vigil" --python "$venv/bin/python" \
  --work .build/bench-symbols --out bench-results/symbols.json "$@"
cat bench-results/symbols.json
