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
PG_BIN="${VIGIL_PG_BIN:-/usr/lib/postgresql/15/bin}"
mkdir -p bench-results

pgdir="$(mktemp -d "${TMPDIR:-/tmp}/vigil-bench-pg.XXXXXX")"
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
  chown postgres "$pgdir"
  as_pg=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
cleanup() {
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$pgdir"
}
trap cleanup EXIT
"${as_pg[@]}" "$PG_BIN/initdb" -D "$pgdir/data" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
"${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w -o \
  "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c synchronous_commit=off -c max_connections=100 -c shared_buffers=256MB" \
  start >/dev/null
"$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres vigil_bench

"$VIGIL_BIN_DIR/vigil-bench" scrape \
  --vigil "$VIGIL_BIN_DIR/vigil" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --events "${SCRAPE_BENCH_EVENTS:-2000000}" \
  --seconds "${SCRAPE_BENCH_SECONDS:-10}" \
  --output bench-results/scrape.json
