#!/usr/bin/env python3
"""HealthRecords as the provider of HealthRecords: a real SMART sign-in between two instances.

Instance A: a store with one imported Synthea patient, a public SMART app registered for B
(`apps register … --redirect-uri http://127.0.0.1/callback --public`, a port-less loopback
redirect that matches any port, RFC 8252 §7.3) and `healthrecords serve --token-lifetime 8` (--token-lifetime N to change it).
Instance B: another store; `providers add --fhir-base http://127.0.0.1:A/fhir --client-id <B's
app on A> --allow-loopback --scope "launch/patient openid fhirUser offline_access patient/*.rs"`,
`providers connect` (the person signs in to A and approves the consent page in headless Chromium
with selenium; A redirects to B's loopback listener), then `sync --json`.

Checks: B holds exactly what A serves at /fhir for every type B fetched (compared by content with
what a second app, "Checker", reads from A with its own token), every US Core type A holds was
fetched, the Patient came too; after the access token's lifetime a sync still works (A answers
expired tokens 401, so B refreshed: A's request log shows the 401 and the POST /token); after
`healthrecords apps revoke` on A the next sync fails, B's provider shows `needs-sign-in`, and no
record was deleted.

Usage: Scripts/provider-signin-test.py --cli .build/debug/healthrecords --out .build/provider-signin-test [--postgres URL]
Prints `ok  …` per check; exits 1 at the first failure (a few counting checks only print FAIL,
go on, and make the exit 1 at the end).
"""
import argparse, base64, datetime, glob, hashlib, http.server, json, os, queue, secrets, shutil, sqlite3, subprocess, sys, tempfile, threading, time, traceback
import urllib.parse

import requests
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYNTHEA = os.path.join(os.path.dirname(ROOT), "shared", "data", "fhir", "synthea")
PATIENT_FILE = "Karena_Pfeffer_*.json"
PROVIDER_ID = "instance-a"
SCOPE = "launch/patient openid fhirUser offline_access patient/*.rs"
TOKEN_LIFETIME = 8  # --token-lifetime
US_CORE = {"AllergyIntolerance", "CarePlan", "CareTeam", "Condition", "Coverage", "Device", "DiagnosticReport", "DocumentReference",
           "Encounter", "Goal", "Immunization", "MedicationDispense", "MedicationRequest", "Observation", "Procedure",
           "QuestionnaireResponse", "ServiceRequest", "Specimen", "RelatedPerson"}
checks = []


class Failure(Exception):
    pass


soft_failures = []


def check(condition, what, detail=None, fatal=True):
    """A failed check ends the test, unless `fatal` is False: then it is printed, the test goes on and exits 1 at the end."""
    if not condition:
        if fatal:
            raise Failure(what + (f"\n    {detail}" if detail else ""))
        soft_failures.append(what)
        print(f"  FAIL  {what}" + (f"\n    {detail}" if detail else ""), flush=True)
        return
    checks.append(what)
    print(f"  ok  {what}", flush=True)


def short(text, n=800):
    text = (text or "").strip()
    return text if len(text) <= n else text[:n] + f"… ({len(text)} chars)"


class Instance:
    """One healthrecords store and the CLI run on it."""

    def __init__(self, name, cli, work, postgres, out):
        self.name, self.cli = name, cli
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HEALTHRECORDS_")}
        if postgres:
            self.sqlite = None
            self.store_args = ["--postgres", f"{postgres}?person=provider-signin-{name}-{os.getpid()}-{int(time.time())}"]
        else:
            self.sqlite = os.path.join(work, f"{name}.sqlite")
            self.store_args = ["--store", self.sqlite]
        self.transcript = open(os.path.join(out, f"cli-{name}.txt"), "w")

    def run(self, *args, ok=True, timeout=180):
        cmd = [self.cli, *args, *self.store_args]
        start = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=timeout)
        self.transcript.write(f"$ {' '.join(cmd)}\n(exit {p.returncode}, {time.time() - start:.1f} s)\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}\n\n")
        self.transcript.flush()
        if ok and p.returncode != 0:
            raise Failure(f"[{self.name}] healthrecords {' '.join(args)} failed (exit {p.returncode}): {short(p.stderr) or short(p.stdout)}")
        return p


# MARK: the person's browser and a checker app on A

def pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


