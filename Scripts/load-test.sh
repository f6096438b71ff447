#!/usr/bin/env bash
# Load test on loopback: two apps query records through `healthrecords serve` at the same time
# with wrk (Debian), each on its own connections with its own token, for SECONDS (default 30).
# Fails when any request errs (socket errors or a status other than 2xx); prints requests/s and
# latency percentiles per app. Every request is a real read through the app's grants, audited.
# Usage: Scripts/load-test.sh [SECONDS] [--cli PATH] [--connections N]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=30
CLI=.build/debug/healthrecords
CONNECTIONS=8
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) CLI="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    *) SECONDS_TO_RUN="$1"; shift ;;
  esac
done
if ! command -v wrk >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  echo "installing wrk (Debian)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk curl >/dev/null
fi

WORK=$(mktemp -d /tmp/healthrecords-load-XXXXXX)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export HEALTHRECORDS_STORE="$WORK/store.sqlite"
unset HEALTHRECORDS_PASSPHRASE

SYNTHEA=../shared/data/fhir/synthea
"$CLI" import "$SYNTHEA" >/dev/null
TYPES=allergy,condition,immunization,lab-result,medication,procedure,vital-sign
register() {
  "$CLI" apps register --name "$1" --purpose "Load test" --privacy-url https://load.example/privacy --types "$TYPES" --json
}
APP1=$(register "Load A"); APP2=$(register "Load B")
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
ID1=$(field "$APP1" appId); SECRET1=$(field "$APP1" secret)
ID2=$(field "$APP2" appId); SECRET2=$(field "$APP2" secret)
"$CLI" apps grant "$ID1" --allow "$TYPES" --new-data share >/dev/null
"$CLI" apps grant "$ID2" --allow lab-result,vital-sign,immunization --deny condition,medication --new-data share >/dev/null

"$CLI" serve --port 0 --rate-limit 100000 --log-level error > "$WORK/serve.out" &
SERVER_PID=$!
for _ in $(seq 1 300); do grep -q "^Listening on" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
BASE=$(sed -n 's/^Listening on //p' "$WORK/serve.out")
[ -n "$BASE" ] || { echo "error: the server did not start" >&2; exit 1; }

token() {
  curl -sf -X POST "$BASE/token" -d grant_type=client_credentials -d "client_id=$1" --data-urlencode "client_secret=$2" \
    | python3 -c "import json,sys; print(json.load(sys.stdin)['access_token'])"
}
TOKEN1=$(token "$ID1" "$SECRET1"); TOKEN2=$(token "$ID2" "$SECRET2")
# An app polls for changes from the anchor it has; each app's own anchor comes from a first call.
anchor() {
  curl -sf -H "Authorization: Bearer $1" "$BASE/changes?type=allergy" | python3 -c "import json,sys; print(json.load(sys.stdin)['anchor'])"
}
ANCHOR1=$(anchor "$TOKEN1"); ANCHOR2=$(anchor "$TOKEN2")

cat > "$WORK/queries.lua" <<'LUA'
local paths = {
  "/records?type=lab-result&limit=20&sort=-clinical",
  "/records?type=vital-sign&limit=20",
  "/records?type=immunization",
  "/records?resourceType=Observation&from=2015&to=2020&limit=50",
  "/changes?type=lab-result&limit=50&anchor=" .. os.getenv("ANCHOR"),
  "/records?type=condition&limit=20",
}
local token = os.getenv("TOKEN")
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1], { ["Authorization"] = "Bearer " .. token })
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d seconds=%.2f errors=%d status_errors=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
    summary.requests, summary.duration / 1e6, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
LUA

echo "load test: 2 apps x $CONNECTIONS connections each, ${SECONDS_TO_RUN}s, against $BASE (Synthea data)"
TOKEN="$TOKEN1" ANCHOR="$ANCHOR1" wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_TO_RUN}s" --timeout 10s -s "$WORK/queries.lua" "$BASE" > "$WORK/a.out" 2>&1 &
A=$!
TOKEN="$TOKEN2" ANCHOR="$ANCHOR2" wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_TO_RUN}s" --timeout 10s -s "$WORK/queries.lua" "$BASE" > "$WORK/b.out" 2>&1 &
B=$!
wait $A; wait $B

status=0
printf "%-8s %10s %8s %10s %8s %8s %8s %8s %8s\n" app requests req/s errors p50_ms p90_ms p99_ms max_ms non2xx
for app in a b; do
  line=$(grep '^RESULT' "$WORK/$app.out" || true)
  if [ -z "$line" ]; then echo "error: wrk gave no result for app $app:"; cat "$WORK/$app.out"; status=1; continue; fi
  eval "$(echo "$line" | sed 's/^RESULT //')"
  rps=$(python3 -c "print(f'{$requests/$seconds:.0f}')")
  printf "%-8s %10s %8s %10s %8s %8s %8s %8s %8s\n" "app-$app" "$requests" "$rps" "$errors" "$p50_ms" "$p90_ms" "$p99_ms" "$max_ms" "$status_errors"
  if [ "$errors" != "0" ] || [ "$status_errors" != "0" ] || [ "$requests" = "0" ]; then status=1; fi
done
if [ $status -ne 0 ]; then echo "load test FAILED: errors above" >&2; exit 1; fi
echo "load test passed: no errors"
