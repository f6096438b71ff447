#!/usr/bin/env bash
# Makes (or keeps) .build/fhircheck-venv with pyfhircheck 0.2.0 (PyPI, MIT), a FHIR R4 validator
# whose built-in read-only `base-r4` pack checks a server's REST basics (metadata, read with ETag
# and Last-Modified, vread, search, paging, instance history, not-found, JSON negotiation), and
# prints the path of its python. A venv of its own: it needs pydantic 2 and fhir.resources 7+,
# the server checks' venv pins pydantic 1.
# Usage: Scripts/fhircheck-venv.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/fhircheck-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "
import importlib.metadata as m
assert m.version('pyfhircheck') == '0.2.0'" 2>/dev/null; then
  echo "making $VENV (pyfhircheck==0.2.0 from PyPI)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "pyfhircheck==0.2.0" >&2
fi
echo "$PWD/$VENV/bin/python"
