#!/usr/bin/env bash
# Timing check: can an app tell from response times that a type is denied or undecided rather
# than allowed and empty? (The server promises "a denied or undecided type answers exactly like
# an empty store"; this checks the clock as well as the bytes.)
#
# Makes a temporary store (../shared/data/fhir/synthea), registers one app for four clinical
# types and decides them with the CLI:
#   A  allowed, has data           (contrast only)
#   B  allowed, no data in the store (a type absent from the imported data; when every type is
#      present, the records of the smallest type are deleted first)
#   C  denied, has data
#   D  undecided, has data         (the app asks for it; the request stays pending)
# Then, on one keep-alive connection (http.client), N rounds (N >= 500, default 600; 50 more first
# as warm-up, not counted), each in random order, of
#   GET /records?type=A|B|C|D&limit=10
#   GET /records/{source}/{resourceType}/{id} for a record of C, a record of D, an id that does
#     not exist (same source and resource type as the C record, an id of the same length), and a
#     record of A (contrast)
# timing each request with time.perf_counter_ns. Prints median, p10 and p90 of each.
# A second app is allowed A with a 30-day history window (every Synthea record is older): its
#   GET /records?type=A&limit=10 and GET /records/… of the A record and of a nonexistent id
# are timed in the same rounds.
# PASS when the medians of denied (C), undecided (D) and outside-the-window (A, second app) are
# within 5 % of the allowed-empty (B) median, the by-id medians of the denied, undecided and
# outside-the-window records within 5 % of the nonexistent id's (the windowed app's against its
# own), and the bodies are byte-identical (B = C = D = windowed A; the 404s). Exit 0 on PASS, 1 on FAIL, 2 on
# usage or setup errors. Needs python3 (standard library only).
# Usage: Scripts/timing-check.sh [BINARY] [N]
set -euo pipefail

BIN_ARG="${1:-}"
ROUNDS="${2:-600}"
if [ -n "$BIN_ARG" ] && [ -e "$BIN_ARG" ]; then BIN_ARG="$(cd "$(dirname "$BIN_ARG")" && pwd)/$(basename "$BIN_ARG")"; fi
cd "$(dirname "$0")/.."
case "$ROUNDS" in ''|*[!0-9]*) echo "usage: Scripts/timing-check.sh [BINARY] [N]  (N a whole number >= 500)" >&2; exit 2 ;; esac
if [ "$ROUNDS" -lt 500 ]; then echo "error: N must be at least 500" >&2; exit 2; fi
. Scripts/bench-common.sh
bench_setup timing
export TIMING_BINARY="$BIN"

echo "importing $SYNTHEA ..."
"$BIN" import "$SYNTHEA" >/dev/null

# Pick the types from what the store holds (the CLI's `records --type T --limit 1`).
PLAN=$(python3 - <<'PY'
import json, os, shlex, subprocess, sys
BIN = os.environ["TIMING_BINARY"]
TYPES = ["immunization", "condition", "allergy", "lab-result", "vital-sign", "procedure", "medication", "coverage", "clinical-note"]


def records(t, limit=None):
    args = [BIN, "records", "--type", t, "--json"] + (["--limit", str(limit)] if limit else [])
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"records --type {t} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


present = [t for t in TYPES if records(t, 1)]
empty = [t for t in TYPES if t not in present]
emptied = ""
if not empty:
    # Every type has data: delete the records of the smallest type so one allowed type is empty.
    sizes = {t: len(records(t)) for t in present}
    victim = min(sizes, key=sizes.get)
    for r in records(victim):
        subprocess.run([BIN, "delete", "--source", r["source"], "--resource-type", r["resourceType"], "--id", r["id"]],
                       check=True, capture_output=True)
    if records(victim, 1):
        sys.exit(f"could not empty {victim}")
    present.remove(victim)
    empty = [victim]
    emptied = victim
if len(present) < 3:
    sys.exit(f"need three types with data, the store has {present}")
A, C, D = present[0], present[1], present[2]
B = empty[0]
rc, rd, ra = records(C, 1)[0], records(D, 1)[0], records(A, 1)[0]
out = dict(A=A, B=B, C=C, D=D, EMPTIED=emptied,
           C_SOURCE=rc["source"], C_RTYPE=rc["resourceType"], C_ID=rc["id"],
           D_SOURCE=rd["source"], D_RTYPE=rd["resourceType"], D_ID=rd["id"],
           A_SOURCE=ra["source"], A_RTYPE=ra["resourceType"], A_ID=ra["id"])
for k, v in out.items():
    print(f"TIMING_{k}={shlex.quote(v)}")
PY
) || { echo "error: could not pick the types (above)" >&2; exit 2; }
eval "$PLAN"
export TIMING_A TIMING_B TIMING_C TIMING_D TIMING_C_SOURCE TIMING_C_RTYPE TIMING_C_ID TIMING_D_SOURCE TIMING_D_RTYPE TIMING_D_ID \
  TIMING_A_SOURCE TIMING_A_RTYPE TIMING_A_ID TIMING_EMPTIED
