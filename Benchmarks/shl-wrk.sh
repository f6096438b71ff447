#!/usr/bin/env bash
# Sharing with a clinician, measured side by side in one run (release build, loopback):
#   1. building the International Patient Summary of a person with over 10,000 records (every
#      Synthea patient's, as five providers sent them), and our raw AES-GCM and AES-GCM + DEFLATE throughput
#      (healthrecords-bench shl, from the Benchmarks package; skipped with --no-bench);
#   2. wrk (Debian) with the same settings against the server: GET /healthz, then U links' files
#      (GET /shl/{id}?recipient=…, every access logged): the check-in bundle and the IPS of the
#      10,000 records, and, on a second server of the same binary, the check-in bundle of one
#      Synthea person from one provider. Prints requests/s, MB/s, p50/p99, the ratios, and whether
#      issue 31's target holds (a person's U file at ≥ 1/2 of /healthz's requests/s). Fails on
#      any non-2xx response.
# Usage (from anywhere): Benchmarks/shl-wrk.sh [SECONDS] [--cli PATH] [--connections N] [--no-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=30
CLI=""
CONNECTIONS=8
BENCH=1
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) CLI="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --no-bench) BENCH=0; shift ;;
    *) SECONDS_TO_RUN="$1"; shift ;;
  esac
done
if [ -z "$CLI" ]; then
  CLI=.build/release/healthrecords
  if [ ! -x "$CLI" ]; then
    echo "building the release executable (swift build -c release --product healthrecords)" >&2
    swift build -c release --product healthrecords >&2
  fi
fi
[ -x "$CLI" ] || { echo "error: no executable at $CLI" >&2; exit 2; }
if ! command -v wrk >/dev/null 2>&1; then
  echo "installing wrk (Debian)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
fi
SYNTHEA=../shared/data/fhir/synthea
[ -d "$SYNTHEA" ] || { echo "error: $SYNTHEA not found (../shared must sit beside the repository)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/healthrecords-shl-wrk-XXXXXX)
SERVER_PID=""
ONE_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ -n "$ONE_PID" ]; then kill "$ONE_PID" 2>/dev/null || true; wait "$ONE_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export HEALTHRECORDS_STORE="$WORK/store.sqlite"
unset HEALTHRECORDS_PASSPHRASE HEALTHRECORDS_PERSON_TOKEN HEALTHRECORDS_POSTGRES_URL

if [ "$BENCH" = 1 ]; then
  echo "== healthrecords-bench shl (release; the Benchmarks package)"
  (cd Benchmarks && swift run -c release healthrecords-bench shl) | tee "$WORK/bench.out"
fi

