#!/usr/bin/env bash
# BLE link suite: window mode vs stop-and-wait on the simulated link (virtual time), both
# measured in the same run against the theoretical streaming bound of the same radio
# parameters, at MTU 247 / 2M / 15 ms and MTU 23 / 1M / 30 ms, 0 % and 2 % loss.
# Writes bench-results/ble.json (tables, ratios, goals) and checks that `vigil ble bench
# --json` agrees at the headline parameters.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results

"$VIGIL_BIN_DIR/vigil-bench" ble --output bench-results/ble.json

cli=$("$VIGIL_BIN_DIR/vigil" ble bench --json --mtu 247 --phy 2M --interval-ms 15 --packets-per-event 5 \
      --loss 0.02 --mode window --bytes 1000000 --seed 1)
echo "vigil ble bench --json (MTU 247, 2M, 15 ms, 5/event, 2% loss, window): $cli"
for key in goodputBytesPerSecond boundBytesPerSecond ratio retransmissions verified; do
  [[ "$cli" == *"\"$key\""* ]] || { echo "ble: CLI output lacks $key" >&2; exit 1; }
done
[[ "$cli" == *'"verified":true'* ]] || { echo "ble: CLI transfer did not verify" >&2; exit 1; }