if [ -n "$TIMING_EMPTIED" ]; then echo "every type had data: deleted the records of $TIMING_EMPTIED so it is empty"; fi

APP=$("$BIN" apps register --name "Timing" --purpose "Timing check" --privacy-url https://timing.example/privacy \
  --types "$TIMING_A,$TIMING_B,$TIMING_C,$TIMING_D" --json)
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
export TIMING_APP_ID TIMING_APP_SECRET
TIMING_APP_ID=$(field "$APP" appId); TIMING_APP_SECRET=$(field "$APP" secret)
# A and B allowed, C denied; D is never decided.
"$BIN" apps grant "$TIMING_APP_ID" --allow "$TIMING_A,$TIMING_B" --deny "$TIMING_C" --new-data share >/dev/null
# The second app reads A through a 30-day window.
APP2=$("$BIN" apps register --name "Timing window" --purpose "Timing check" --privacy-url https://timing.example/privacy \
  --types "$TIMING_A" --json)
export TIMING_APP2_ID TIMING_APP2_SECRET
TIMING_APP2_ID=$(field "$APP2" appId); TIMING_APP2_SECRET=$(field "$APP2" secret)
"$BIN" apps grant "$TIMING_APP2_ID" --allow "$TIMING_A" --history 30d --new-data share >/dev/null

# A high app rate limit: the rounds are back to back and must not meet 429.
"$BIN" serve --port 0 --rate-limit 100000 --log-level error > "$WORK/serve.out" 2> "$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  grep -q "^Listening on" "$WORK/serve.out" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
BASE=$(sed -n 's/^Listening on //p' "$WORK/serve.out")
if [ -z "$BASE" ]; then echo "error: the server did not start:" >&2; cat "$WORK/serve.err" >&2; exit 2; fi
export TIMING_BASE="$BASE" TIMING_ROUNDS="$ROUNDS"

set +e
python3 - <<'PY'
import gc, http.client, json, os, random, socket, statistics, string, sys, time, urllib.parse

E = os.environ
BASE = E["TIMING_BASE"]
u = urllib.parse.urlsplit(BASE)
N = int(E["TIMING_ROUNDS"])
WARMUP = 50
A, B, C, D = E["TIMING_A"], E["TIMING_B"], E["TIMING_C"], E["TIMING_D"]
q = lambda s: urllib.parse.quote(s, safe="")

conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
conn.connect()
conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def call(method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    return r.status, r.read()


def token(app_id, secret):
    status, data = call("POST", "/token", urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": app_id, "client_secret": secret}),
        {"Content-Type": "application/x-www-form-urlencoded"})
    if status != 200:
        sys.exit(f"error: the app got no token ({status} {data[:200]!r})")
    return {"Authorization": "Bearer " + json.loads(data)["access_token"]}


AUTH = token(E["TIMING_APP_ID"], E["TIMING_APP_SECRET"])
AUTH2 = token(E["TIMING_APP2_ID"], E["TIMING_APP2_SECRET"])

# D: requested, never decided.
status, data = call("POST", "/authorization-requests", json.dumps({"types": [D]}), dict(AUTH, **{"Content-Type": "application/json"}))
req = json.loads(data) if data else {}
if status != 201 or req.get("status") != "pending":
    sys.exit(f"error: the request for {D} should be pending: {status} {data[:200]!r}")

rng = random.SystemRandom()
real_id = E["TIMING_C_ID"]
missing_id = "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(len(real_id)))
if missing_id == real_id:
    missing_id = "x" + missing_id[1:]
by_id = lambda s, r, i: f"/records/{q(s)}/{q(r)}/{q(i)}"

# name -> (path, expected status, group, role)
cases = {
    f"records allowed, data ({A})":   (f"/records?type={A}&limit=10", 200),
    f"records allowed, empty ({B})":  (f"/records?type={B}&limit=10", 200),
    f"records denied ({C})":          (f"/records?type={C}&limit=10", 200),
    f"records undecided ({D})":       (f"/records?type={D}&limit=10", 200),
    f"by id: allowed record ({A})":   (by_id(E["TIMING_A_SOURCE"], E["TIMING_A_RTYPE"], E["TIMING_A_ID"]), 200),
    "by id: nonexistent id":          (by_id(E["TIMING_C_SOURCE"], E["TIMING_C_RTYPE"], missing_id), 404),
    f"by id: denied record ({C})":    (by_id(E["TIMING_C_SOURCE"], E["TIMING_C_RTYPE"], E["TIMING_C_ID"]), 404),
    f"by id: undecided record ({D})": (by_id(E["TIMING_D_SOURCE"], E["TIMING_D_RTYPE"], E["TIMING_D_ID"]), 404),
    f"records outside window ({A})":  (f"/records?type={A}&limit=10", 200, AUTH2),
    "by id: nonexistent id, window":  (by_id(E["TIMING_A_SOURCE"], E["TIMING_A_RTYPE"], missing_id), 404, AUTH2),
    f"by id: outside window ({A})":   (by_id(E["TIMING_A_SOURCE"], E["TIMING_A_RTYPE"], E["TIMING_A_ID"]), 404, AUTH2),
}
names = list(cases)
REF_LIST, REF_ID, REF_WINDOW_ID = names[1], names[5], names[9]
# (reference, the requests compared with it)
GROUPS = ((REF_LIST, names[1:4] + [names[8]]), (REF_ID, names[5:8]), (REF_WINDOW_ID, names[9:11]))
times = {n: [] for n in names}
bodies = {n: set() for n in names}
statuses = {n: {} for n in names}

print(f"timing check against {BASE} ({E['TIMING_BINARY']}): {N} rounds of {len(names)} requests, random order in each round, "
      f"one keep-alive connection; {WARMUP} warm-up rounds first", flush=True)
print(f"types: A={A} allowed with data; B={B} allowed, empty; C={C} denied; D={D} undecided (request pending); "
      f"a second app reads A through a 30-day window", flush=True)
gc.disable()
started = time.monotonic()
for rnd in range(WARMUP + N):
    order = names[:]
    rng.shuffle(order)
    for n in order:
        path = cases[n][0]
        auth = cases[n][2] if len(cases[n]) > 2 else AUTH
        t0 = time.perf_counter_ns()
        conn.request("GET", path, headers=auth)
        r = conn.getresponse()
        body = r.read()
        t1 = time.perf_counter_ns()
        if rnd >= WARMUP:
            times[n].append(t1 - t0)
            statuses[n][r.status] = statuses[n].get(r.status, 0) + 1
            if len(bodies[n]) < 4:
                bodies[n].add(body)
    if rnd % 100 == 99:
        gc.collect()
gc.enable()
elapsed = time.monotonic() - started


def pct(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))]


