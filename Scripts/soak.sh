#!/usr/bin/env bash
# Soak test: `healthrecords serve` under hostile clients for SECONDS (default 120, or $SOAK_SECONDS).
#
# Makes a temporary store (three Synthea patients from ../shared/data/fhir/synthea), registers two
# apps with the CLI, starts the server on a free loopback port with its default limits, and runs,
# all at once, from the loopback addresses 127.0.0.2 … 127.0.0.9 (Linux routes all of 127/8 to lo):
#   (a) POST /token with random client ids of up to the largest body the server takes (64 KiB)
#       and wrong secrets, and every fourth time the real id of the "victim" app with a wrong secret;
#   (b) POST /authorization-requests as the "busy" app with a valid token: for types already
#       decided (they complete at once), and every fifth for an undecided type (they stay pending);
#   (c) POST /login with wrong person tokens;
#   (d) bodies of exactly the largest size, and one byte over, to /token, /login,
#       /authorization-requests and /webhooks;
#   (e) image uploads, two at a time, as the signed-in person: decompression bombs the upload
#       limits refuse (8000×8000 grey and RGBA PNGs, a 16384×4096 PNG, a 2900×2900 RGBA PNG of
#       33 MB decompressed, a JPEG claiming 30000×30000) and ones they accept at their largest
#       (3740×3740 grey, 3200×3200 RGB and 2800×2800 RGBA PNGs, 3740×3740 baseline and
#       progressive JPEGs, all of one grey), each a few KiB to a few hundred, made here with
#       python's zlib and a few lines of JPEG writing.
# Every second it reads the server's resident memory (VmRSS in /proc/PID/status). The first 25 %
# of the run is warm-up; the memory check passes when every later sample is within ±10 % of the
# median of those later samples. Every 10 s after warm-up, and once more at the end while the
# hostile clients still run, the person signs in with the right token from 127.0.0.1 and the
# victim app gets a token with its right secret: every one of those must succeed (nobody may be
# locked out by clients at other addresses).
# PASS needs both; exit 0 on PASS, 1 on FAIL, 2 on usage or setup errors.
# Bounds: the run stops at SECONDS, after $SOAK_MAX_REQUESTS hostile requests (default 2,000,000),
# or when the server's RSS passes $SOAK_MAX_RSS_MB (default 2048; that is a FAIL).
# Needs python3 (standard library only) and Linux. Run from anywhere; ../shared must sit beside
# the repository.
# Usage: Scripts/soak.sh [BINARY] [SECONDS]
set -euo pipefail

BIN_ARG="${1:-}"
RUN_SECONDS="${2:-${SOAK_SECONDS:-120}}"
if [ -n "$BIN_ARG" ] && [ -e "$BIN_ARG" ]; then BIN_ARG="$(cd "$(dirname "$BIN_ARG")" && pwd)/$(basename "$BIN_ARG")"; fi
cd "$(dirname "$0")/.."
case "$RUN_SECONDS" in ''|*[!0-9]*) echo "usage: Scripts/soak.sh [BINARY] [SECONDS]  (SECONDS a whole number)" >&2; exit 2 ;; esac
if [ "$RUN_SECONDS" -lt 8 ]; then echo "error: SECONDS must be at least 8" >&2; exit 2; fi
. Scripts/bench-common.sh
bench_setup soak

