#!/usr/bin/env bash
# Runs Scripts/browser-test.py: installs Debian's chromium and chromium-driver when missing, and
# selenium from PyPI into a venv under .build (kept between runs).
# Usage: Scripts/browser-test.sh [--cli PATH] [--out DIR] [--update-docs]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "installing chromium and chromium-driver (Debian)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
VENV=.build/browser-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import selenium" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "selenium>=4.15,<5"
fi
exec "$VENV/bin/python" Scripts/browser-test.py "$@"