class Callback(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>checker</title><p>back at the checker"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def consent(driver, url, callback_prefix, out):
    """Opens an authorize URL signed in, allows every category offered, shares new data; returns the callback URL reached."""
    driver.get(url)
    if not driver.current_url.startswith(callback_prefix):
        boxes = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=allow]")
        if not boxes:
            raise Failure(f"no consent sheet at {driver.current_url} (page {driver.title!r}) for {url}")
        for b in boxes:
            if not b.is_selected():
                b.click()
        radio = driver.find_elements(By.CSS_SELECTOR, "input[type=radio][name=newData][value=share]")
        if radio:
            radio[0].click()
        driver.save_screenshot(os.path.join(out, "consent.png"))
        driver.find_element(By.ID, "submit").click()
        WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(callback_prefix))
    return driver.current_url


def checker_token(driver, base, app_id, callback, out):
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(16)
    url = base + "/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": app_id, "redirect_uri": callback, "scope": "launch/patient patient/*.rs", "state": state,
        "aud": base + "/fhir", "code_challenge": challenge, "code_challenge_method": "S256"})
    back = consent(driver, url, callback, out)
    q = query_of(back)
    if q.get("state") != state or "code" not in q:
        raise Failure(f"the checker's consent did not return a code: {back}")
    r = requests.post(base + "/token", data={"grant_type": "authorization_code", "code": q["code"], "redirect_uri": callback,
                                             "client_id": app_id, "code_verifier": verifier}, timeout=30)
    if r.status_code != 200:
        raise Failure(f"the checker's code exchange failed: {r.status_code} {r.text}")
    return r.json()


def served_by_a(fhir, token, patient, kinds, everything):
    """Everything A serves the checker: Patient/$everything, or these types searched by patient: {(type, id): resource}."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/fhir+json"}
    found = {}
    r = requests.get(f"{fhir}/Patient/{patient}", headers=headers, timeout=30)
    if r.status_code != 200:
        raise Failure(f"the checker cannot read Patient/{patient} from A: {r.status_code} {r.text[:200]}")
    found[("Patient", patient)] = r.json()
    searches = [(f"{fhir}/Patient/{patient}/$everything", {"_count": "100"})] if everything else \
        [(f"{fhir}/{kind}", {"patient": patient, "_count": "100"}) for kind in sorted(kinds - {"Patient"})]
    for url, params in searches:
        kind = url.rsplit("/", 1)[-1]
        while url:
            r = requests.get(url, headers=headers, params=params, timeout=30)
            if r.status_code != 200:
                raise Failure(f"the checker's search {kind} on A answered {r.status_code}: {r.text[:200]}")
            bundle = r.json()
            for e in bundle.get("entry", []):
                res = e["resource"]
                found[(res["resourceType"], res["id"])] = res
            url, params = next((l["url"] for l in bundle.get("link", []) if l["relation"] == "next"), None), None
    return found


def start_serve(cli, a, token_file, log_path):
    server = subprocess.Popen([cli, "serve", "--port", "0", "--person-token-file", token_file, "--rate-limit", "1000", "--log-level", "info",
                               "--token-lifetime", str(TOKEN_LIFETIME), *a.store_args], stdout=subprocess.PIPE, stderr=open(log_path, "w"),
                              text=True, env=a.env)
    base = sign_in = None
    deadline = time.time() + 60
    while time.time() < deadline and not (base and sign_in):
        line = server.stdout.readline()
        if not line:
            break
        if line.startswith("Listening on "):
            base = line.split()[-1]
        if line.startswith("Person's pages: "):
            sign_in = line.split()[-1]
    if not (base and sign_in):
        server.terminate()
        raise Failure("A's server did not start (no 'Listening on' and 'Person's pages' lines)")
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    return server, base, sign_in


def a_requests(log_path, since):
    """A's request log lines (JSON, level info) from `since` on: (time, method, route, status)."""
    out = []
    for line in open(log_path):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("message") != "request":
            continue
        t = datetime.datetime.fromisoformat(e["time"].replace("Z", "+00:00")).timestamp()
        if t >= since - 0.01:
            out.append((t, e.get("method"), e.get("route"), e.get("status")))
    return out


# MARK: B's side

