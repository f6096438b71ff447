#!/usr/bin/env bash
# SMART Health Links against jwcrypto (PyPI, in .build/shl-venv), both ways. Files it encrypts, behind a
# passcode link and a U link on loopback, are followed and imported by `healthrecords import`
# (Scripts/shl_interop.py says what is checked); and our server, its links made by `share create`,
# walked by jwcrypto (Scripts/shl_sender_interop.py). Exit status 0 when every check holds.
# Usage: Scripts/shl-interop.sh [--cli PATH]   (default: the debug build, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=""
if [ "${1:-}" = "--cli" ]; then CLI="$2"; fi
if [ -z "$CLI" ]; then
  swift build --product healthrecords >&2
  CLI="$(swift build --show-bin-path)/healthrecords"
fi
VENV=.build/shl-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "
import importlib.metadata as m
assert m.version('jwcrypto') == '1.6.1'" 2>/dev/null; then
  echo "making $VENV (jwcrypto==1.6.1 from PyPI)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "jwcrypto==1.6.1" >&2
fi
FIXTURES=Tests/Fixtures
"$VENV/bin/python" Scripts/shl_interop.py --cli "$CLI" --fixtures "$FIXTURES"
# And the other way: our server, walked by jwcrypto and urllib (Scripts/shl_sender_interop.py).
"$VENV/bin/python" Scripts/shl_sender_interop.py --cli "$CLI" --fixtures "$FIXTURES"
