#!/usr/bin/env bash
# Makes (or keeps) .build/ips-check-venv with fhir.resources 6.4.0 (PyPI, BSD), the last release whose
# models are FHIR R4 4.0.1 (6.5 moved to R4B, 7 and 8 to R5 with R4B beside it: no R4), and pydantic 1,
# which 6.4.0 needs; prints the path of its python, for `Scripts/ips-check.py --parse`. A venv of its
# own so that it does not depend on the server checks' venv (same pins) being there.
# Usage: "$(Scripts/ips-check-venv.sh)" Scripts/ips-check.py --parse FILE...   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/ips-check-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "
import fhir.resources as r
assert r.__version__ == '6.4.0' and r.__fhir_version__ == '4.0.1'" 2>/dev/null; then
  echo "making $VENV (fhir.resources==6.4.0, pydantic<2 from PyPI)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "fhir.resources==6.4.0" "pydantic>=1.10.17,<2" >&2
fi
echo "$PWD/$VENV/bin/python"