echo "binary: $CLI"
# Over 10,000 records: the Synthea people as five providers sent them (each fact five times).
for provider in 1 2 3 4 5; do "$CLI" import "$SYNTHEA" --source "provider-$provider" >/dev/null; done
echo "$("$CLI" records --limit 1000000 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') records in the store"
"$CLI" serve --port 0 --log-level error > "$WORK/serve.out" &
SERVER_PID=$!
for _ in $(seq 1 300); do grep -q "^Listening on " "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
BASE=$(sed -n 's/^Listening on //p' "$WORK/serve.out")
[ -n "$BASE" ] || { echo "error: the server did not start" >&2; exit 1; }
link_path() {  # the path of a new U link's file, made by share create
  "$CLI" share create "$@" --expires 1h --public-url "$BASE" --json | python3 -c "
import json, sys, urllib.parse
url = json.load(sys.stdin)['url']
print(urllib.parse.urlparse(url).path + '?recipient=Benchmark%20clinic')"
}
CHECKIN=$(link_path --check-in)
SUMMARY=$(link_path --summary)
# One Synthea person from one provider, on a second server of the same binary: a typical
# check-in file (the one above carries every fact's five providers).
ONE_STORE="$WORK/one.sqlite"
"$CLI" import --store "$ONE_STORE" "$(ls "$SYNTHEA"/*.json | head -1)" >/dev/null
"$CLI" serve --store "$ONE_STORE" --port 0 --log-level error > "$WORK/serve-one.out" &
ONE_PID=$!
for _ in $(seq 1 300); do grep -q "^Listening on " "$WORK/serve-one.out" 2>/dev/null && break; sleep 0.1; done
ONE_BASE=$(sed -n 's/^Listening on //p' "$WORK/serve-one.out")
[ -n "$ONE_BASE" ] || { echo "error: the second server did not start" >&2; exit 1; }
ONE=$("$CLI" share create --store "$ONE_STORE" --check-in --expires 1h --public-url "$ONE_BASE" --json | python3 -c "
import json, sys, urllib.parse
print(urllib.parse.urlparse(json.load(sys.stdin)['url']).path + '?recipient=Benchmark%20clinic')")
curl -sf "$ONE_BASE$ONE" -o /dev/null || { echo "error: $ONE did not answer before the run" >&2; exit 1; }
for p in "$CHECKIN" "$SUMMARY"; do
  curl -sf "$BASE$p" -o "$WORK/file.jwe" || { echo "error: $p did not answer before the run" >&2; exit 1; }
done
echo "check-in files of $(curl -sf "$BASE$CHECKIN" | wc -c) bytes (10,000 records) and $(curl -sf "$ONE_BASE$ONE" | wc -c) bytes (one person, one provider); a summary file of $(curl -sf "$BASE$SUMMARY" | wc -c) bytes (compact JWE)"

cat > "$WORK/bench.lua" <<'LUA'
-- No response() callback: with one, wrk hands every body to Lua, and copying 50 KB bodies into
-- Lua strings would measure wrk rather than the server. Non-2xx/3xx answers are wrk's own
-- count (summary.errors.status).
local path = os.getenv("BENCH_PATH")
function request() return wrk.format("GET", path) end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d seconds=%.3f bytes=%d errors=%d non2xx=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
    summary.requests, summary.duration / 1e6, summary.bytes, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
LUA
bench() {  # NAME PATH [BASE]
  local base="${3:-$BASE}"
  echo "== $1: GET $2 (${SECONDS_TO_RUN}s, 1 thread, $CONNECTIONS connections)"
  BENCH_PATH="$2" wrk -t1 -c"$CONNECTIONS" -d2s --timeout 10s -s "$WORK/bench.lua" "$base" > /dev/null
  BENCH_PATH="$2" wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_TO_RUN}s" --timeout 10s --latency -s "$WORK/bench.lua" "$base" | tee "$WORK/$1.out"
}
bench healthz /healthz
# PERF_OUT=perf.data profiles the server while it serves the check-in file.
if [ -n "${PERF_OUT:-}" ]; then
  perf record -g -o "$PERF_OUT" -p "$SERVER_PID" -- sleep "$((SECONDS_TO_RUN + 2))" >/dev/null 2>&1 &
  PERF_PID=$!
fi
bench checkin "$CHECKIN"
if [ -n "${PERF_OUT:-}" ]; then wait "$PERF_PID" || true; fi
bench summary "$SUMMARY"
bench one "$ONE" "$ONE_BASE"

python3 - "$WORK" "$CLI" <<'PY'
import os, re, sys
work, cli = sys.argv[1:]
res = {}
for name in ("healthz", "one", "checkin", "summary"):
    line = next((l for l in open(f"{work}/{name}.out") if l.startswith("RESULT ")), None)
    if line is None:
        sys.exit(f"shl-wrk FAILED: wrk gave no result for {name}")
    r = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}
    r["rps"] = r["requests"] / r["seconds"]
    r["mb_s"] = r["bytes"] / r["seconds"] / 1e6
    res[name] = r
if os.path.exists(f"{work}/bench.out"):
    print()
    for line in open(f"{work}/bench.out"):
        if line.startswith("SHL-"):
            print(line.rstrip())
print(f"\n{'endpoint':<44} {'requests':>9} {'req/s':>8} {'MB/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'non-2xx':>7}")
labels = {"healthz": "GET /healthz", "one": "GET /shl/{id}?recipient= (check-in, one person)", "checkin": "  the same, 10,000 records, 5 providers",
          "summary": "  the IPS of the 10,000 records"}
for name, r in res.items():
    print(f"{labels[name]:<44} {r['requests']:>9.0f} {r['rps']:>8.0f} {r['mb_s']:>7.1f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['errors']:>6.0f} {r['non2xx']:>7.0f}")
ratio = res["one"]["rps"] / res["healthz"]["rps"]
print(f"\nratio U file (a person's check-in) ÷ healthz: {ratio:.3f} ({'meets' if ratio >= 0.5 else 'MISSES'} issue 31's target: ≥ 0.5; binary {cli})")
print(f"ratio with the 10,000 records' check-in ÷ healthz: {res['checkin']['rps'] / res['healthz']['rps']:.3f}; their IPS: {res['summary']['rps'] / res['healthz']['rps']:.3f}")
bad = [n for n, r in res.items() if r["errors"] or r["non2xx"] or not r["requests"]]
if bad:
    sys.exit(f"shl-wrk FAILED: socket errors or non-2xx responses in {', '.join(bad)}")
PY
