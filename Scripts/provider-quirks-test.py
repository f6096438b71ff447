#!/usr/bin/env python3
"""Provider connections against a misbehaving FHIR server: the real `healthrecords` CLI
(`providers add/connect/list`, `sync`) against Scripts/provider-quirk-server.py, one quirk at a time.

For each scenario: a fresh SQLite store and a fresh quirk server; `providers add --fhir-base
http://127.0.0.1:PORT/fhir --client-id quirk-app --allow-loopback`, `providers connect ID` (the
printed sign-in address is opened with `requests`, following the server's redirect to the CLI's
loopback listener), `sync ID --json`, and then checks on the outcome from three places: the sync
JSON, the store's `resource` table (rows of source `provider:ID`, compared with what the server
served, by content) and the server's request log (tokens, hosts, retries, timing).

Scenarios: plain (then incremental sync, a changed record, token refresh twice with rotated refresh
tokens), everything, relative next links, a next-link cycle, Observation needing a category,
429 + Retry-After, 500/504 bursts, next links to another host, token expiry mid-sync,
invalid_grant on refresh, a public client without refresh token, denial, state mismatch, and
the connect timeout. Prints `ok  …` or `FAIL …` per check, continues with the next scenario after
a failure and exits 1 if any check failed.

Usage: Scripts/provider-quirks-test.py --cli .build/debug/healthrecords --out .build/provider-quirks-test [--only NAME,…]
"""
import argparse, json, os, queue, shutil, socket, sqlite3, subprocess, sys, tempfile, threading, time, traceback
import urllib.parse

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "Scripts", "provider-quirk-server.py")


