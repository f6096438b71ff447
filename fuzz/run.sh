#!/usr/bin/env bash
# Builds the libFuzzer targets (ASan + fuzzer, release) into their own scratch path and runs one
# target or all of them.
#   fuzz/run.sh [TARGET|all] [SECONDS] [-- extra libFuzzer flags]
# Seed corpora are made from ../shared by fuzz/seed.sh (copies, never committed); inputs that
# once crashed a target are committed under fuzz/regressions/TARGET and always run first.
# Exit status is non-zero on any crash, leak report or timeout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
target="${1:-all}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# )) || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
targets=(FuzzJSON FuzzFHIR FuzzJWS FuzzSHCVerify FuzzQRText FuzzInflate FuzzCMS FuzzSampleContent FuzzPNG FuzzJPEG FuzzQRDecode FuzzP256 FuzzSMART FuzzBase45 FuzzCBOR FuzzCOSE FuzzSHL FuzzWebAuthn)
[ "$target" = "all" ] || targets=("$target")

"$here/seed.sh" >/dev/null || { echo "seed.sh failed" >&2; exit 2; }
# Release by default (fast executions); FUZZ_CONFIG=debug builds much faster for a short CI run.
config="${FUZZ_CONFIG:-release}"
for t in "${targets[@]}"; do
  swift build --scratch-path "$here/.build-fuzz-$config" -c "$config" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer --product "$t" >/dev/null
done
bin="$(swift build --scratch-path "$here/.build-fuzz-$config" -c "$config" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer --show-bin-path)"
export SWIFT_BACKTRACE=enable=no
mkdir -p "$here/.work"
status=0
for t in "${targets[@]}"; do
  corpus="$here/.work/corpus-$t"
  mkdir -p "$corpus" "$here/regressions/$t"
  cp -n "$here/.seeds/$t"/* "$corpus/" 2>/dev/null || true
  # Known crashers first: each must now pass.
  if compgen -G "$here/regressions/$t/*" >/dev/null; then
    "$bin/$t" -runs=0 "$here/regressions/$t"/* >/dev/null 2>&1 || { echo "$t: a regression input fails again" >&2; status=1; }
  fi
  log="$here/.work/$t.log"
  flags=()
  # The verify path is async: its harness hands each card to a Task and waits on a semaphore, and
  # the task's last releases can land after the callback returns, which LeakSanitizer reports
  # as a leak. The same parsers run under leak detection in the synchronous targets.
  [ "$t" = FuzzSHCVerify ] && flags+=(-detect_leaks=0)
  if "$bin/$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$here/.work/$t-" -print_final_stats=1 "${flags[@]}" "${extra[@]}" >"$log" 2>&1; then
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
    echo "$t: ok, $runs executions, coverage $cov, ${seconds}s"
  else
    echo "$t: FAILED (see $log)" >&2
    tail -30 "$log" >&2
    status=1
  fi
done
exit $status
