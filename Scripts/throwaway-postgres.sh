# Sourced (bash): a throwaway PostgreSQL cluster on a free loopback port, from Debian's packages
# when missing, removed by throwaway_postgres_stop. `.ci/run` (for the store tests) and the
# benchmarks' PostgreSQL runs use it.
#   throwaway_postgres_start  sets THROWAWAY_POSTGRES_URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   throwaway_postgres_stop   stops the cluster and removes its folder (safe to call twice)
# THROWAWAY_POSTGRES_OPTIONS adds server options (`-c name=value …`), as a benchmark's diagnostics do.
PG_DIR=""
PG_AS=()
PG_BIN=""

throwaway_postgres_find_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"
    return
  fi
  local d found=""
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then found="$d"; fi
  done
  echo "$found"
}

throwaway_postgres_start() {
  PG_BIN="$(throwaway_postgres_find_bin)"
  if [ -z "$PG_BIN" ]; then
    echo "PostgreSQL is missing; installing it from Debian's packages" >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    PG_BIN="$(throwaway_postgres_find_bin)"
  fi
  if [ -z "$PG_BIN" ]; then echo "error: no initdb/pg_ctl after installing postgresql" >&2; return 2; fi
  PG_DIR="$(mktemp -d /tmp/healthrecords-pg.XXXXXX)"
  # initdb refuses to run as root: the cluster belongs to an unprivileged user.
  if [ "$(id -u)" -eq 0 ]; then
    local user=postgres
    id "$user" >/dev/null 2>&1 || user=nobody
    chown "$user" "$PG_DIR"
    PG_AS=(runuser -u "$user" --)
  fi
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))"
  "${PG_AS[@]}" "$PG_BIN/initdb" -A trust -U postgres -D "$PG_DIR/data" >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; return 2; }
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off ${THROWAWAY_POSTGRES_OPTIONS:-}" start >/dev/null \
    || { cat "$PG_DIR/server.log" >&2; return 2; }
  THROWAWAY_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $NF}') on 127.0.0.1:$port" >&2
}

throwaway_postgres_stop() {
  if [ -n "$PG_DIR" ]; then
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
    PG_DIR=""
  fi
}