def connect_b(b, driver, out):
    """Runs `providers connect` on B; the person signs in to A in the browser. Returns (exit, stdout, stderr, url, callback reached)."""
    cmd = [b.cli, "providers", "connect", PROVIDER_ID, "--timeout", "120", *b.store_args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=b.env)
    lines, errs = queue.Queue(), []
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] + [lines.put(None)], daemon=True).start()
    threading.Thread(target=lambda: errs.extend(proc.stderr), daemon=True).start()
    got, url = [], None
    deadline = time.time() + 30
    while url is None and time.time() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if line is None:
            break
        got.append(line)
        if line.startswith("Open this address to sign in: "):
            url = line[len("Open this address to sign in: "):].strip()
    reached = None
    if url:
        redirect = query_of(url).get("redirect_uri", "")
        try:
            reached = consent(driver, url, redirect, out)
        except Exception as e:
            reached = f"(browser: {type(e).__name__}: {e}; at {driver.current_url})"
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    time.sleep(0.1)
    while not lines.empty():
        line = lines.get()
        if line:
            got.append(line)
    stdout, stderr = "".join(got), "".join(errs)
    b.transcript.write(f"$ {' '.join(cmd)}\n(exit {proc.returncode})\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n\n")
    b.transcript.flush()
    return proc.returncode, stdout, stderr, url, reached


def sync_b(b):
    p = b.run("sync", PROVIDER_ID, "--json", ok=False)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        raise Failure(f"sync --json did not print JSON (exit {p.returncode}): {short(p.stdout)} {short(p.stderr)}")
    mine = [x for x in doc.get("providers", []) if x.get("id") == PROVIDER_ID]
    if len(mine) != 1:
        raise Failure(f"the sync JSON has no single entry for {PROVIDER_ID}: {short(p.stdout)}")
    return p.returncode, mine[0], p


def provider_status(b):
    p = b.run("providers", "list", "--json")
    doc = json.loads(p.stdout)
    items = doc if isinstance(doc, list) else doc.get("providers", [])
    mine = [x for x in items if x.get("id") == PROVIDER_ID]
    return mine[0] if mine else None


def stored_in_b(b, wanted):
    """B's records of the provider's source: {(type, id): resource}. SQLite: the `resource` table
    itself; PostgreSQL: `records --source` and `show` for the rest of `wanted`."""
    source = f"provider:{PROVIDER_ID}"
    found = {}
    if b.sqlite:
        db = sqlite3.connect(f"file:{b.sqlite}?mode=ro", uri=True)
        try:
            ids = [sid for sid, ident in db.execute("SELECT id, identifier FROM source")
                   if (bytes(ident).decode() if isinstance(ident, bytes) else ident) == source]
            if len(ids) != 1:
                raise Failure(f"B's store has {len(ids)} sources named {source}")
            rows = db.execute("SELECT resource_type, resource_id, data FROM resource WHERE source_id = ?", ids).fetchall()
        finally:
            db.close()
        for kind, rid, data in rows:
            rid = bytes(rid).decode() if isinstance(rid, bytes) else rid
            if (kind, rid) in found:
                raise Failure(f"{kind}/{rid} is stored twice in B")
            found[(kind, rid)] = json.loads(bytes(data))
        return found
    listed = json.loads(b.run("records", "--source", source, "--json").stdout)
    for r in listed:
        found[(r["resourceType"], r["id"])] = r["resource"]
    for kind, rid in sorted(set(wanted) - set(found)):
        p = b.run("show", "--source", source, "--resource-type", kind, "--id", rid, "--json", ok=False)
        if p.returncode == 0:
            doc = json.loads(p.stdout)
            found[(kind, rid)] = doc.get("resource", doc)
    return found


