#!/usr/bin/env bash
# Cross-checks our QR encoder and reader against zbarimg (an independent decoder):
# every PNG `qrmatrix --full` writes (versions 1–40 × L/M/Q/H × module sizes 2–8) must read back as its expected text in zbarimg AND in our
# own reader; the spec's real PNGs must read as their .qr.txt files in both.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v zbarimg >/dev/null 2>&1; then
  echo "zbarimg not found; installing Debian zbar-tools"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq zbar-tools >/dev/null
fi
echo "zbarimg $(zbarimg --version)"

swift build -c release --product qrmatrix >/dev/null
BIN="$(swift build -c release --show-bin-path)/qrmatrix"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
"$BIN" "$OUT" --full

# zbarimg --raw ends each symbol with a newline; our reader prints one line per symbol
# too. Files are compared byte for byte against the expected text plus that newline.
zbar() { zbarimg --raw -q -Sdisable -Sqrcode.enable "$1" 2>/dev/null || true; }

passed=0
failed=0
check() { # name expected-file png
  local name="$1" expected="$2" png="$3"
  { cat "$expected"; printf '\n'; } > "$OUT/expected.out"
  zbar "$png" > "$OUT/zbar.out"
  "$BIN" decode "$png" > "$OUT/ours.out" 2>"$OUT/ours.err" || true
  local ok=1
  if ! cmp -s "$OUT/zbar.out" "$OUT/expected.out"; then
    echo "FAIL zbar  $name: $(head -c 80 "$OUT/zbar.out")"
    ok=0
  fi
  if ! cmp -s "$OUT/ours.out" "$OUT/expected.out"; then
    echo "FAIL ours  $name: $(head -c 80 "$OUT/ours.out")$(head -c 80 "$OUT/ours.err")"
    ok=0
  fi
  if [ "$ok" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

for png in "$OUT"/v*.png; do
  name="$(basename "$png" .png)"
  check "$name" "${png%.png}.txt" "$png"
done

SPEC="../shared/vectors/shc/spec-examples-2021"
if [ -d "$SPEC" ]; then
  check "example-00_2021-05_qr.png" "$SPEC/example-00_2021-05.qr.txt" "$SPEC/example-00_2021-05_qr.png"
  check "legacy-2021-03_reference_pdf_vaccine.png" "$SPEC/legacy-2021-03_reference_pdf_vaccine.qr.txt" "$SPEC/legacy-2021-03_reference_pdf_vaccine.png"
fi

echo "zbar cross-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
