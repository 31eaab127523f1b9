#!/usr/bin/env bash
# Retention against ingest: a real `vigil serve` on SQLite and on PostgreSQL, each holding
# 600,000 events older than two days (bulk-loaded first), takes the server benchmark's
# load (8 clients, gzip batches of 100) in alternating phases: a server started without
# --retention-days, then one started with --retention-days 1 whose background pruner deletes the
# old events in batches meanwhile; `vigil-bench retention` compares the ingest p99 of both.
# Writes bench-results/retention.json. Goal: p99 with pruning within 10 % of without.
#
# PostgreSQL is a throwaway cluster as in server.sh.
#   RETENTION_BENCH_EVENTS=N    events loaded before the load (default 600000)
#   RETENTION_BENCH_SECONDS=N   seconds per phase (default 10; two rounds of two phases per database)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results

source Benchmarks/lib/throwaway-postgres.sh

"$VIGIL_BIN_DIR/vigil-bench" retention \
  --vigil "$VIGIL_BIN_DIR/vigil" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --events "${RETENTION_BENCH_EVENTS:-600000}" \
  --seconds "${RETENTION_BENCH_SECONDS:-10}" \
  --output bench-results/retention.json