# Three patients: enough data for real reads, quick to import with a debug build.
mapfile -t FILES < <(ls "$SYNTHEA"/*.json | sort | head -3)
"$BIN" import "${FILES[@]}" >/dev/null
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
register() {
  "$BIN" apps register --name "$1" --purpose "Soak test" --privacy-url https://soak.example/privacy \
    --types condition,lab-result,immunization,allergy,medication --json
}
VICTIM=$(register "Victim"); BUSY=$(register "Busy")
export SOAK_VICTIM_ID SOAK_VICTIM_SECRET SOAK_BUSY_ID SOAK_BUSY_SECRET
SOAK_VICTIM_ID=$(field "$VICTIM" appId); SOAK_VICTIM_SECRET=$(field "$VICTIM" secret)
SOAK_BUSY_ID=$(field "$BUSY" appId); SOAK_BUSY_SECRET=$(field "$BUSY" secret)
# condition, lab-result, immunization allowed and allergy denied: decided, so requests for them
# complete at once; medication is left undecided, so requests for it stay pending.
for app in "$SOAK_VICTIM_ID" "$SOAK_BUSY_ID"; do
  "$BIN" apps grant "$app" --allow condition,lab-result,immunization --deny allergy --new-data share >/dev/null
done

export SOAK_PERSON_TOKEN
SOAK_PERSON_TOKEN=$(python3 -c "import secrets; print(secrets.token_urlsafe(32))")
( umask 077; printf '%s\n' "$SOAK_PERSON_TOKEN" > "$WORK/person.token" )

# (e)'s images, made once (python's standard library only).
mkdir -p "$WORK/images"
python3 - "$WORK/images" <<'PY'
import os, struct, sys, zlib
out = sys.argv[1]
def png(name, w, h, color_type):
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color_type]
    comp = zlib.compressobj(9)
    row = b"\x00" + b"\xc8" * (w * channels)
    data = b"".join(comp.compress(row) for _ in range(h)) + comp.flush()
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    open(os.path.join(out, name), "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
png("refused-gray-8000.png", 8000, 8000, 0)
png("refused-rgba-8000.png", 8000, 8000, 6)
png("refused-rgba-16384x4096.png", 16384, 4096, 6)
png("refused-rgba-2900.png", 2900, 2900, 6)                # 33 MB decompressed: over the 30 MiB
png("accepted-gray-3740.png", 3740, 3740, 0)                # just under 14 Mpx
png("accepted-rgb-3200.png", 3200, 3200, 2)                 # just under 30 MiB decompressed
png("accepted-rgba-2800.png", 2800, 2800, 6)

class Bits:
    def __init__(self): self.out, self.acc, self.n = bytearray(), 0, 0
    def put(self, value, length):
        for k in range(length - 1, -1, -1):
            self.acc = self.acc << 1 | (value >> k) & 1
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF: self.out.append(0)
                self.acc, self.n = 0, 0
    def flush(self):
        while self.n: self.put(1, 1)
        return bytes(self.out)

def segment(marker, body): return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body

def jpeg(name, w, h, progressive, claim=None):
    """A flat grey (204) JPEG, 1 component, quantisation all 1: each block is its DC and an end of block."""
    blocks = ((w + 7) // 8) * ((h + 7) // 8)
    dc = 8 * (204 - 128)                                  # 608: size category 10
    # DC table: category 0 → 00, 10 → 01. AC table: EOB0…EOB14 (0x00, 0x10 … 0xE0), four bits each.
    dht_dc = bytes([0x00]) + bytes([0, 2] + [0] * 14) + bytes([0, 10])
    ac_symbols = [r << 4 for r in range(15)]
    dht_ac = bytes([0x10]) + bytes([0, 0, 0, 15] + [0] * 12) + bytes(ac_symbols)
    fw, fh = claim or (w, h)
    head = b"\xff\xd8" + segment(0xDB, bytes([0]) + bytes([1] * 64))
    head += segment(0xC2 if progressive else 0xC0, struct.pack(">BHHB", 8, fh, fw, 1) + bytes([1, 0x11, 0]))
    head += segment(0xC4, dht_dc + dht_ac)
    def first_dc(bits):
        bits.put(0b01, 2); bits.put(dc, 10)
    if not progressive:
        bits = Bits()
        for i in range(blocks):
            if i == 0: first_dc(bits)
            else: bits.put(0b00, 2)
            bits.put(0b0000, 4)                             # EOB
        scans = segment(0xDA, bytes([1, 1, 0x00, 0, 63, 0])) + bits.flush()
    else:
        bits = Bits()
        first_dc(bits)
        for _ in range(blocks - 1): bits.put(0b00, 2)
        scans = segment(0xDA, bytes([1, 1, 0x00, 0, 0, 0])) + bits.flush()
        bits, left = Bits(), blocks
        while left:                                         # end-of-band runs over every block
            r = min(14, left.bit_length() - 1)
            run = min(left, (1 << (r + 1)) - 1)
            bits.put(r, 4)
            if r: bits.put(run - (1 << r), r)
            left -= run
        scans += segment(0xDA, bytes([1, 1, 0x00, 1, 63, 0])) + bits.flush()
    open(os.path.join(out, name), "wb").write(head + scans + b"\xff\xd9")
jpeg("accepted-baseline-3740.jpg", 3740, 3740, False)
jpeg("accepted-progressive-3740.jpg", 3740, 3740, True)
jpeg("refused-claims-30000.jpg", 16, 16, False, claim=(30000, 30000))
PY
export SOAK_IMAGES="$WORK/images"

# Default limits (64 KiB bodies, 100 requests/s per app): the server as it is deployed.
"$BIN" serve --port 0 --person-token-file "$WORK/person.token" --log-level error > "$WORK/serve.out" 2> "$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 1 600); do
  grep -q "^Listening on" "$WORK/serve.out" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
BASE=$(sed -n 's/^Listening on //p' "$WORK/serve.out")
if [ -z "$BASE" ]; then echo "error: the server did not start:" >&2; cat "$WORK/serve.err" >&2; exit 2; fi

export SOAK_BASE="$BASE" SOAK_PID="$SERVER_PID" SOAK_RUN_SECONDS="$RUN_SECONDS" SOAK_BINARY="$BIN"
export SOAK_MAX_BODY=65536 SOAK_MAX_REQUESTS="${SOAK_MAX_REQUESTS:-2000000}" SOAK_MAX_RSS_MB="${SOAK_MAX_RSS_MB:-2048}"
set +e
python3 - <<'PY'
import base64, collections, http.client, json, os, random, socket, statistics, sys, threading, time, urllib.parse

BASE = os.environ["SOAK_BASE"]
u = urllib.parse.urlsplit(BASE)
HOST, PORT = u.hostname, u.port
PID = int(os.environ["SOAK_PID"])
RUN = int(os.environ["SOAK_RUN_SECONDS"])
MAX_BODY = int(os.environ["SOAK_MAX_BODY"])
MAX_REQUESTS = int(os.environ["SOAK_MAX_REQUESTS"])
MAX_RSS_KB = int(os.environ["SOAK_MAX_RSS_MB"]) * 1024
VICTIM_ID, VICTIM_SECRET = os.environ["SOAK_VICTIM_ID"], os.environ["SOAK_VICTIM_SECRET"]
BUSY_ID, BUSY_SECRET = os.environ["SOAK_BUSY_ID"], os.environ["SOAK_BUSY_SECRET"]
PERSON_TOKEN = os.environ["SOAK_PERSON_TOKEN"]
HOSTILE_ADDRESSES = [f"127.0.0.{i}" for i in range(2, 10)]
WARMUP = RUN * 0.25
FORM = {"Content-Type": "application/x-www-form-urlencoded"}

stop = threading.Event()
lock = threading.Lock()
counts = collections.OrderedDict()   # kind -> Counter of statuses
total = [0]
abort_reason = []


def count(kind, status):
    with lock:
        counts.setdefault(kind, collections.Counter())[str(status)] += 1
        total[0] += 1
        if total[0] >= MAX_REQUESTS and not stop.is_set():
            abort_reason.append(f"request cap reached ({MAX_REQUESTS})")
            stop.set()


def rand_text(n):
    """n characters of random base64url text (fast: the work is in C)."""
    return base64.urlsafe_b64encode(os.urandom(n * 3 // 4 + 3)).decode()[:n]


class Client:
    """One keep-alive connection from a chosen source address; reconnects when the server closes it."""

    def __init__(self, source=None, timeout=15):
        self.source, self.timeout, self.conn = source, timeout, None

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
        self.conn = None

    def request(self, method, path, body=None, headers=None):
        for attempt in (0, 1):
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, PORT, timeout=self.timeout,
                                                       source_address=(self.source, 0) if self.source else None)
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                data = r.read()
                if (r.getheader("Connection") or "").lower() == "close":
                    self.close()
                return r.status, data, r
            except (http.client.HTTPException, OSError) as e:
                self.close()
                # A kept-alive connection the server had closed: try once more on a new one.
                if attempt == 0 and reused and not isinstance(e, socket.timeout):
                    continue
                return "error:" + type(e).__name__, b"", None


def app_token(client, app_id, secret):
    status, data, _ = client.request("POST", "/token", urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": app_id, "client_secret": secret}), FORM)
    if status == 200:
        return json.loads(data)["access_token"]
    return None


# (a) POST /token: random client ids up to the largest body, wrong secrets; every fourth the victim's id.
def token_flood(worker):
    clients = [Client(a) for a in HOSTILE_ADDRESSES]
    i = worker
    while not stop.is_set():
        c = clients[i % len(clients)]
        secret = rand_text(43)
        if i % 4 == 0:
            kind, client_id = "a token: victim's id, wrong secret", VICTIM_ID
        else:
            kind = "a token: random id <= 64 KiB, wrong secret"
            overhead = len("grant_type=client_credentials&client_id=&client_secret=") + len(secret)
            client_id = rand_text(random.randint(1, MAX_BODY - overhead))
        body = f"grant_type=client_credentials&client_id={client_id}&client_secret={secret}"
        status, _, _ = c.request("POST", "/token", body, FORM)
        count(kind, status)
        i += 1


# (b) POST /authorization-requests as the busy app: decided types complete at once; medication stays pending.
def authorization_flood(worker):
    c = Client(HOSTILE_ADDRESSES[worker % len(HOSTILE_ADDRESSES)])
    token = None
    i = 0
    while not stop.is_set():
        if token is None:
            token = app_token(c, BUSY_ID, BUSY_SECRET)
            if token is None:
                count("b busy app's own token", "failed")
                time.sleep(0.5)
                continue
        if i % 5 == 4:
            kind, types = "b authorization request: undecided (pending)", ["medication"]
        else:
            kind, types = "b authorization request: decided (completes)", random.choice(
                [["condition"], ["lab-result", "immunization"], ["allergy", "condition"], ["immunization"]])
        status, data, _ = c.request("POST", "/authorization-requests", json.dumps({"types": types}),
                                    {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        if status == 201:
            st = json.loads(data).get("status")
            count(kind, f"201-{st}")
        else:
            count(kind, status)
        if status == 401:
            token = None
        elif status == 429:
            time.sleep(0.01)
        i += 1


# (c) POST /login with wrong person tokens from several addresses.
def login_flood(worker):
    clients = [Client(a) for a in HOSTILE_ADDRESSES]
    i = worker
    while not stop.is_set():
        c = clients[i % len(clients)]
        status, _, _ = c.request("POST", "/login", urllib.parse.urlencode({"token": rand_text(43), "next": "/"}), FORM)
        count("c sign-in: wrong person token", status)
        i += 1


# (d) Bodies of exactly the largest size, and one byte over, to several endpoints.
def padded_form(prefix, size):
    return (prefix + "x" * (size - len(prefix))).encode()


def padded_json(size):
    head, tail = '{"types":["', '"]}'
    return (head + "x" * (size - len(head) - len(tail)) + tail).encode()


def big_bodies(worker):
    clients = [Client(a) for a in HOSTILE_ADDRESSES]
    api = Client(HOSTILE_ADDRESSES[-1])
    token = None
    i = worker
    while not stop.is_set():
        if token is None:
            token = app_token(api, BUSY_ID, BUSY_SECRET)
            if token is None:
                time.sleep(0.5)
        c = clients[i % len(clients)]
        for over in (0, 1):
            size = MAX_BODY + over
            label = "one byte over" if over else "exactly max"
            targets = [
                ("/token", padded_form("grant_type=client_credentials&client_secret=nope&client_id=", size), FORM, c),
                ("/login", padded_form("next=%2F&token=", size), FORM, c),
            ]
            if token:
                auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
                targets += [("/authorization-requests", padded_json(size), auth, api), ("/webhooks", padded_json(size), auth, api)]
            for path, body, headers, client in targets:
                if stop.is_set():
                    return
                status, _, _ = client.request("POST", path, body, headers)
                count(f"d body {label}: POST {path}", status)
                if status == 401 and client is api:
                    token = None
        i += 1


# (e) Image uploads as the signed-in person, the upload page's own form (CSRF token and all).
IMAGES = sorted(os.path.join(os.environ["SOAK_IMAGES"], n) for n in os.listdir(os.environ["SOAK_IMAGES"]))


def image_uploads(worker):
    c = Client("127.0.0.1", timeout=60)
    cookie = csrf = None
    i = worker
    while not stop.is_set():
        if cookie is None:
            status, _, r = c.request("POST", "/login", urllib.parse.urlencode({"token": PERSON_TOKEN, "next": "/"}), FORM)
            cookie = (r.getheader("Set-Cookie") or "").split(";")[0] if status == 303 and r is not None else None
            if not cookie:
                count("e image upload: sign-in", status)
                time.sleep(0.5)
                continue
            status, page, _ = c.request("GET", "/upload", headers={"Cookie": cookie})
            marker = b'name="csrf" value="'
            at = page.find(marker)
            csrf = page[at + len(marker):page.find(b'"', at + len(marker))].decode() if at >= 0 else None
            if not csrf:
                count("e image upload: form", status)
                cookie = None
                continue
        path = IMAGES[i % len(IMAGES)]
        name = os.path.basename(path)
        boundary = "soak" + rand_text(16)
        with open(path, "rb") as f:
            data = f.read()
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        status, page, _ = c.request("POST", "/upload", body, {"Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        verdict = "not valid" if b"Not valid; not added" in page else ("busy" if b"upload.busy" in page else "other")
        count(f"e image upload: {name.split('.')[0].split('-')[0]} ({verdict})", status)
        if status in (303, 401, 403):
            cookie = None
        i += 1


# Memory: VmRSS of the server every second.
samples = []   # (seconds since start, kB)


def rss_kb():
    try:
        with open(f"/proc/{PID}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# The people who must never be locked out: the person from 127.0.0.1, the victim app with its right secret.
checks = []    # (seconds, person status, app status, final?)


def person_signs_in():
    c = Client("127.0.0.1", timeout=30)
    status, _, r = c.request("POST", "/login", urllib.parse.urlencode({"token": PERSON_TOKEN, "next": "/"}), FORM)
    c.close()
    ok = status == 303 and r is not None and "hr_session=" in (r.getheader("Set-Cookie") or "")
    return ok, status


def app_gets_token():
    c = Client("127.0.0.1", timeout=30)
    status, data, _ = c.request("POST", "/token", urllib.parse.urlencode(
        {"grant_type": "client_credentials", "client_id": VICTIM_ID, "client_secret": VICTIM_SECRET}), FORM)
    c.close()
    ok = status == 200 and b"access_token" in data
    return ok, status


def legit_check(t, final=False):
    p_ok, p_status = person_signs_in()
    a_ok, a_status = app_gets_token()
    checks.append((t, p_ok, p_status, a_ok, a_status, final))


# Both work before the attack (else the setup is wrong, not the server).
ok0 = person_signs_in(), app_gets_token()
if not (ok0[0][0] and ok0[1][0]):
    print(f"error: before the attack the person's sign-in gave {ok0[0][1]} and the app's token {ok0[1][1]}", file=sys.stderr)
    sys.exit(2)
for a in HOSTILE_ADDRESSES:
    try:
        s = socket.create_connection((HOST, PORT), timeout=5, source_address=(a, 0))
        s.close()
    except OSError as e:
        print(f"error: cannot connect from {a}: {e} (this test needs Linux, where all of 127/8 is loopback)", file=sys.stderr)
        sys.exit(2)

workers = []
for n in range(2):
    workers.append(threading.Thread(target=token_flood, args=(n,), daemon=True))
    workers.append(threading.Thread(target=authorization_flood, args=(n,), daemon=True))
    workers.append(threading.Thread(target=login_flood, args=(n,), daemon=True))
workers.append(threading.Thread(target=big_bodies, args=(0,), daemon=True))
for n in range(2):
    workers.append(threading.Thread(target=image_uploads, args=(n,), daemon=True))

start = time.monotonic()
print(f"soak: {RUN} s against {BASE} (server pid {PID}, {os.environ['SOAK_BINARY']}); "
      f"hostile clients from {HOSTILE_ADDRESSES[0]}-{HOSTILE_ADDRESSES[-1]}, {len(workers)} threads; warm-up {WARMUP:.0f} s", flush=True)
for w in workers:
    w.start()

server_died = False


def sampler():
    """VmRSS once a second, on its own thread so slow checks never skip a sample."""
    global server_died
    n = 0
    while not stop.is_set():
        t = time.monotonic() - start
        if t >= RUN:
            return
        kb = rss_kb()
        if kb is None:
            server_died = True
            abort_reason.append(f"the server process ended at {t:.0f} s")
            stop.set()
            return
        samples.append((t, kb))
        if kb > MAX_RSS_KB:
            abort_reason.append(f"server RSS {kb / 1024:.0f} MiB passed the safety cap of {MAX_RSS_KB // 1024} MiB at {t:.0f} s")
            stop.set()
            return
        n += 1
        stop.wait(max(0.0, start + n - time.monotonic()))


sampling = threading.Thread(target=sampler, daemon=True)
sampling.start()
next_check = start + WARMUP + 1
while not stop.is_set():
    t = time.monotonic() - start
    if t >= RUN:
        break
    if time.monotonic() >= next_check and t < RUN - 5:
        legit_check(t)
        next_check = time.monotonic() + 10
    stop.wait(0.2)
sampling.join(timeout=5)

# The final check while the hostile clients still run.
if not server_died and rss_kb() is not None:
    legit_check(time.monotonic() - start, final=True)
elapsed = time.monotonic() - start
stop.set()
for w in workers:
    w.join(timeout=20)
if rss_kb() is None:
    server_died = True

# ---- summary ----
print()
print(f"ran {elapsed:.1f} s; {total[0]} hostile requests ({total[0] / max(elapsed, 1e-9):.0f}/s)")
if abort_reason:
    print("stopped early: " + "; ".join(abort_reason))
print()
width = max(len(k) for k in counts) if counts else 10
print(f"{'requests by kind':<{width}}  {'count':>7}  statuses")
for kind, ctr in sorted(counts.items()):
    statuses = " ".join(f"{s}:{n}" for s, n in sorted(ctr.items()))
    print(f"{kind:<{width}}  {sum(ctr.values()):>7}  {statuses}")
print()

failures = []
after = [kb for (t, kb) in samples if t >= WARMUP]
mib = lambda kb: kb / 1024
series = " ".join(f"{mib(kb):.0f}" for _, kb in samples)
warm_n = sum(1 for t, _ in samples if t < WARMUP)
print(f"server RSS (MiB), one sample a second, first {warm_n} ({WARMUP:.0f} s) are warm-up:")
print("  " + " ".join(f"{mib(kb):.0f}" for _, kb in samples[:warm_n]) + " | " + " ".join(f"{mib(kb):.0f}" for _, kb in samples[warm_n:]))
if len(after) >= 3:
    med = statistics.median(after)
    lo, hi = min(after), max(after)
    outside = [kb for kb in after if abs(kb - med) > 0.10 * med]
    print(f"  after warm-up: min {mib(lo):.1f}  median {mib(med):.1f}  max {mib(hi):.1f}  "
          f"(allowed band ±10%: {mib(med * 0.9):.1f}-{mib(med * 1.1):.1f}); {len(outside)} of {len(after)} samples outside")
    if samples:
        first_kb, last_kb = samples[0][1], samples[-1][1]
        print(f"  first sample {mib(first_kb):.1f}, last {mib(last_kb):.1f}: {'+' if last_kb >= first_kb else ''}{mib(last_kb - first_kb):.1f} MiB "
              f"over {samples[-1][0]:.0f} s")
    late = [(t, kb) for (t, kb) in samples if t >= WARMUP]
    mt = statistics.fmean(t for t, _ in late); mk = statistics.fmean(kb for _, kb in late)
    den = sum((t - mt) ** 2 for t, _ in late)
    slope = sum((t - mt) * (kb - mk) for t, kb in late) / den if den else 0.0
    print(f"  trend after warm-up (least squares, not part of the rule): {mib(slope) * 60:+.2f} MiB/min")
    if outside:
        failures.append(f"memory not stable: {len(outside)} of {len(after)} samples after warm-up outside ±10% of the median {mib(med):.1f} MiB "
                        f"(min {mib(lo):.1f}, max {mib(hi):.1f})")
else:
    failures.append("too few memory samples after warm-up")
if any("safety cap" in r for r in abort_reason):
    failures.append("memory passed the safety cap")
if server_died:
    failures.append("the server process died")
print()

during = [c for c in checks if not c[5]]
final = [c for c in checks if c[5]]
p_ok = sum(1 for c in during if c[1]); a_ok = sum(1 for c in during if c[3])
print(f"lockout checks from 127.0.0.1 while the attack ran (every 10 s after warm-up): person signed in {p_ok}/{len(during)}, "
      f"app got a token {a_ok}/{len(during)}")
for t, pok, ps, aok, as_, fin in checks:
    if not (pok and aok):
        print(f"  at {t:.0f} s{' (final)' if fin else ''}: person sign-in -> {ps}, app token -> {as_}")
if final:
    t, pok, ps, aok, as_, _ = final[0]
    print(f"at the end (attack still running): person could sign in with the right token: {'yes' if pok else 'NO'} (status {ps}); "
          f"app could get a token: {'yes' if aok else 'NO'} (status {as_})")
else:
    print("at the end: no final check (the server was gone)")
    failures.append("no final sign-in/token check")
if p_ok < len(during) or (final and not final[0][1]):
    failures.append("the person was locked out of signing in by clients at other addresses")
if a_ok < len(during) or (final and not final[0][3]):
    failures.append("the app was locked out of getting a token by clients at other addresses")
for kind in ("a token: random id <= 64 KiB, wrong secret", "b authorization request: decided (completes)", "c sign-in: wrong person token"):
    if not counts.get(kind):
        failures.append(f"no requests of kind '{kind}' were made")

print()
if failures:
    for f in failures:
        print("FAIL: " + f)
    print("soak FAIL")
    sys.exit(1)
print("soak PASS: memory stable after warm-up, nobody locked out")
PY
status=$?
set -e
if ! kill -0 "$SERVER_PID" 2>/dev/null && [ -s "$WORK/serve.err" ]; then
  echo "server's last log lines:"; tail -5 "$WORK/serve.err"
fi
exit $status
