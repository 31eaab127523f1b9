#!/usr/bin/env bash
# The event table on ClickHouse: `vigil-bench clickhouse` runs the server bench's load (8 clients,
# gzip batches of 100 realistic events) into `vigil serve` on PostgreSQL alone, then on PostgreSQL
# with `--events` on a two-shard ClickHouse cluster; grows each side to CLICKHOUSE_BENCH_ROWS events
# (the load's events copied back in time a day per copy, roll-ups kept exact; on the ClickHouse side
# both the shards and its PostgreSQL, where the issue list reads); then asks both
# servers each dashboard API query in turn, unfiltered and with each dashboard filter, and the
# request breakdown by version and network type apart (it reads the newest 20,000 requests).
# Writes bench-results/clickhouse.json. Goals: dashboard query p95 ≥ 10× faster than PostgreSQL at
# 20 million events; ingest with ClickHouse not below PostgreSQL alone.
#
# Both ClickHouse shards are throwaway `clickhouse-server`s (Debian's 18.16) on free loopback ports,
# their configuration written into a temporary directory; PostgreSQL as in server.sh.
#   CLICKHOUSE_BENCH_SECONDS=N  load per side (default 30)
#   CLICKHOUSE_BENCH_ROWS=N     events per side for the queries (default 20000000; 1 = ingest only)
#   CLICKHOUSE_BENCH_ROUNDS=N   times each dashboard query is asked per round (default 30)
#   CLICKHOUSE_BENCH_VIGIL=PATH the `vigil` to serve with (default: beside vigil-bench), for A/B runs
#   CLICKHOUSE_BENCH_FLUSH=S    the --events URL's flush (seconds between inserts into a shard)
#   CLICKHOUSE_BENCH_OUTPUT=F   where the results go (default bench-results/clickhouse.json)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VIGIL_BIN_DIR:=$(swift build -c release --show-bin-path)}"
mkdir -p bench-results

source Benchmarks/lib/throwaway-postgres.sh
"$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres vigil_bench_events

chdir="$(mktemp -d "${TMPDIR:-/tmp}/vigil-bench-ch.XXXXXX")"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
http=("$(free_port)" "$(free_port)")
tcp=("$(free_port)" "$(free_port)")
ch_pids=()
clickhouse_cleanup() {
  for pid in "${ch_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$chdir"
  throwaway_postgres_cleanup
}
trap clickhouse_cleanup EXIT
for i in 0 1; do
  dir="$chdir/shard$i"
  mkdir -p "$dir"
  cat > "$dir/config.xml" <<XML
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${http[$i]}</http_port>
  <tcp_port>${tcp[$i]}</tcp_port>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <users_config>users.xml</users_config>
  <remote_servers><vigil>
    <shard><replica><host>127.0.0.1</host><port>${tcp[0]}</port></replica></shard>
    <shard><replica><host>127.0.0.1</host><port>${tcp[1]}</port></replica></shard>
  </vigil></remote_servers>
</yandex>
XML
  cat > "$dir/users.xml" <<XML
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
  (cd "$dir" && exec /usr/sbin/clickhouse-server --config-file="$dir/config.xml" >"$dir/out.log" 2>&1) &
  ch_pids+=($!)
done
for i in 0 1; do
  for _ in $(seq 1 300); do
    if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:${http[$i]}/ping', timeout=1)" 2>/dev/null; then break; fi
    sleep 0.2
  done
done

"$VIGIL_BIN_DIR/vigil-bench" clickhouse \
  --vigil "${CLICKHOUSE_BENCH_VIGIL:-$VIGIL_BIN_DIR/vigil}" \
  --postgres "postgres://postgres@127.0.0.1:$port/vigil_bench" \
  --postgres-events "postgres://postgres@127.0.0.1:$port/vigil_bench_events" \
  --postgres-data "$pgdir/data" \
  --clickhouse "clickhouse://127.0.0.1:${http[0]}/vigil?cluster=vigil&nodes=127.0.0.1:${http[0]},127.0.0.1:${http[1]}${CLICKHOUSE_BENCH_FLUSH:+&flush=$CLICKHOUSE_BENCH_FLUSH}" \
  --clickhouse-pids "${ch_pids[0]},${ch_pids[1]}" \
  --seconds "${CLICKHOUSE_BENCH_SECONDS:-30}" \
  --rows "${CLICKHOUSE_BENCH_ROWS:-20000000}" \
  --rounds "${CLICKHOUSE_BENCH_ROUNDS:-30}" \
  --output "${CLICKHOUSE_BENCH_OUTPUT:-bench-results/clickhouse.json}"