def _server_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("provider_quirk_server", SERVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The records --hostile mixes in, one per disguise (read from the server, so both agree).
HOSTILE_KINDS = _server_module().HOSTILE_KINDS
CLIENT_ID = "quirk-app"
# The US Core resource types a patient-facing client must fetch when the server has them.
US_CORE = {"AllergyIntolerance", "CarePlan", "CareTeam", "Condition", "Coverage", "Device", "DiagnosticReport", "DocumentReference",
           "Encounter", "Goal", "Immunization", "MedicationDispense", "MedicationRequest", "Observation", "Procedure",
           "QuestionnaireResponse", "ServiceRequest", "Specimen", "RelatedPerson"}

results = {"ok": 0, "fail": 0, "failed": []}


class Abort(Exception):
    """Ends a scenario early (its remaining checks make no sense)."""


def check(condition, what, detail=None):
    if condition:
        results["ok"] += 1
        print(f"  ok    {what}", flush=True)
    else:
        results["fail"] += 1
        results["failed"].append(f"[{Scenario.current}] {what}")
        print(f"  FAIL  {what}" + (f"\n        {detail}" if detail else ""), flush=True)
    return condition


def require(condition, what, detail=None):
    if not check(condition, what, detail):
        raise Abort(what)


def short(text, n=600):
    text = (text or "").strip()
    return text if len(text) <= n else text[:n] + f"… ({len(text)} chars)"


class Scenario:
    current = "-"

    def __init__(self, cli, out, name, flags):
        Scenario.current = name
        self.cli, self.name = cli, name
        self.dir = os.path.join(out, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.work = tempfile.mkdtemp(prefix=f"hr-quirk-{name}-")
        self.store = os.path.join(self.work, "store.sqlite")
        self.log_path = os.path.join(self.dir, "server-log.jsonl")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HEALTHRECORDS_")}
        self.pid = "quirk-" + name
        self.transcript = open(os.path.join(self.dir, "cli.txt"), "w")
        self.server = subprocess.Popen([sys.executable, SERVER, "--log", self.log_path, "--client-id", CLIENT_ID, *flags],
                                       stdout=subprocess.PIPE, stderr=open(os.path.join(self.dir, "server-stderr.txt"), "w"), text=True)
        line = self.server.stdout.readline()
        if not line:
            raise Abort("the quirk server did not start (see server-stderr.txt)")
        self.info = json.loads(line)
        self.base, self.fhir = self.info["base"], self.info["fhir"]
        print(f"\n== {name}: quirk server {self.base} {' '.join(flags)}", flush=True)

    def close(self):
        self.server.terminate()
        try:
            self.server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.server.kill()
        self.transcript.close()
        shutil.rmtree(self.work, ignore_errors=True)

    # MARK: CLI

    def run(self, *args, timeout=180):
        cmd = [self.cli, *args, "--store", self.store]
        start = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            self.transcript.write(f"$ {' '.join(cmd)}\n(timed out after {timeout} s)\n")
            raise Abort(f"`healthrecords {' '.join(args)}` did not finish within {timeout} s")
        self.transcript.write(f"$ {' '.join(cmd)}\n(exit {p.returncode}, {time.time() - start:.1f} s)\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}\n\n")
        self.transcript.flush()
        return p

    def add(self, *extra):
        p = self.run("providers", "add", "--fhir-base", self.fhir, "--id", self.pid, "--name", f"Quirk Clinic ({self.name})",
                     "--client-id", CLIENT_ID, "--allow-loopback", *extra)
        require(p.returncode == 0 and self.pid in p.stdout, f"providers add prints the provider id {self.pid}",
                f"exit {p.returncode}; stdout {short(p.stdout)!r}; stderr {short(p.stderr)!r}")

    def connect(self, open_url=True, extra=(), wait=90):
        """Runs `providers connect`; returns (exit code, stdout, stderr, authorize URL, seconds)."""
        cmd = [self.cli, "providers", "connect", self.pid, *extra, "--store", self.store]
        start = time.time()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        lines, errs = queue.Queue(), []
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] + [lines.put(None)], daemon=True).start()
        threading.Thread(target=lambda: errs.extend(proc.stderr), daemon=True).start()
        out, url = [], None
        deadline = time.time() + 30
        while url is None and time.time() < deadline:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
            if line.startswith("Open this address to sign in: "):
                url = line[len("Open this address to sign in: "):].strip()
        if url and open_url:
            try:
                r = requests.get(url, allow_redirects=True, timeout=30)
                self.callback_answer = (r.status_code, r.url, r.text[:300])
            except requests.RequestException as e:
                self.callback_answer = (None, None, str(e))
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            self.transcript.write(f"$ {' '.join(cmd)}\n(killed after {wait} s)\n")
            raise Abort(f"`providers connect` did not exit within {wait} s")
        time.sleep(0.1)
        while True:
            try:
                line = lines.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                out.append(line)
        stdout, stderr = "".join(out), "".join(errs)
        self.transcript.write(f"$ {' '.join(cmd)}\n(exit {proc.returncode}, {time.time() - start:.1f} s)\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n\n")
        self.transcript.flush()
        return proc.returncode, stdout, stderr, url, time.time() - start

    def connect_ok(self):
        self.add()
        rc, out, err, url, _ = self.connect()
        require(url is not None, "providers connect prints `Open this address to sign in: <URL>`", f"stdout {short(out)!r}; stderr {short(err)!r}")
        require(rc == 0, "providers connect exits 0 after the sign-in", f"exit {rc}; stdout {short(out)!r}; stderr {short(err)!r}; "
                f"the browser's last answer: {getattr(self, 'callback_answer', None)}")
        return url

    def sync(self, *extra):
        """Runs `sync ID --json`; returns (exit code, this provider's JSON object or None, process)."""
        p = self.run("sync", self.pid, "--json", *extra)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            check(False, f"sync --json prints JSON (exit {p.returncode})", f"stdout {short(p.stdout)!r}; stderr {short(p.stderr)!r}")
            return p.returncode, None, p
        mine = [x for x in doc.get("providers", []) if x.get("id") == self.pid]
        check(len(mine) == 1, f"the sync JSON has one entry for {self.pid}", short(p.stdout))
        return p.returncode, (mine[0] if mine else None), p

    def provider_status(self):
        p = self.run("providers", "list", "--json")
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            check(False, "providers list --json prints JSON", f"exit {p.returncode}; stdout {short(p.stdout)!r}; stderr {short(p.stderr)!r}")
            return None
        items = doc if isinstance(doc, list) else doc.get("providers", [])
        mine = [x for x in items if x.get("id") == self.pid]
        return mine[0] if mine else None

    # MARK: the server's side

    def log(self):
        try:
            return [json.loads(l) for l in open(self.log_path)]
        except FileNotFoundError:
            return []

    def control(self, **command):
        r = requests.post(self.base + "/_quirks", json=command, timeout=10)
        require(r.status_code == 200, f"the quirk server takes {command}", r.text)
        return r.json()

    def served(self):
        doc = requests.get(self.base + "/_resources", timeout=10).json()
        return {(r["resourceType"], r["id"]): r for r in doc["resources"]}, {tuple(x.split("/", 1)) for x in doc["compartment"]}

    # MARK: the store

    def stored(self):
        """Rows of this provider's source: {(type, id): [parsed JSON, …]} (a list, so duplicates show)."""
        db = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True)
        try:
            sources = [(sid, bytes(ident).decode() if isinstance(ident, bytes) else ident)
                       for sid, ident in db.execute("SELECT id, identifier FROM source")]
            ids = [sid for sid, ident in sources if ident == f"provider:{self.pid}"]
            if len(ids) != 1 or not getattr(self, "_source_checked", False):
                check(len(ids) == 1, f"the store has one source `provider:{self.pid}`", f"sources: {[i for _, i in sources]}")
                self._source_checked = True
            rows = db.execute(f"SELECT resource_type, resource_id, data FROM resource WHERE source_id IN ({','.join('?' * len(ids))})", ids).fetchall() if ids else []
            other = db.execute("SELECT COUNT(*) FROM resource").fetchone()[0] - len(rows)
        finally:
            db.close()
        out = {}
        for kind, rid, data in rows:
            rid = bytes(rid).decode() if isinstance(rid, (bytes, memoryview)) else rid
            try:
                parsed = json.loads(bytes(data))
            except ValueError:
                parsed = {"unreadable": bytes(data)[:80].hex()}
            out.setdefault((kind, rid), []).append(parsed)
        if other or not getattr(self, "_rows_checked", False):
            check(other == 0, "no rows outside the provider's source", f"{other} other rows")
            self._rows_checked = True
        return out


