#!/usr/bin/env bash
# Verifies SMART Health Card example 00 end to end with Python joserfc and with our verifier,
# in the same run (three alternating rounds, best of each), and prints our speed ÷ its speed
# (target ≥ 2×).
# Makes its own venv (.venv-joserfc, git-ignored) and installs joserfc from PyPI into it.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv-joserfc/bin/python ]; then
  python3 -m venv .venv-joserfc
  .venv-joserfc/bin/pip install --quiet joserfc
fi
swift build -c release --product healthrecords-bench >/dev/null
# Three alternating rounds, best of each side, so a noisy moment on this shared machine does not
# decide the ratio.
ours=0; theirs=0
for round in 1 2 3; do
  o=$(.build/release/healthrecords-bench shc-rate)
  t=$(.venv-joserfc/bin/python joserfc-verify.py ../../shared/vectors/shc-spec)
  ours=$(python3 -c "print(max($ours, $o))"); theirs=$(python3 -c "print(max($theirs, $t))")
done
python3 - "$ours" "$theirs" <<'PY'
import sys
ours, theirs = float(sys.argv[1]), float(sys.argv[2])
print("| verifier | cards/s (one core) |")
print("|---|---|")
print(f"| HealthRecords (Swift) | {ours:,.0f} |")
print(f"| joserfc {__import__('importlib').metadata.version('joserfc') if False else ''}(Python) | {theirs:,.0f} |".replace("  ", " "))
print(f"\nOurs ÷ joserfc: **{ours / theirs:.2f}×** (target ≥ 2×)")
PY
