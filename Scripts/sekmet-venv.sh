#!/usr/bin/env bash
# Makes (or keeps) .build/sekmet-venv with sekmet-fhir 0.1.1, the independent FHIR R4 server the
# provider test and benchmark sync from, and prints the path of its `sekmet` executable. A venv of
# its own: sekmet needs pydantic 2 and fhir.resources 8, the server checks' venv pins pydantic 1
# for fhir.resources 6.4.0.
# Usage: Scripts/sekmet-venv.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/sekmet-venv
if [ ! -x "$VENV/bin/sekmet" ] || ! "$VENV/bin/python" -c "
import importlib.metadata as m
assert m.version('sekmet-fhir') == '0.1.1'" 2>/dev/null; then
  echo "making $VENV (sekmet-fhir==0.1.1 from PyPI)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "sekmet-fhir==0.1.1" >&2
fi
echo "$PWD/$VENV/bin/sekmet"
