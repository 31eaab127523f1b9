#!/usr/bin/env bash
# Server ingest: a real `vigil serve` on SQLite and on PostgreSQL, side by side in one run,
# driven by `vigil-bench server` (8 clients, batches of 100 realistic gzip events over
# keep-alive loopback connections): events/s, request p50/p99, server RSS, processing lag p95,
# the PostgreSQL/SQLite ratio, and the event decoder against JSONDecoder.
# Writes bench-results/server.json. Goals: ≥ 20,000 events/s on SQLite, p99 < 100 ms,
# processing lag p95 < 2 s.
#
# PostgreSQL is a throwaway cluster in a temporary directory (run as the `postgres` user when
# this script runs as root), with synchronous_commit=off: the same durability as SQLite's WAL
# with synchronous=NORMAL (an OS crash may lose the last transactions, a server crash may not).
#   SERVER_BENCH_SECONDS=N   load duration per database (default 60)
#   SERVER_BENCH_CLIENTS=N   concurrent clients (default 8)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results

source Benchmarks/lib/throwaway-postgres.sh

"$VIGIL_BIN_DIR/vigil-bench" server \
  --vigil "$VIGIL_BIN_DIR/vigil" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --postgres-data "$pgdir/data" \
  --seconds "${SERVER_BENCH_SECONDS:-60}" \
  --clients "${SERVER_BENCH_CLIENTS:-8}" \
  --batch 100 \
  --output bench-results/server.json