stats = {}
for n in names:
    v = sorted(times[n])
    stats[n] = (statistics.median(v) / 1e6, pct(v, 10) / 1e6, pct(v, 90) / 1e6)

print(f"\n{N * len(names)} measured requests in {elapsed:.1f} s\n")
w = max(len(n) for n in names)
print(f"{'request':<{w}}  {'median ms':>9}  {'p10 ms':>7}  {'p90 ms':>7}  {'vs ref':>7}  statuses")
ref_of = {n: ref for ref, group in GROUPS for n in group}
ref_of[names[0]], ref_of[names[4]] = REF_LIST, REF_ID
for n in names:
    med, p10, p90 = stats[n]
    ratio = med / stats[ref_of[n]][0] - 1
    ref_mark = "(ref)" if n in (REF_LIST, REF_ID, REF_WINDOW_ID) else f"{ratio * 100:+.1f}%"
    st = " ".join(f"{k}:{c}" for k, c in sorted(statuses[n].items()))
    print(f"{n:<{w}}  {med:>9.3f}  {p10:>7.3f}  {p90:>7.3f}  {ref_mark:>7}  {st}")

failures = []
for n in names:
    expected = cases[n][1]
    if set(statuses[n]) != {expected}:
        failures.append(f"{n}: statuses {statuses[n]}, expected only {expected}")
print()
for ref, group in GROUPS:
    for n in group:
        if n == ref:
            continue
        ratio = stats[n][0] / stats[ref][0] - 1
        verdict = "within 5%" if abs(ratio) <= 0.05 else "DIFFERS by more than 5%"
        print(f"{n} vs {ref}: median {ratio * 100:+.1f}% ({verdict})")
        if abs(ratio) > 0.05:
            failures.append(f"{n}: median {stats[n][0]:.3f} ms is {ratio * 100:+.1f}% from {ref}'s {stats[ref][0]:.3f} ms")
for group in (names[1:4] + [names[8]], names[5:8] + names[9:11]):
    seen = set().union(*(bodies[n] for n in group))
    same = len(seen) == 1
    print(f"bodies of {', '.join(group)}: {'byte-identical' if same else 'DIFFER'}")
    if not same:
        failures.append(f"bodies differ among {', '.join(group)}: {sorted(seen)[:4]!r}")
print(f"(contrast, not part of the rule) {names[0]}: median {stats[names[0]][0]:.3f} ms; {names[4]}: median {stats[names[4]][0]:.3f} ms")

print()
if failures:
    for f in failures:
        print("FAIL: " + f)
    print("timing check FAIL")
    sys.exit(1)
print("timing check PASS: denied, undecided and outside-the-window take the time an allowed empty type (or a missing id) takes, and answer the same bytes")
PY
status=$?
set -e
exit $status