# MARK: shared assertions

def fhir_requests(log, since=0.0, listener="main"):
    return [e for e in log if e["t"] >= since and e.get("listener") == listener and e["path"].startswith("/fhir/") and e["path"] != "/fhir/metadata" and "/.well-known/" not in e["path"]]


def searched_types(log, since=0.0):
    kinds = set()
    for e in fhir_requests(log, since):
        parts = e["path"][len("/fhir/"):].split("/")
        if e.get("status") == 200 and len(parts) == 1:
            kinds.add(parts[0])
        if e.get("status") == 200 and len(parts) == 3 and parts[2] == "$everything":
            kinds.add("$everything")
    return kinds


def check_authorize_url(s, url):
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    redirect = urllib.parse.urlsplit(q.get("redirect_uri", ""))
    check(url.startswith(s.base + "/authorize?") and q.get("response_type") == "code" and q.get("client_id") == CLIENT_ID,
          "the sign-in address is the advertised authorize endpoint with response_type=code and the client id", url)
    check(redirect.scheme == "http" and redirect.hostname == "127.0.0.1" and redirect.port and redirect.path == "/callback",
          f"redirect_uri is a loopback http://127.0.0.1:PORT/callback ({q.get('redirect_uri')})")
    check(q.get("code_challenge_method") == "S256" and len(q.get("code_challenge", "")) == 43, "PKCE: code_challenge_method=S256, a 43-character challenge")
    check(len(q.get("state", "")) >= 22, f"state carries at least 128 bits ({len(q.get('state', ''))} characters)")
    check(q.get("aud") == s.fhir, f"aud is the FHIR base ({q.get('aud')})")
    scope = q.get("scope", "").split()
    check("launch/patient" in scope and any(x.startswith("patient/") for x in scope), f"scope asks for launch/patient and patient/ scopes: {q.get('scope')!r}")
    return q


def check_tokens(s, log):
    """Every FHIR request carries a Bearer token this server issued; no token in a URL."""
    issued = {e["issued"]["access_token"] for e in log if e.get("issued")}
    fhir = fhir_requests(log)
    bad = [e for e in fhir if not (e.get("auth_scheme") == "Bearer" and e.get("token") in issued)]
    check(fhir and not bad, f"all {len(fhir)} FHIR requests carry a Bearer token the server issued",
          f"{len(bad)} did not, e.g. {bad[:1]}")
    # The server's tokens start "at-" and "rt-"; a random state or verifier may hold those
    # letters inside it, so values are compared whole, not searched.
    def leaks(query):
        pairs = urllib.parse.parse_qsl(query or "", keep_blank_values=True)
        return any(k in ("access_token", "refresh_token") or v.startswith(("at-", "rt-")) for k, v in pairs)
    leaked = [e for e in log if leaks(e.get("query"))]
    check(not leaked, "no token ever appears in a URL query", str(leaked[:1]))


def check_complete(s, sync, since=0.0, allow_missing=()):
    """All the patient's records of the types fetched arrived exactly once, stored as served."""
    served, compartment = s.served()
    stored = s.stored()
    log = s.log()
    kinds = searched_types(log, since)
    everything = "$everything" in kinds
    present = {k for k, _ in compartment}
    if everything:
        must = present
    else:
        must = (present & US_CORE) - set(allow_missing)
        missing_types = sorted(must - kinds)
        check(not missing_types, f"every US Core type the server holds was searched ({', '.join(sorted(must))})",
              f"never searched: {missing_types}")
        not_fetched = sorted(present - kinds)
        if not_fetched:
            print(f"  info  not fetched (not US Core): {', '.join(f'{k} {sum(1 for c in compartment if c[0] == k)}' for k in not_fetched)}")
        must = present & (kinds | {"Patient"})
    expected = {key for key in compartment if key[0] in must} | {("Patient", s.info["patient"])}
    dupes = {k: len(v) for k, v in stored.items() if len(v) > 1}
    check(not dupes, f"no record is stored twice ({sum(len(v) for v in stored.values())} rows)", str(list(dupes.items())[:3]))
    missing = sorted(expected - set(stored))
    check(not missing, f"all {len(expected)} expected records are stored (Patient and {len(expected) - 1} of the types fetched)",
          f"{len(missing)} missing, e.g. {missing[:3]}")
    unknown = sorted(set(stored) - set(served))
    check(not unknown, "nothing stored that the server does not hold", str(unknown[:3]))
    differ = sorted(k for k, v in stored.items() if k in served and v[0] != served[k])
    check(not differ, f"every stored record's JSON equals what the server serves ({len(stored)} compared)",
          f"{len(differ)} differ, e.g. {differ[:1]}: stored {short(json.dumps(stored[differ[0]][0]), 300) if differ else ''}")
    per_type = {}
    for key in expected:
        per_type[key[0]] = per_type.get(key[0], 0) + 1
    got = {}
    for key in stored:
        got[key[0]] = got.get(key[0], 0) + 1
    print(f"  info  stored per type: {', '.join(f'{k} {got.get(k, 0)}/{n}' for k, n in sorted(per_type.items()))}")
    # Exactly once on the wire: every record served with 200 once in this sync.
    served_ids = {}
    for e in fhir_requests(log, since):
        if e.get("status") == 200:
            for ref in e.get("entries") or []:
                served_ids[ref] = served_ids.get(ref, 0) + 1
    twice = {k: n for k, n in served_ids.items() if n > 1}
    check(not twice, f"each record was fetched once ({len(served_ids)} distinct in search results)", f"fetched more than once: {list(twice.items())[:3]}")
    if sync is not None:
        # Steps are keyed by search: "Observation", "Observation?category=laboratory", "Patient", "$everything".
        steps = sync.get("types") or []
        if any(t.get("type") == "$everything" for t in steps):
            # $everything holds the Patient as well as its compartment.
            total = sum(t.get("resources", 0) for t in steps if t.get("type") != "Patient")
            n = sum(per_type.values())
            check(total == n, f"the sync JSON counts {total} resources from $everything, the server served {n}")
        else:
            reported = {}
            for t in steps:
                kind = (t.get("type") or "").split("?")[0]
                reported[kind] = reported.get(kind, 0) + t.get("resources", 0)
            wrong = {k: (reported.get(k), n) for k, n in per_type.items() if reported.get(k) != n and not (k == "Patient" and k not in reported)}
            check(not wrong, "the sync JSON's per-type resource counts equal the server's", f"(reported, served): {wrong}; steps {steps[:4]}")
    return stored


