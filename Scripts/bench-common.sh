# Sourced by soak.sh and timing-check.sh (from the repository root): picks the binary (BIN_ARG,
# else a release build, else the debug build), checks for python3 and the shared Synthea data, and
# makes a scratch folder WORK holding the store; the folder and the server (SERVER_PID, set by the
# caller once it starts one) are removed on exit.
bench_setup() {
  if [ -n "$BIN_ARG" ]; then
    BIN="$BIN_ARG"
  elif [ -x .build/release/healthrecords ]; then
    BIN=.build/release/healthrecords
  else
    BIN=.build/debug/healthrecords
  fi
  [ -x "$BIN" ] || { echo "error: no executable at $BIN (build it, or pass its path)" >&2; exit 2; }
  command -v python3 >/dev/null 2>&1 || { echo "error: python3 is needed" >&2; exit 2; }
  SYNTHEA=../shared/data/fhir/synthea
  [ -d "$SYNTHEA" ] || { echo "error: $SYNTHEA not found (../shared must sit beside the repository)" >&2; exit 2; }
  WORK=$(mktemp -d "/tmp/healthrecords-$1-XXXXXX")
  SERVER_PID=""
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
  export HEALTHRECORDS_STORE="$WORK/store.sqlite"
  unset HEALTHRECORDS_PASSPHRASE HEALTHRECORDS_PERSON_TOKEN HEALTHRECORDS_POSTGRES_URL
}

bench_cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
