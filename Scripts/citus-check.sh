#!/usr/bin/env bash
# The store suites against a three-node Citus cluster in strict mode (docs/scaling.md, "Checked
# on a cluster"). Run by hand, not in CI: Citus is not in Debian's packages. Build it first:
#   fetch github:citusdata/citus (tag v12.1.12), apt-get install postgresql-server-dev-15 libkrb5-dev libzstd-dev liblz4-dev,
#   ./configure --without-libcurl && make && make install
# This starts a coordinator and two workers (PostgreSQL 15 with citus preloaded, on loopback,
# removed afterwards), migrates the schema, distributes it with Scripts/citus-distribute.sql,
# makes any statement that reaches more than one shard an error
# (citus.multi_task_query_log_level = 'error'), checks with EXPLAIN that the engine's writes that
# copy rows route to one shard, and runs the PostgreSQL store tests against the coordinator.
# Usage: Scripts/citus-check.sh [swift test --filter PATTERN]   (default: every test)
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER="${1:-.}"
PG_BIN=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || true)
[ -n "$PG_BIN" ] || { echo "error: PostgreSQL 15 is not installed" >&2; exit 2; }
[ -f "$("$PG_BIN/pg_config" --pkglibdir 2>/dev/null || /usr/bin/pg_config --pkglibdir)/citus.so" ] \
  || { echo "error: citus.so is not installed for PostgreSQL 15 (see the comment at the top)" >&2; exit 2; }

DIR=$(mktemp -d /tmp/healthrecords-citus.XXXXXX)
AS=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; AS=(runuser -u postgres --); fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
NODES=(coordinator worker1 worker2)
declare -A PORT
stop() {
  for n in "${NODES[@]}"; do
    [ -d "$DIR/$n" ] && "${AS[@]}" "$PG_BIN/pg_ctl" -D "$DIR/$n" -m fast -w stop >/dev/null 2>&1 || true
  done
  rm -rf "$DIR"
}
# CITUS_KEEP=1 leaves the cluster running (for EXPLAIN by hand) and runs no tests.
[ -n "${CITUS_KEEP:-}" ] || trap stop EXIT
for n in "${NODES[@]}"; do
  PORT[$n]=$(free_port)
  "${AS[@]}" "$PG_BIN/initdb" -A trust -U postgres -D "$DIR/$n" > "$DIR/$n.initdb.log" 2>&1
  "${AS[@]}" "$PG_BIN/pg_ctl" -D "$DIR/$n" -l "$DIR/$n.log" -w -t 60 \
    -o "-p ${PORT[$n]} -k $DIR -c listen_addresses=127.0.0.1 -c shared_preload_libraries=citus -c max_connections=300 -c fsync=off" start >/dev/null
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${PORT[$n]}" -U postgres -d postgres -c "CREATE EXTENSION citus" >/dev/null
done
COORD="postgres://postgres@127.0.0.1:${PORT[coordinator]}/postgres"
psql_c() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${PORT[coordinator]}" -U postgres -d postgres "$@"; }
psql_c -c "SELECT citus_set_coordinator_host('127.0.0.1', ${PORT[coordinator]})" >/dev/null
for n in worker1 worker2; do psql_c -c "SELECT citus_add_node('127.0.0.1', ${PORT[$n]})" >/dev/null; done
echo "Citus $(psql_c -At -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") on PostgreSQL $(psql_c -At -c 'SHOW server_version'): coordinator :${PORT[coordinator]}, workers :${PORT[worker1]} :${PORT[worker2]}"

# The schema, as the engine migrates it, then distributed.
CLI=.build/debug/healthrecords
[ -x "$CLI" ] || swift build --product healthrecords >&2
"$CLI" apps list --postgres "$COORD?person=citus-setup" > /dev/null
PGOPTIONS="-c client_min_messages=warning" psql_c -f Scripts/citus-distribute.sql > /dev/null
psql_c -c "ALTER DATABASE postgres SET citus.multi_task_query_log_level = 'error'" >/dev/null
echo "distributed: $(psql_c -At -c "SELECT count(*) FROM pg_dist_partition") tables, $(psql_c -At -c "SELECT count(DISTINCT colocationid) FROM pg_dist_partition") co-location group"

# The statements that copy a person's rows from one table to another, prepared with parameters
# as the engine sends them and planned by Citus: each must be one task (one shard).
FAILED=0
explain() {  # NAME TYPES SQL ARGUMENTS
  local plan tasks
  plan=$(psql_c -At -c "PREPARE s($2) AS $3" -c "EXPLAIN EXECUTE s($4)" 2>&1) || true
  tasks=$(printf '%s\n' "$plan" | sed -n 's/.*Task Count: \([0-9]*\).*/\1/p' | head -1)
  printf '  %-34s task count %s\n' "$1" "${tasks:-?}"
  [ "$tasks" = "1" ] || { printf '%s\n' "$plan" >&2; echo "error: $1 is not a single-shard statement" >&2; FAILED=1; }
}
echo "EXPLAIN, as prepared by the engine:"
explain "history: the replaced rows" "text, bigint, bigint" \
  "SELECT id, anchor, digest, data FROM resource WHERE person_id = \$1 AND id IN (\$2, \$3)" "'citus-setup', 1, 2"
explain "history: the versions written" "text, bigint, bigint, double precision, bytea, bytea" \
  "INSERT INTO resource_version (person_id, resource_row, anchor, replaced_date, digest, data) VALUES (\$1, \$2, \$3, \$4, \$5, \$6)" \
  "'citus-setup', 1, 2, 0, '\\x00', '\\x00'"
explain "record tombstones" "text, bigint, double precision, bigint" \
  "INSERT INTO tombstone (person_id, anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor, dated)
   SELECT person_id, \$2 + row_number() OVER (ORDER BY id), identity, source_id, resource_type, clinical_type, resource_id, \$3, id,
   COALESCE(clinical_date, added_date) FROM resource WHERE person_id = \$1 AND source_id = \$4 AND clinical_type IS NOT NULL RETURNING clinical_type" \
  "'citus-setup', 5, 0, 1"
explain "sample tombstones" "text, bigint, double precision, text" \
  "INSERT INTO quantity_sample_tombstone (person_id, anchor, identity, source_id, quantity_type, sample_uuid, deleted_date, added_anchor, dated)
   SELECT q.person_id, \$2 + row_number() OVER (ORDER BY q.id), q.identity, q.source_id, q.quantity_type, q.sample_uuid, \$3, q.anchor, q.start_date
   FROM quantity_sample q WHERE q.person_id = \$1 AND q.quantity_type = \$4 RETURNING quantity_type" \
  "'citus-setup', 5, 0, 'heart-rate'"
[ "$FAILED" = 0 ] || exit 1
if [ -n "${CITUS_KEEP:-}" ]; then echo "kept: $COORD (stop: pg_ctl -D $DIR/<node> stop; data in $DIR)"; exit 0; fi
echo "running: swift test --filter $FILTER against the coordinator"
HEALTHRECORDS_POSTGRES_URL="$COORD" swift test --skip-build --filter "$FILTER" 2>&1 | tee "$DIR/test.log" | grep -E "^(✘|✔ Test run|✘ Test run)|Expectation failed|error:" | head -200
grep -q "✔ Test run with" "$DIR/test.log"
