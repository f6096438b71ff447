#!/usr/bin/env bash
# Verifies SMART Health Card example 00 end to end with Python joserfc and with our verifier,
# in the same run, and prints our speed ÷ its speed (target ≥ 2×).
# Makes its own venv (.venv-joserfc, git-ignored) and installs joserfc from PyPI into it.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv-joserfc/bin/python ]; then
  python3 -m venv .venv-joserfc
  .venv-joserfc/bin/pip install --quiet joserfc
fi
swift build -c release --product healthrecords-bench >/dev/null
ours=$(.build/release/healthrecords-bench shc-rate)
theirs=$(.venv-joserfc/bin/python joserfc-verify.py ../../shared/vectors/shc-spec)
python3 - "$ours" "$theirs" <<'PY'
import sys
ours, theirs = float(sys.argv[1]), float(sys.argv[2])
print("| verifier | cards/s (one core) |")
print("|---|---|")
print(f"| HealthRecords (Swift) | {ours:,.0f} |")
print(f"| joserfc {__import__('importlib').metadata.version('joserfc') if False else ''}(Python) | {theirs:,.0f} |".replace("  ", " "))
print(f"\nOurs ÷ joserfc: **{ours / theirs:.2f}×** (target ≥ 2×)")
PY
