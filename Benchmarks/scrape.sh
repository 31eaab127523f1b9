#!/usr/bin/env bash
# /metrics against ingest: a real `vigil serve` on SQLite and on PostgreSQL, each holding
# 2,000,000 events (bulk-loaded first), takes the server benchmark's load (8 clients, gzip
# batches of 100) in alternating phases without and with 8 scrapers polling /metrics every
# 100 ms; `vigil-bench scrape` compares the ingest p99 of both. Writes bench-results/scrape.json.
# Goal: p99 with scrapes within 10 % of without (a scrape reads kept counts, never the table).
#
# PostgreSQL is a throwaway cluster as in server.sh.
#   SCRAPE_BENCH_EVENTS=N    events loaded before the load (default 2000000)
#   SCRAPE_BENCH_SECONDS=N   seconds per phase (default 10; two rounds of two phases per database)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results

source Benchmarks/lib/throwaway-postgres.sh

"$VIGIL_BIN_DIR/vigil-bench" scrape \
  --vigil "$VIGIL_BIN_DIR/vigil" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --events "${SCRAPE_BENCH_EVENTS:-2000000}" \
  --seconds "${SCRAPE_BENCH_SECONDS:-10}" \
  --output bench-results/scrape.json