def check_failed_sync(s, rc, sync, proc, what):
    check(rc == 1, f"{what}: sync exits 1", f"exit {rc}; stdout {short(proc.stdout)}; stderr {short(proc.stderr)}")
    err = (sync or {}).get("error") or {}
    check(isinstance(err, dict) and err.get("code") and err.get("message"), f"{what}: the provider's entry carries an error with code and message: {err}",
          short(proc.stdout))
    return err


def count_rows(s):
    return sum(len(v) for v in s.stored().values())


# MARK: scenarios

def plain(cli, out):
    s = Scenario(cli, out, "plain", [])
    try:
        s.add()
        st = s.provider_status()
        check(st is not None and st.get("status") == "not-connected" and st.get("fhirBase") == s.fhir,
              f"providers list --json: not-connected before connect, fhirBase {s.fhir}", str(st))
        rc, o, e, url, _ = s.connect()
        require(url and rc == 0, "providers connect: sign-in through the printed address, exit 0", f"exit {rc}; {short(o)} {short(e)}")
        check_authorize_url(s, url)
        log = s.log()
        tok = [x for x in log if x["path"] == "/token"]
        check(len(tok) == 1 and tok[0].get("grant_type") == "authorization_code" and tok[0].get("status") == 200,
              "connect exchanged the code once at /token (authorization_code, PKCE verifier accepted)", str(tok))
        check(any(x["path"].endswith("smart-configuration") for x in log), "connect read .well-known/smart-configuration")
        st = s.provider_status()
        check(st is not None and st.get("status") == "connected", f"providers list: connected ({st and st.get('status')})")
        t0 = time.time()
        rc, sync, p = s.sync()
        require(rc == 0 and sync and sync.get("status") not in (None, "failed", "error"), f"first sync exits 0 (status {sync and sync.get('status')})",
                f"stdout {short(p.stdout)} stderr {short(p.stderr)}")
        check(sync.get("mode") == "full", f"the first sync is full ({sync.get('mode')})")
        stored = check_complete(s, sync)
        check(sync.get("inserted") == sum(len(v) for v in stored.values()) and sync.get("deleted", 0) == 0,
              f"inserted {sync.get('inserted')} = rows stored, deleted {sync.get('deleted')}")
        check_tokens(s, s.log())
        st = s.provider_status()
        check(st and st.get("status") == "connected" and st.get("lastSync"), f"providers list after sync: connected, lastSync {st and st.get('lastSync')}")

        print("  -- second sync (nothing changed)")
        t1 = time.time()
        rc, sync2, p = s.sync()
        check(rc == 0 and sync2 and sync2.get("mode") == "incremental", f"second sync: exit 0, incremental ({sync2 and sync2.get('mode')})",
              f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
        searches = [x for x in fhir_requests(s.log(), t1) if len(x["path"].split("/")) == 3]
        since = [x for x in searches if "_lastUpdated=gt" in x["query"] or "_lastUpdated=ge" in x["query"]]
        check(searches and len(since) == len(searches), f"incremental searches use _lastUpdated=gt… ({len(since)} of {len(searches)})",
              str([x["query"] for x in searches if x not in since][:2]))
        if sync2:
            check(sync2.get("inserted") == 0 and sync2.get("updated") == 0 and sync2.get("deleted", 0) == 0,
                  f"nothing inserted, updated or deleted (inserted {sync2.get('inserted')}, updated {sync2.get('updated')}, deleted {sync2.get('deleted')})")

        print("  -- a record changes on the server")
        served, compartment = s.served()
        obs = sorted(k for k in compartment if k[0] == "Observation")[0]
        s.control(touch=[f"{obs[0]}/{obs[1]}"])
        t2 = time.time()
        rc, sync3, p = s.sync()
        check(rc == 0 and sync3 and sync3.get("updated") == 1 and sync3.get("inserted") == 0,
              f"incremental sync after the change: updated 1, inserted 0 ({sync3 and (sync3.get('updated'), sync3.get('inserted'))})", short(p.stdout))
        served, _ = s.served()
        stored = s.stored()
        check(stored.get(obs) and stored[obs][0] == served[obs] and len(stored[obs]) == 1, f"the store holds the new version of {obs[0]}/{obs[1]} (versionId 2)")

        print("  -- the access token expires: refresh (twice, rotating refresh tokens)")
        for round_ in (1, 2):
            s.control(expire_tokens=True)
            t3 = time.time()
            rc, sync4, p = s.sync()
            log = s.log()
            refreshes = [x for x in log if x["t"] >= t3 and x["path"] == "/token"]
            check(rc == 0, f"sync after expiry #{round_} exits 0", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
            check(len(refreshes) == 1 and refreshes[0].get("grant_type") == "refresh_token" and refreshes[0].get("status") == 200,
                  f"one refresh_token grant, accepted (#{round_})", str([(x.get("grant_type"), x.get("status"), x.get("error")) for x in refreshes]))
            if refreshes and refreshes[0].get("issued"):
                new = refreshes[0]["issued"]["access_token"]
                # Requests already on their way when the refresh began may still carry the old
                # token; from the first use of the new one on, none may.
                after = fhir_requests(log, refreshes[0]["t"])
                first = next((i for i, x in enumerate(after) if x.get("token") == new), None)
                later = after[first:] if first is not None else []
                check(later and all(x.get("token") == new for x in later), f"every FHIR request after the new token's first use carries it (#{round_})",
                      str([x.get("path") for x in later if x.get("token") != new][:3]))
            expired = [x for x in fhir_requests(log, t3) if x.get("status") == 401]
            print(f"  info  401s before refreshing: {len(expired)}")
        check(count_rows(s) == len(stored), "the refreshes kept every record")
        check_tokens(s, s.log())
    finally:
        s.close()


def complete_with(name, flags, extra_checks=None):
    def scenario(cli, out):
        s = Scenario(cli, out, name, flags)
        try:
            s.connect_ok()
            t0 = time.time()
            rc, sync, p = s.sync()
            require(rc == 0, f"sync exits 0 ({sync and sync.get('status')})", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
            check_complete(s, sync, since=t0)
            check_tokens(s, s.log())
            if extra_checks:
                extra_checks(s, t0)
        finally:
            s.close()
    scenario.__name__ = name
    return scenario


def everything_checks(s, t0):
    used = [x for x in fhir_requests(s.log(), t0) if x["path"].endswith("/$everything")]
    print(f"  info  Patient/$everything {'used' if used else 'not used'} ({len(used)} requests)")


def relative_checks(s, t0):
    log = fhir_requests(s.log(), t0)
    followed = [x for x in log if "_offset=" in x["query"]]
    check(followed, f"relative next links were followed ({len(followed)} pages)")
    check(all(x["host"] == urllib.parse.urlsplit(s.base).netloc for x in log), "…on the same host")


def category_checks(s, t0):
    log = fhir_requests(s.log(), t0)
    obs = [x for x in log if x["path"] == "/fhir/Observation"]
    refused = [x for x in obs if x.get("status") == 400]
    with_cat = [x for x in obs if "category=" in x["query"] and x.get("status") == 200]
    check(with_cat, f"Observation searched by category after the 400 ({len(refused)} refused, {len(with_cat)} by category)")


def retry_after_checks(paths):
    def checks(s, t0):
        log = fhir_requests(s.log(), t0)
        for path in paths:
            hits = [x for x in log if x["path"] == path]
            limited = [x for x in hits if x.get("status") == 429]
            check(limited, f"{path}: {len(limited)} answers of 429 given")
            for x in limited:
                after = [y for y in hits if y["t"] > x["t"] and y["query"] == x["query"]]
                gap = (after[0]["t"] - x["t"]) if after else None
                check(after and gap >= 1.0, f"{path}: the retry after a 429 came {gap and round(gap, 2)} s later (Retry-After: 1)",
                      "no retry of the same request" if not after else None)
            check(limited and any(y.get("status") == 200 and y["query"] == limited[0]["query"] for y in hits),
                  f"{path}: the throttled search was answered 200 in the end")
    return checks


def error_burst_checks(paths):
    def checks(s, t0):
        log = fhir_requests(s.log(), t0)
        for path, statuses in paths.items():
            hits = [x for x in log if x["path"] == path]
            seen = [x.get("status") for x in hits[:len(statuses) + 1]]
            check(seen == statuses + [200], f"{path}: answered {statuses} then 200 on a retry of the same search ({seen})")
            if len(hits) > len(statuses):
                same = all(h["query"] == hits[0]["query"] for h in hits[:len(statuses) + 1])
                check(same, f"{path}: the retries repeat the same request")
                gaps = [round(hits[i + 1]["t"] - hits[i]["t"], 2) for i in range(len(statuses))]
                print(f"  info  {path}: seconds between the attempts {gaps}")
    return checks


def loop_next(cli, out):
    s = Scenario(cli, out, "loop-next", ["--loop-next"])
    try:
        s.connect_ok()
        t0 = time.time()
        rc, sync, p = s.sync()
        log = fhir_requests(s.log(), t0)
        obs = [x for x in log if x["path"] == "/fhir/Observation" and x.get("status") == 200]
        distinct = {x["query"] for x in obs}
        check(len(obs) <= len(distinct) + 1, f"the cycle was noticed: {len(obs)} Observation page requests for {len(distinct)} distinct pages",
              "the client kept following the repeating next link")
        if rc == 0:
            print("  info  sync finished (exit 0) despite the cycle")
            stored = s.stored()
            check(not [k for k, v in stored.items() if len(v) > 1], "no record stored twice")
            reported = sum(t.get("resources", 0) for t in (sync or {}).get("types") or [] if (t.get("type") or "").split("?")[0] == "Observation")
            _, compartment = s.served()
            n = sum(1 for k in compartment if k[0] == "Observation")
            got = sum(1 for k in stored if k[0] == "Observation")
            check(reported <= n, f"the sync JSON counts no Observation twice ({reported} of {n})")
            check(got == n or (sync or {}).get("status") not in ("ok", "success", "synced", None),
                  f"{got} of {n} Observations stored: a sync that lost records to the cycle must not report plain success ({(sync or {}).get('status')})",
                  json.dumps(sync)[:400])
        else:
            err = check_failed_sync(s, rc, sync, p, "a next-link cycle")
            msg = json.dumps(err).lower()
            check(any(w in msg for w in ("loop", "cycle", "repeat", "again", "seen", "next")), f"the error names the repeating next link: {err.get('message')!r}")
        check_tokens(s, s.log())
    finally:
        s.close()


def foreign_next(cli, out):
    s = Scenario(cli, out, "foreign-next", ["--foreign-next"])
    try:
        s.connect_ok()
        t0 = time.time()
        rc, sync, p = s.sync()
        every = s.log()
        other = [x for x in every if x.get("listener") == "other"]
        issued = {x["issued"]["access_token"] for x in every if x.get("issued")}
        check(not any(x.get("auth") for x in other), f"the other host never received an Authorization header ({len(other)} requests reached it)",
              str([(x["path"], x.get("auth_scheme")) for x in other if x.get("auth")][:3]))
        check(not any(x.get("token") in issued for x in other), "…and never any token the server issued")
        if rc == 0:
            print("  info  sync finished (exit 0) with next links to another host")
            check_complete(s, sync, since=t0)
        else:
            err = check_failed_sync(s, rc, sync, p, "next links to another host")
            print(f"  info  error: {err}")
    finally:
        s.close()


def hostile(flags, name):
    """A hostile server mixes other people's records into every first page (review finding 2 of
    issue 28): none is stored, each is counted as left out, and the patient's records all arrive."""
    def run(cli, out):
        s = Scenario(cli, out, name, ["--hostile"] + flags)
        try:
            s.connect_ok()
            t0 = time.time()
            rc, sync, p = s.sync()
            require(rc == 0 and sync, "sync exits 0 against a server mixing in other people's records", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
            log = s.log()
            first_pages = [e for e in fhir_requests(log, t0) if e.get("status") == 200 and any(x.startswith(("Patient/hostile-", "Observation/hostile-")) for x in e.get("entries") or [])]
            kinds = len(HOSTILE_KINDS)
            check(first_pages, f"the server served its {kinds} disguised records on {len(first_pages)} first pages")
            stored = s.stored()
            intruders = sorted(k for k in stored if k[1].startswith("hostile-") or k[1] == "who")
            check(not intruders, "no record of anyone else is stored", str(intruders))
            texts = json.dumps([v for vs in stored.values() for v in vs])
            check("Intruder" not in texts and "999-12-3456" not in texts and "BRCA1" not in texts, "no trace of the intruder's data in the store")
            check(sync.get("leftOut") == kinds * len(first_pages),
                  f"the sync report counts {kinds} left out per first page ({kinds} × {len(first_pages)})", f"leftOut {sync.get('leftOut')}")
            p2 = s.run("sync", s.pid)
            check("left out" in p2.stdout, "the sync's words say records were left out", short(p2.stdout))
            served, compartment = s.served()
            mine = {k for k in compartment} | {("Patient", s.info["patient"])}
            kinds_fetched = searched_types(log, t0)
            expected = {k for k in mine if "$everything" in kinds_fetched or k[0] in kinds_fetched or k[0] == "Patient"}
            missing = sorted(expected - set(stored))
            check(not missing, f"all {len(expected)} of the patient's records of the types fetched are stored", str(missing[:3]))
        finally:
            s.close()
    return run


def mid_sync_expiry(cli, out):
    # Tokens last 3 s; three 429s on Observation hold the sync past that.
    s = Scenario(cli, out, "mid-sync-expiry", ["--token-lifetime", "3", "--throttle", "/fhir/Observation=3"])
    try:
        s.connect_ok()
        t0 = time.time()
        rc, sync, p = s.sync()
        log = s.log()
        require(rc == 0, "sync exits 0 although the token expired during it", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
        refreshes = [x for x in log if x["t"] >= t0 and x["path"] == "/token"]
        check(any(x.get("grant_type") == "refresh_token" and x.get("status") == 200 for x in refreshes), f"refreshed during the sync ({len(refreshes)} token requests)")
        unauthorized = [x for x in fhir_requests(log, t0) if x.get("status") == 401]
        print(f"  info  401 answers during the sync: {len(unauthorized)}")
        check_complete(s, sync, since=t0)
        check_tokens(s, log)
    finally:
        s.close()


def invalid_grant(cli, out):
    s = Scenario(cli, out, "invalid-grant", [])
    try:
        s.connect_ok()
        rc, sync, p = s.sync()
        require(rc == 0, "first sync exits 0", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
        before = count_rows(s)
        s.control(set={"refresh_invalid_grant": True}, expire_tokens=True)
        t0 = time.time()
        rc, sync, p = s.sync()
        refreshes = [x for x in s.log() if x["t"] >= t0 and x["path"] == "/token"]
        check(refreshes and all(x.get("error") == "invalid_grant" for x in refreshes), f"the refresh was tried and refused with invalid_grant")
        check(len(refreshes) == 1, f"one refresh attempt for the whole sync, shared by its concurrent searches ({len(refreshes)} attempts)")
        err = check_failed_sync(s, rc, sync, p, "invalid_grant on refresh")
        st = s.provider_status()
        check(st and st.get("status") == "needs-sign-in", f"providers list: needs-sign-in ({st and st.get('status')})", str(st))
        check(count_rows(s) == before and (sync or {}).get("deleted", 0) == 0, f"nothing deleted ({before} rows kept)")
        after = [x for x in fhir_requests(s.log(), t0) if x.get("status") == 200]
        print(f"  info  FHIR requests answered 200 after the refusal: {len(after)}; error {err}")
        # A later sync does not hammer the token endpoint either.
        t1 = time.time()
        rc, sync, p = s.sync()
        check(rc == 1, "a further sync still exits 1 (sign-in needed)", f"exit {rc}")
        tries = [x for x in s.log() if x["t"] >= t1 and x["path"] == "/token"]
        print(f"  info  token requests in the further sync: {len(tries)}")
        check(count_rows(s) == before, "still nothing deleted")
    finally:
        s.close()


def public_no_refresh(cli, out):
    s = Scenario(cli, out, "public-no-refresh", ["--no-refresh-token"])
    try:
        s.connect_ok()
        issued = [x["issued"] for x in s.log() if x.get("issued")]
        check(issued and issued[0].get("refresh_token") is None, "the server issued no refresh token")
        rc, sync, p = s.sync()
        require(rc == 0, "sync while the access token lasts exits 0", f"exit {rc}; {short(p.stdout)} {short(p.stderr)}")
        check_complete(s, sync)
        before = count_rows(s)
        st = s.provider_status()
        check(st and st.get("status") == "connected", f"providers list: connected while the token lasts ({st and st.get('status')})")
        s.control(expire_tokens=True)
        t0 = time.time()
        rc, sync, p = s.sync()
        check_failed_sync(s, rc, sync, p, "an expired token without refresh token")
        tries = [x for x in s.log() if x["t"] >= t0 and x["path"] == "/token"]
        check(not tries, f"no refresh attempted without a refresh token ({len(tries)} token requests)", str(tries[:1]))
        st = s.provider_status()
        check(st and st.get("status") == "needs-sign-in", f"providers list: needs-sign-in ({st and st.get('status')})", str(st))
        check(count_rows(s) == before, f"nothing deleted ({before} rows kept)")
    finally:
        s.close()


def refused_connect(name, flags, words):
    def scenario(cli, out):
        s = Scenario(cli, out, name, flags)
        try:
            s.add()
            rc, o, e, url, secs = s.connect()
            check(url is not None, "connect printed the sign-in address")
            answer = getattr(s, "callback_answer", None)
            print(f"  info  the browser's last answer: {answer and answer[:2]}")
            check(rc == 1, f"connect exits 1 ({rc})", f"stdout {short(o)!r}; stderr {short(e)!r}")
            text = (o + e).lower()
            check(any(w in text for w in words), f"the error says so ({' / '.join(words)}): {short(e.strip(), 200)!r}")
            check("fatal error" not in text and "traceback" not in text and "stack dump" not in text, "no crash output")
            tokens = [x for x in s.log() if x["path"] == "/token"]
            check(not tokens, f"no code exchanged at /token ({len(tokens)} requests)")
            st = s.provider_status()
            check(st and st.get("status") != "connected", f"providers list: not connected ({st and st.get('status')})")
            rc2, sync, p = s.sync()
            check(rc2 == 1, f"sync of the unconnected provider exits 1 ({rc2})", short(p.stdout + p.stderr))
        finally:
            s.close()
    scenario.__name__ = name
    return scenario


def connect_timeout(cli, out):
    s = Scenario(cli, out, "connect-timeout", [])
    try:
        s.add()
        rc, o, e, url, secs = s.connect(open_url=False, extra=("--timeout", "2"), wait=30)
        check(url is not None, "connect printed the sign-in address")
        check(rc == 1, f"connect --timeout 2 without a sign-in exits 1 ({rc})", f"stdout {short(o)!r}; stderr {short(e)!r}")
        check(secs < 10, f"…after {secs:.1f} s")
        check(any(w in (o + e).lower() for w in ("timed out", "timeout", "within 2")), f"the error says the time ran out: {short(e.strip(), 200)!r}")
        check("fatal error" not in (o + e).lower(), "no crash output")
        if url:
            port = urllib.parse.urlsplit(dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)).get("redirect_uri", "")).port
            if port:
                with socket.socket() as sock:
                    sock.settimeout(2)
                    closed = sock.connect_ex(("127.0.0.1", port)) != 0
                check(closed, f"the loopback listener on port {port} is closed after the timeout")
        st = s.provider_status()
        check(st and st.get("status") != "connected", f"providers list: not connected ({st and st.get('status')})")
    finally:
        s.close()


def brands(cli, out):
    s = Scenario(cli, out, "brands", [])
    try:
        def run(*args):
            return subprocess.run([cli, *args], capture_output=True, text=True, env=s.env, timeout=60)
        p = run("providers", "brands", "--from-server", s.fhir, "--allow-loopback", "--json")
        check(p.returncode == 0, "providers brands --from-server reads the advertised bundle (exit 0)", short(p.stdout + p.stderr))
        listed = json.loads(p.stdout) if p.returncode == 0 else []
        check([b.get("name") for b in listed] == ["Quirk Clinic"], f"it lists the server's brand ({[b.get('name') for b in listed]})")
        check(listed and listed[0]["endpoints"][0]["fhirBase"] == s.fhir, "with the server's FHIR base", str(listed[:1]))
        p = run("providers", "brands", "--from-server", s.fhir, "--json")
        check(p.returncode != 0, f"without --allow-loopback a server on this machine is refused (exit {p.returncode})", short(p.stderr))
        url = s.base + "/brands.json"
        p = s.run("providers", "add", "--brands", url, "--brand", "QC", "--client-id", "quirk-public", "--allow-loopback", "--json")
        check(p.returncode == 0, "providers add --brands URL --brand ALIAS exits 0", short(p.stdout + p.stderr))
        added = json.loads(p.stdout) if p.returncode == 0 else {}
        check(added.get("fhirBase") == s.fhir and added.get("name") == "Quirk Clinic",
              f"the provider takes the brand's FHIR base and name ({added.get('fhirBase')}, {added.get('name')})")
        p = s.run("providers", "add", "--brands", url, "--brand", "Nobody", "--client-id", "c", "--allow-loopback")
        check(p.returncode == 1 and "no brand" in p.stderr, f"an unknown brand is refused (exit {p.returncode})", short(p.stderr))
    finally:
        s.close()


SCENARIOS = [
    ("plain", plain),
    ("everything", complete_with("everything", ["--everything"], everything_checks)),
    ("relative-next", complete_with("relative-next", ["--relative-next"], relative_checks)),
    ("loop-next", loop_next),
    ("require-category", complete_with("require-category", ["--require-category"], category_checks)),
    ("throttle", complete_with("throttle", ["--throttle", "/fhir/Observation=2", "--throttle", "/fhir/Condition=1"],
                               retry_after_checks(["/fhir/Observation", "/fhir/Condition"]))),
    ("server-errors", complete_with("server-errors", ["--fail", "/fhir/Observation=500,504", "--fail", "/fhir/Condition=504,504,500"],
                                    error_burst_checks({"/fhir/Observation": [500, 504], "/fhir/Condition": [504, 504, 500]}))),
    ("foreign-next", foreign_next),
    ("hostile", hostile([], "hostile")),
    ("hostile-everything", hostile(["--everything"], "hostile-everything")),
    ("mid-sync-expiry", mid_sync_expiry),
    ("invalid-grant", invalid_grant),
    ("public-no-refresh", public_no_refresh),
    ("deny", refused_connect("deny", ["--deny"], ("denied", "access_denied"))),
    ("state-mismatch", refused_connect("state-mismatch", ["--wrong-state"], ("state",))),
    ("connect-timeout", connect_timeout),
    ("brands", brands),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "provider-quirks-test"))
    ap.add_argument("--only", help="comma-separated scenario names")
    a = ap.parse_args()
    cli = os.path.abspath(a.cli)
    os.makedirs(a.out, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    unknown = (only or set()) - {n for n, _ in SCENARIOS}
    if unknown:
        sys.exit(f"unknown scenarios: {sorted(unknown)}")
    print(f"Provider quirks test: {cli}; outputs in {a.out}", flush=True)
    for name, fn in SCENARIOS:
        if only and name not in only:
            continue
        try:
            fn(cli, a.out)
        except Abort as e:
            print(f"  (scenario {name} stopped: {e})", flush=True)
        except Exception as e:
            traceback.print_exc()
            check(False, f"{name}: {type(e).__name__}: {e}")
    print(f"\nProvider quirks test: {results['ok']} checks passed, {results['fail']} failed", flush=True)
    for f in results["failed"]:
        print(f"  FAILED {f}")
    sys.exit(1 if results["fail"] else 0)


if __name__ == "__main__":
    main()
