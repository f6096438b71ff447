#!/usr/bin/env bash
# Two builds side by side in one run: Benchmarks/fhir-wrk.sh (SQLite and PostgreSQL) and
# Scripts/load-test.sh, each run for the baseline binary and then the current one, alternating,
# on the same machine and data; prints every figure for both. For "the same or better than the
# previous main": build the previous commit's release binary in a worktree and pass it.
# Usage: Benchmarks/compare-builds.sh --baseline PATH [--cli PATH] [SECONDS] [--rounds N]
#   --baseline  the previous build's healthrecords executable
#   --cli       the current one (default .build/release/healthrecords)
#   SECONDS     time each fhir-wrk endpoint gets, over its rounds, and each load test (default 15)
#   --rounds    how many times each pair runs (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
BASELINE=""
CLI=.build/release/healthrecords
SECONDS_TO_RUN=15
ROUNDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) BASELINE="$2"; shift 2 ;;
    --cli) CLI="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) SECONDS_TO_RUN="$1"; shift ;;
  esac
done
[ -x "$BASELINE" ] || { echo "error: --baseline must name an executable" >&2; exit 2; }
[ -x "$CLI" ] || { echo "error: no executable at $CLI" >&2; exit 2; }
OUT=$(mktemp -d /tmp/healthrecords-compare-XXXXXX)
trap 'rm -rf "$OUT"' EXIT

for round in $(seq 1 "$ROUNDS"); do
  for engine in sqlite postgres; do
    for which in baseline current; do
      bin=$BASELINE; [ "$which" = current ] && bin=$CLI
      echo "== round $round, fhir-wrk, $engine, $which ($bin)" >&2
      Benchmarks/fhir-wrk.sh "$SECONDS_TO_RUN" --cli "$bin" --engine "$engine" > "$OUT/fhir-$engine-$which-$round.out" 2>&1 \
        || { cat "$OUT/fhir-$engine-$which-$round.out" >&2; exit 1; }
    done
  done
  for which in baseline current; do
    bin=$BASELINE; [ "$which" = current ] && bin=$CLI
    echo "== round $round, load-test, $which ($bin)" >&2
    Scripts/load-test.sh "$SECONDS_TO_RUN" --cli "$bin" > "$OUT/load-$which-$round.out" 2>&1 || { cat "$OUT/load-$which-$round.out" >&2; exit 1; }
  done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import re, sys, glob
out, rounds = sys.argv[1], int(sys.argv[2])
def fhir(path):
    text = open(path).read()
    rows = {}
    for label, key in (("GET /healthz", "healthz"), ("GET /fhir/Observation", "repeated"), ("  the same, a new date", "new search")):
        line = next(l for l in text.splitlines() if l.startswith(label))
        nums = line[46:].split()
        rows[key] = (float(nums[1]), float(nums[3]))  # req/s, p99 ms
    return rows
def load(path):
    rows = {}
    for l in open(path):
        m = re.match(r"(app-[ab])\s+(\d+)\s+(\d+)\s+\d+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", l)
        if m: rows[m.group(1)] = (float(m.group(3)), float(m.group(5)))
    return rows
print(f"{'round':<6}{'benchmark':<34}{'baseline req/s':>15}{'p99 ms':>8}{'current req/s':>15}{'p99 ms':>8}{'ratio÷healthz b/c':>20}")
for r in range(1, rounds + 1):
    for engine in ("sqlite", "postgres"):
        b = fhir(f"{out}/fhir-{engine}-baseline-{r}.out"); c = fhir(f"{out}/fhir-{engine}-current-{r}.out")
        for key in ("healthz", "repeated", "new search"):
            ratio = "" if key == "healthz" else f"{b[key][0] / b['healthz'][0]:.3f} / {c[key][0] / c['healthz'][0]:.3f}"
            print(f"{r:<6}{'fhir-wrk ' + engine + ' ' + key:<34}{b[key][0]:>15.0f}{b[key][1]:>8.2f}{c[key][0]:>15.0f}{c[key][1]:>8.2f}{ratio:>20}")
    b = load(f"{out}/load-baseline-{r}.out"); c = load(f"{out}/load-current-{r}.out")
    for app in ("app-a", "app-b"):
        print(f"{r:<6}{'load-test ' + app:<34}{b[app][0]:>15.0f}{b[app][1]:>8.2f}{c[app][0]:>15.0f}{c[app][1]:>8.2f}{'':>20}")
PY
