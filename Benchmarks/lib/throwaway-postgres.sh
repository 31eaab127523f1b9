# Sourced by the suites that need PostgreSQL (server.sh, scrape.sh, retention.sh): starts a throwaway cluster
# in a temporary directory on a free loopback port (as the `postgres` user when running as root,
# since PostgreSQL refuses root), creates the database `vigil_bench`, and stops and deletes the
# cluster when the calling script exits. Sets `pgdir` and `port`.
#
# synchronous_commit=off: the same durability as SQLite's WAL with synchronous=NORMAL (an OS
# crash may lose the last transactions, a server crash may not).
PG_BIN="${VIGIL_PG_BIN:-/usr/lib/postgresql/15/bin}"
pgdir="$(mktemp -d "${TMPDIR:-/tmp}/vigil-bench-pg.XXXXXX")"
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
  chown postgres "$pgdir"
  as_pg=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
throwaway_postgres_cleanup() {
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$pgdir"
}
trap throwaway_postgres_cleanup EXIT
"${as_pg[@]}" "$PG_BIN/initdb" -D "$pgdir/data" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
"${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w -o \
  "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c synchronous_commit=off -c max_connections=100 -c shared_buffers=256MB" \
  start >/dev/null
"$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres vigil_bench
