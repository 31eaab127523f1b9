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

"$VIGIL_BIN_DIR/vigil-bench" server \
  --vigil "$VIGIL_BIN_DIR/vigil" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --postgres-data "$pgdir/data" \
  --seconds "${SERVER_BENCH_SECONDS:-60}" \
  --clients "${SERVER_BENCH_CLIENTS:-8}" \
  --batch 100 \
  --output bench-results/server.json
