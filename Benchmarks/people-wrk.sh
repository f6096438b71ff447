#!/usr/bin/env bash
# One server for many people, measured side by side in one run on loopback (issue 32):
# a throwaway PostgreSQL cluster holds PEOPLE people (default 1,000), each a re-identified copy
# of one of the shared Synthea people (new patient id and name; about 200 resources each) with an
# app allowed to read their lab results; Benchmarks/people-bench.py then measures
#   - start-up: `serve --postgres URL` over the 1,000-person database and over a one-person one;
#   - memory: the server's resident memory with one person signed in and idle, and with all
#     1,000 signed in and idle (their stores closed after --idle-close), and while all are open;
#   - throughput and p99 (wrk): FHIR lab searches of one person on a single-person server, of
#     random people on the many-people server, and on two many-people processes at once.
# Prints each figure, the ratios and whether the targets hold; fails when a response is not 2xx.
# Usage (from anywhere): Benchmarks/people-wrk.sh [SECONDS] [--people N] [--cli PATH] [--connections N] [--rounds N]
# The single-person and many-people runs alternate in ROUNDS rounds (default 4) of SECONDS/ROUNDS
# each, merged into one figure per server (p99 over all their latencies): the machine's drift
# falls on both alike.
# PERF_OUT=DIR profiles the server during the first round of the single-person and many-people runs (perf record -g),
# into DIR/single.data and DIR/many.data, and the whole machine during the two-process run
# (perf record -a, wall-clock timestamps) into DIR/two.data.
# SPREAD="1 10 100" adds runs of the many-people server with requests spread over only that many people.
# PG_STATEMENTS=1 loads pg_stat_statements and prints, for the first round of those two runs, the statements that took
# PostgreSQL's time (calls and milliseconds per request).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=20
PEOPLE=1000
CLI=""
CONNECTIONS=8
ROUNDS=4
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) CLI="$2"; shift 2 ;;
    --people) PEOPLE="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) SECONDS_TO_RUN="$1"; shift ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "error: --rounds must be a whole number of at least 1" >&2; exit 2 ;; esac
if [ -z "$CLI" ]; then
  CLI=.build/release/healthrecords
  if [ ! -x "$CLI" ]; then
    echo "building the release executable (swift build -c release --product healthrecords)" >&2
    swift build -c release --product healthrecords >&2
  fi
fi
[ -x "$CLI" ] || { echo "error: no executable at $CLI" >&2; exit 2; }
if ! command -v wrk >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
  echo "installing wrk, curl and the PostgreSQL client (Debian)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk curl postgresql-client >/dev/null
fi
SYNTHEA=../shared/data/fhir/synthea
[ -d "$SYNTHEA" ] || { echo "error: $SYNTHEA not found (../shared must sit beside the repository)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/healthrecords-people-wrk-XXXXXX)
source Scripts/throwaway-postgres.sh
cleanup() {
  # The servers the benchmark started name the throwaway database on their command line.
  [ -n "${THROWAWAY_POSTGRES_URL:-}" ] && pkill -f -- "--postgres $THROWAWAY_POSTGRES_URL" 2>/dev/null || true
  throwaway_postgres_stop
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
unset HEALTHRECORDS_PASSPHRASE HEALTHRECORDS_PERSON_TOKEN HEALTHRECORDS_POSTGRES_URL HEALTHRECORDS_STORE
if [ "${PG_STATEMENTS:-}" = 1 ]; then export THROWAWAY_POSTGRES_OPTIONS="${THROWAWAY_POSTGRES_OPTIONS:-} -c shared_preload_libraries=pg_stat_statements"; fi
throwaway_postgres_start
echo "binary: $CLI; people: $PEOPLE; runs of ${SECONDS_TO_RUN}s ($ROUNDS alternating rounds) with $CONNECTIONS connections"
python3 Benchmarks/people-bench.py --cli "$CLI" --postgres "$THROWAWAY_POSTGRES_URL" --synthea "$SYNTHEA" --work "$WORK" \
  --people "$PEOPLE" --seconds "$SECONDS_TO_RUN" --connections "$CONNECTIONS" --rounds "$ROUNDS"
