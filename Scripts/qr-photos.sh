#!/usr/bin/env bash
# Reads degraded photos of card QR codes (rotation up to 45°, perspective, blur, uneven light,
# noise, scale, paper margin, JPEG quality down to 40) with our reader, zxing-cpp (PyPI) and
# zbarimg, in one run, and fails when our read rate is below zxing-cpp's.
# The corpus is made fresh each run (seeded, so always the same) in .build/qr-photos/.
# Usage: Scripts/qr-photos.sh [path/to/healthrecords] [qr-photos.py options, e.g. --show-losses]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bin="${1:-}"
if [ -n "$bin" ] && [ "${bin#-}" = "$bin" ]; then
  shift
else
  # A release build reads several times faster than a debug one; use it when it is the newer.
  bin=".build/debug/healthrecords"
  if [ -x .build/release/healthrecords ] && { [ ! -x "$bin" ] || [ .build/release/healthrecords -nt "$bin" ]; }; then
    bin=".build/release/healthrecords"
  fi
fi
[ -x "$bin" ] || { echo "no reader at $bin; run swift build first" >&2; exit 2; }

if ! command -v zbarimg >/dev/null 2>&1; then
  echo "zbarimg not found; installing Debian zbar-tools"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq zbar-tools >/dev/null
fi

venv="$root/.build/qr-photos-venv"
if ! "$venv/bin/python" -c "import PIL, numpy, zxingcpp" >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet Pillow numpy zxing-cpp
fi
echo "readers: $bin, zxing-cpp $("$venv/bin/pip" show zxing-cpp 2>/dev/null | sed -n 's/^Version: //p'), zbarimg $(zbarimg --version)"

exec "$venv/bin/python" "$root/Scripts/qr-photos.py" "$bin" "$@"
