#!/usr/bin/env bash
# The long fuzzing campaign: every target until it has run RUNS inputs (10 million by default),
# release build, one target at a time (run a second campaign beside it on other targets to use
# another core).
# Appends one line per target to fuzz/campaign.log: target, executions, coverage, seconds, result.
#   fuzz/campaign.sh [RUNS] [TARGET...]
# CAMPAIGN_SECONDS=N stops each target after N seconds if it has not reached RUNS by then.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
runs="${1:-10000000}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzJSON FuzzPNG FuzzJPEG FuzzSampleContent FuzzFHIR FuzzJWS FuzzCMS FuzzInflate FuzzQRText FuzzQRDecode FuzzSHCVerify FuzzP256 FuzzBase45 FuzzCBOR FuzzCOSE FuzzWebAuthn)
# Seeds are made once; two campaigns may run side by side on different targets.
[ -d "$here/.seeds/FuzzCOSE" ] || "$here/seed.sh" >/dev/null
bin="$(swift build --scratch-path "$here/.build-fuzz-release" -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer --show-bin-path)"
export SWIFT_BACKTRACE=enable=no
for t in "${targets[@]}"; do
  swift build --scratch-path "$here/.build-fuzz-release" -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer --product "$t" >/dev/null
  corpus="$here/.work/corpus-$t"
  mkdir -p "$corpus"
  cp -n "$here/.seeds/$t"/* "$corpus/" 2>/dev/null || true
  flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$here/.work/$t-")
  [ -z "${CAMPAIGN_SECONDS:-}" ] || flags+=(-max_total_time="$CAMPAIGN_SECONDS")
  case "$t" in
    FuzzSHCVerify) flags+=(-detect_leaks=0 -max_len=8192) ;;
    FuzzQRDecode) flags+=(-max_len=1024) ;;   # images up to 1 KB (32×32 px holds a version-1 code): every path, at a cost that allows 10 M runs
    FuzzCBOR) flags+=(-max_len=2048) ;;       # twice the largest DCC; longer inputs only grow arrays (≈10 ms a run under ASan at 5 KB). Large items and the item cap are reached through FuzzCOSE's 64 KiB inflate
    *) flags+=(-max_len=65536) ;;
  esac
  log="$here/.work/campaign-$t.log"
  start=$(date +%s)
  if "$bin/$t" "$corpus" -runs="$runs" "${flags[@]}" >"$log" 2>&1; then result=ok; else result=FAILED; fi
  secs=$(( $(date +%s) - start ))
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  echo "$(date -u +%FT%TZ) $t executions=$execs coverage=$cov seconds=$secs result=$result" | tee -a "$here/campaign.log"
done