def main():
    global TOKEN_LIFETIME
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "provider-signin-test"))
    ap.add_argument("--postgres", help="a PostgreSQL server URL: both instances' stores are new persons there")
    ap.add_argument("--token-lifetime", type=int, default=TOKEN_LIFETIME, help="A's access-token lifetime in seconds (`serve --token-lifetime`)")
    a = ap.parse_args()
    TOKEN_LIFETIME = a.token_lifetime
    cli = os.path.abspath(a.cli)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="healthrecords-provider-signin-")
    print(f"Provider sign-in test on {'PostgreSQL' if a.postgres else 'SQLite'}: {cli}", flush=True)
    server = driver = callback_server = None
    A = Instance("a", cli, work, a.postgres, a.out)
    B = Instance("b", cli, work, a.postgres, a.out)
    a_log = os.path.join(a.out, "a-server-log.jsonl")
    try:
        files = glob.glob(os.path.join(SYNTHEA, PATIENT_FILE))
        check(len(files) == 1, f"the Synthea patient {os.path.basename(files[0]) if files else PATIENT_FILE}")
        A.run("import", files[0])

        callback_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Callback)
        threading.Thread(target=callback_server.serve_forever, daemon=True).start()
        checker_callback = f"http://127.0.0.1:{callback_server.server_address[1]}/callback"

        def register(name, redirect):
            out = json.loads(A.run("apps", "register", "--name", name, "--purpose", "Keeps a copy of your records.", "--privacy-url",
                                   "https://example.org/privacy", "--redirect-uri", redirect, "--public", "--json").stdout)
            check(out.get("appId") and not out.get("secret"), f"A: {name} registered as a public client ({redirect})")
            return out["appId"]
        app_b = register("HealthRecords B", "http://127.0.0.1/callback")
        app_checker = register("Checker", checker_callback)

        token_file = os.path.join(work, "person.token")
        with open(token_file, "w") as f:
            f.write("provider-signin-person-token-0123456789")
        server, base, sign_in = start_serve(cli, A, token_file, a_log)
        fhir = base + "/fhir"
        check(True, f"A serves at {base} (access tokens last {TOKEN_LIFETIME} s)")

        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            options.add_argument(arg)
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(30)
        driver.get(sign_in)
        check("/login" not in driver.current_url, "the person signs in to A's pages")

        p = B.run("providers", "add", "--fhir-base", fhir, "--id", PROVIDER_ID, "--name", "Instance A", "--client-id", app_b,
                  "--allow-loopback", "--scope", SCOPE, ok=False)
        check(p.returncode == 0 and PROVIDER_ID in p.stdout, f"B: providers add prints {PROVIDER_ID}", f"exit {p.returncode}: {short(p.stdout)} {short(p.stderr)}")
        st = provider_status(B)
        check(st and st.get("status") == "not-connected", f"B: providers list shows {PROVIDER_ID} not-connected ({st})")

        rc, out, err, url, reached = connect_b(B, driver, a.out)
        check(url is not None, "B: providers connect prints the sign-in address", f"stdout {short(out)!r} stderr {short(err)!r}")
        q = query_of(url)
        redirect = urllib.parse.urlsplit(q.get("redirect_uri", ""))
        check(url.startswith(base + "/authorize?") and q.get("client_id") == app_b and q.get("aud") == fhir and q.get("scope") == SCOPE
              and q.get("code_challenge_method") == "S256", f"B's authorize URL: A's /authorize, B's client id, aud {q.get('aud')}, scope {q.get('scope')!r}, S256")
        check(redirect.hostname == "127.0.0.1" and redirect.port and redirect.path == "/callback",
              f"B's redirect_uri {q.get('redirect_uri')} (a port on the registered port-less loopback redirect)")
        check(isinstance(reached, str) and reached.startswith(q.get("redirect_uri", "-")) and "code=" in reached,
              f"after consent A redirected the browser to B's listener with a code", f"browser ended at {reached}")
        check(rc == 0, "B: providers connect exits 0", f"exit {rc}; stdout {short(out)!r}; stderr {short(err)!r}")
        st = provider_status(B)
        check(st and st.get("status") == "connected", f"B: providers list shows connected ({st and st.get('status')})")

        t_sync = time.time()
        rc, sync, p = sync_b(B)
        check(rc == 0 and sync.get("mode") == "full", f"B: first sync exits 0, full ({sync.get('status')}, inserted {sync.get('inserted')})",
              f"exit {rc}: {short(p.stdout)} {short(p.stderr)}")
        # Steps are keyed by search ("Observation?category=laboratory"); "$everything" fetches every type.
        fetched_types = {t["type"].split("?")[0] for t in sync.get("types") or [] if t.get("type")}
        fetched_summary = ", ".join(f"{t.get('type')} {t.get('resources')}" for t in sync.get("types") or [])
        print(f"  info  B fetched: {fetched_summary}")

        # What A serves, read by the checker app with its own token.
        tok = checker_token(driver, base, app_checker, checker_callback, a.out)
        patient = tok.get("patient")
        check(patient, f"the checker app's token names A's patient ({patient})")
        cap = requests.get(fhir + "/metadata", timeout=30).json()
        a_types = {r["type"] for r in cap["rest"][0].get("resource", []) if any(sp.get("name") == "patient" for sp in r.get("searchParam", []))}
        a_served = served_by_a(fhir, tok["access_token"], patient, a_types, "$everything" in fetched_types)
        a_kinds = {k for k, _ in a_served}
        missing_types = [] if "$everything" in fetched_types else sorted((a_kinds & US_CORE) - fetched_types)
        check(not missing_types, f"B fetched every US Core type A serves records of ({', '.join(sorted(a_kinds & US_CORE))})", f"not fetched: {missing_types}")
        expected = {k: v for k, v in a_served.items() if k[0] in fetched_types or k[0] == "Patient" or "$everything" in fetched_types}
        stored = stored_in_b(B, expected)
        missing = sorted(set(expected) - set(stored))
        check(not missing, f"B holds all {len(expected)} records A serves of the types fetched", f"{len(missing)} missing, e.g. {missing[:3]}")
        extra = sorted(set(stored) - set(a_served))
        check(not extra, f"B holds nothing A does not serve ({len(stored)} records)", f"e.g. {extra[:3]}")
        differ = sorted(k for k in expected if k in stored and stored[k] != expected[k])
        detail = None
        if differ:
            s, e = stored[differ[0]], expected[differ[0]]
            keys = sorted(k for k in set(s) | set(e) if s.get(k) != e.get(k))
            detail = f"{len(differ)} differ, e.g. {differ[0]} in members {keys}: B {short(json.dumps({k: s.get(k) for k in keys}), 300)} A {short(json.dumps({k: e.get(k) for k in keys}), 300)}"
        check(not differ, "every record in B is the same JSON as A serves it", detail)
        check(("Patient", patient) in stored, f"B holds the provider's Patient/{patient}")
        check(sync.get("inserted") == len(stored), f"the sync JSON's inserted ({sync.get('inserted')}) equals the records stored ({len(stored)})", fatal=False)

        print(f"refresh (waiting {TOKEN_LIFETIME + 1} s for the access token to expire):", flush=True)
        time.sleep(TOKEN_LIFETIME + 1)
        r = requests.get(f"{fhir}/Patient/{patient}", headers={"Authorization": f"Bearer {tok['access_token']}"}, timeout=30)
        check(r.status_code == 401, f"A refuses an access token older than {TOKEN_LIFETIME} s (the checker's: {r.status_code})")
        t_refresh = time.time()
        rc, sync2, p = sync_b(B)
        check(rc == 0 and sync2.get("mode") == "incremental" and sync2.get("deleted", 0) == 0,
              f"B: a sync after the expiry exits 0, incremental, nothing deleted ({sync2.get('status')})", f"exit {rc}: {short(p.stdout)} {short(p.stderr)}")
        check(sync2.get("inserted") == 0 and sync2.get("updated") == 0,
              f"…and nothing counted new or changed (inserted {sync2.get('inserted')}, updated {sync2.get('updated')}, unchanged {sync2.get('unchanged')})", fatal=False)
        time.sleep(0.5)
        seen = a_requests(a_log, t_refresh)
        token_posts = [x for x in seen if x[2] == "/token"]
        check(any(x[1] == "POST" and x[3] == "200" for x in token_posts), f"A's log: B refreshed at POST /token ({[x[3] for x in token_posts]})")

        print("revocation on A:", flush=True)
        before = len(stored_in_b(B, expected))
        out = A.run("apps", "revoke", app_b).stdout
        check("revoked" in out, f"A: apps revoke {app_b}: {out.strip()}")
        t_rev = time.time()
        rc, sync3, p = sync_b(B)
        err3 = sync3.get("error") or {}
        check(rc == 1 and err3.get("code") and err3.get("message"), f"B: the sync after revocation exits 1 with an error ({err3})",
              f"exit {rc}: {short(p.stdout)} {short(p.stderr)}")
        st = provider_status(B)
        check(st and st.get("status") == "needs-sign-in", f"B: providers list shows needs-sign-in ({st and st.get('status')})", str(st))
        after = stored_in_b(B, expected)
        check(len(after) == before and sync3.get("deleted", 0) == 0, f"B deleted nothing ({len(after)} of {before} records kept)")
        print(f"  info  A saw after the revocation: {[(m, r_, s) for _, m, r_, s in a_requests(a_log, t_rev)][:8]}")
        if soft_failures:
            raise Failure(f"{len(soft_failures)} checks failed: " + "; ".join(soft_failures))
        print(f"Provider sign-in test passed: {len(checks)} checks", flush=True)
    except Failure as e:
        print(f"Provider sign-in test FAILED: {e}", file=sys.stderr, flush=True)
        if driver:
            try:
                driver.save_screenshot(os.path.join(a.out, "failure.png"))
                print(f"  (browser at {driver.current_url}; screenshot {os.path.join(a.out, 'failure.png')}; CLI transcripts in {a.out})", file=sys.stderr)
            except Exception:
                pass
        sys.exit(1)
    except Exception as e:
        traceback.print_exc()
        print(f"Provider sign-in test FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
    finally:
        if driver:
            driver.quit()
        if server:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
        if callback_server:
            callback_server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
