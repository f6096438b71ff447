#!/usr/bin/env bash
# Import and query throughput of this checkout against another revision, measured side by side
# in one run: both release benchmarks are built, then run in alternating rounds on the same
# machine, and the medians are compared as ratios (this checkout ÷ the other).
#
# Usage (from the repository root): Benchmarks/compare-store.sh BASE_REV [ROUNDS] [RECORDS]
#   BASE_REV  the revision to compare with (e.g. the previous main)
#   ROUNDS    alternating rounds of each benchmark (default 3)
#   RECORDS   records in the query benchmark's store (default 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_REV="${1:?give the revision to compare with}"
ROUNDS="${2:-3}"
RECORDS="${3:-200000}"
BASE_DIR="${BASE_DIR:-/tmp/healthrecords-bench-base-$(git rev-parse --short "$BASE_REV")}"
if [ ! -d "$BASE_DIR" ]; then git worktree add --detach "$BASE_DIR" "$BASE_REV" >/dev/null; fi
[ -d ../shared ] && [ ! -e "$(dirname "$BASE_DIR")/shared" ] && ln -s "$(cd ../shared && pwd)" "$(dirname "$BASE_DIR")/shared"

build() { (cd "$1/Benchmarks" && swift build -c release --product healthrecords-bench --scratch-path "$2" >&2); echo "$2/release/healthrecords-bench"; }
BASE_BIN=$(build "$BASE_DIR" "${BASE_BUILD:-/tmp/healthrecords-bench-build-base}")
HEAD_BIN=$(build "$PWD" /tmp/healthrecords-bench-build-head)

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r of $ROUNDS" >&2
  "$BASE_BIN" import >>"$OUT/base-import"; "$HEAD_BIN" import >>"$OUT/head-import"
  "$HEAD_BIN" query --records "$RECORDS" >>"$OUT/head-query"; "$BASE_BIN" query --records "$RECORDS" >>"$OUT/base-query"
done

python3 - "$OUT" "$BASE_REV" <<'PY'
import sys, statistics, collections
out, base = sys.argv[1], sys.argv[2]
def rows(name, col):
    found = collections.defaultdict(list)
    for line in open(f"{out}/{name}"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > col and cells[0] and not cells[0].startswith(("data set", "query", "---")):
            try: found[cells[0]].append(float(cells[col]))
            except ValueError: pass
    return found
print(f"| benchmark | {base} | this checkout | this ÷ {base} |")
print("|---|---|---|---|")
for kind, col, unit, better in [("import", 3, "resources/s", "higher"), ("query", 2, "median ms", "lower")]:
    b, h = rows(f"base-{kind}", col), rows(f"head-{kind}", col)
    for key in b:
        if key in h:
            mb, mh = statistics.median(b[key]), statistics.median(h[key])
            print(f"| {kind}: {key} ({unit}, {better} is better) | {mb:g} | {mh:g} | {mh / mb:.3f} |")
PY
