#!/usr/bin/env bash
# Every Synthea person's International Patient Summary (`healthrecords summary`, one store per
# person) passes Scripts/ips-check.py with every resource parsed by fhir.resources 6.4.0 (R4, in
# the venv Scripts/ips-check-venv.sh makes); so does one summary of all the IPS examples and a
# Synthea person imported together (foreign documents' references, two Patients merged).
# Usage: Scripts/summary-check.sh [--cli PATH]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=.build/debug/healthrecords
if [ "${1:-}" = "--cli" ]; then CLI="$2"; fi
[ -x "$CLI" ] || { echo "error: no executable at $CLI (swift build first)" >&2; exit 2; }
SHARED=../shared
PEOPLE="$SHARED/data/fhir/synthea"
[ -d "$PEOPLE" ] || PEOPLE=Tests/Fixtures/data/fhir/synthea
PY="$(Scripts/ips-check-venv.sh)"
WORK=$(mktemp -d /tmp/healthrecords-summary-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
unset HEALTHRECORDS_POSTGRES_URL HEALTHRECORDS_PASSPHRASE
n=0
for person in "$PEOPLE"/*.json; do
  n=$((n + 1))
  HEALTHRECORDS_STORE="$WORK/person-$n.sqlite" "$CLI" import "$person" >/dev/null
  HEALTHRECORDS_STORE="$WORK/person-$n.sqlite" "$CLI" summary --out "$WORK/summary-$n.json" >/dev/null
done
for f in Tests/Fixtures/vectors/ips/*.json "$(ls "$PEOPLE"/*.json | head -1)"; do
  HEALTHRECORDS_STORE="$WORK/mixed.sqlite" "$CLI" import "$f" >/dev/null
done
HEALTHRECORDS_STORE="$WORK/mixed.sqlite" "$CLI" summary --out "$WORK/summary-mixed.json" >/dev/null
"$PY" Scripts/ips-check.py --parse "$WORK"/summary-*.json | grep -v '^  warning'
