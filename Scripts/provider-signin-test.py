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

Stage "page" (the server's "Connect a provider" pages): A registers a second public app with the
redirect URI `http://127.0.0.1:<B port>/providers/callback` (the port chosen before B starts);
B is `healthrecords serve --allow-loopback-providers --sync-interval 3600` on a new store. In the
browser (JavaScript off) the person signs in to B, opens /providers, fills the form (A's /fhir,
name, client id) and submits; A asks for its sign-in (both instances share the `hr_session`
cookie on 127.0.0.1, so each asks again after the other), the consent page is approved, and B
(after its own sign-in again) shows the "Connected" notice. Then: B's page and `providers list
--json` (beside the running server) show connected with a finished sync; B's store holds exactly
what A serves the checker; "Sync now" shows its notice and changes no record; a wrong state, the
finished sign-in's state, and a denied sign-in at /providers/callback answer 400 with #error and
change nothing (no request to A's /token); forms without the CSRF field are refused (403); without
the session GET redirects to /login and POST is 403; the pages fit 375 px; "Remove" keeps the
records. Screenshots at 375 px go to --out (providers-*.png, a-consent-for-b-pages-375.png).

Usage: Scripts/provider-signin-test.py --cli .build/debug/healthrecords --out .build/provider-signin-test [--postgres URL] [--stages cli,page]
Prints `ok  …` per check; exits 1 at the first failure (a few counting checks only print FAIL,
go on, and make the exit 1 at the end).
"""
import argparse, base64, datetime, glob, hashlib, http.server, json, os, queue, re, secrets, shutil, socket, sqlite3, subprocess, sys, tempfile, threading, time, traceback
import urllib.parse

import requests
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import Callback  # noqa: E402

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


# Both instances run on 127.0.0.1 and name their session cookie `hr_session`; cookies ignore
# ports, so the browser holds one session at a time and the other instance asks it to sign in
# again. The person's token of each instance, by origin:
PERSON_TOKENS = {}


def origin_of(url):
    u = urllib.parse.urlsplit(url)
    return f"{u.scheme}://{u.netloc}"


def sign_in_if_asked(driver):
    """On an instance's /login page, enters that instance's person token; returns the origin signed in to, or None."""
    url = driver.current_url
    origin = origin_of(url)
    if urllib.parse.urlsplit(url).path != "/login" or origin not in PERSON_TOKENS:
        return None
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, "token").send_keys(PERSON_TOKENS[origin])
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]").click()
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "html").id != old.id)
    if urllib.parse.urlsplit(driver.current_url).path == "/login":
        raise Failure(f"signing in at {url} with the person's token failed: {short(driver.find_element(By.TAG_NAME, 'body').text, 300)}")
    return origin


def consent(driver, url, callback_prefix, out):
    """Opens an authorize URL signed in, allows every category offered, shares new data; returns the callback URL reached."""
    driver.get(url)
    sign_in_if_asked(driver)
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


def start_serve(cli, a, token_file, log_path, port=0, extra=()):
    server = subprocess.Popen([cli, "serve", "--port", str(port), "--person-token-file", token_file, "--rate-limit", "1000", "--log-level", "info",
                               "--token-lifetime", str(TOKEN_LIFETIME), *extra, *a.store_args], stdout=subprocess.PIPE, stderr=open(log_path, "w"),
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
            # The token came from a file, so serve prints the sign-in page without it.
            sign_in = line.split()[-1] + "?token=" + open(token_file).read().strip()
    if not (base and sign_in):
        server.terminate()
        raise Failure(f"[{a.name}] the server did not start (no 'Listening on' and 'Person's pages' lines; log {log_path})")
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


# MARK: the server's "Connect a provider" pages (B as `healthrecords serve --allow-loopback-providers`)

PAGE_NOTICES = {"connected": "Connected. Your records are downloading", "sync-started": "Sync started.", "removed": "Removed. The records it brought stay."}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fits(driver, width=375):
    """Whether the page has no horizontal overflow at this width; else the widest elements."""
    driver.set_window_size(width, 900)
    time.sleep(0.2)
    ok = driver.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    if ok:
        return True, ""
    wide = driver.execute_script("""
        const w = document.documentElement.clientWidth, out = [];
        for (const e of document.querySelectorAll('body *')) { const r = e.getBoundingClientRect();
          if (r.right > w + 0.5) out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '') + ' right=' + Math.round(r.right)); }
        return 'clientWidth ' + w + ', scrollWidth ' + document.documentElement.scrollWidth + ': ' + out.slice(0, 6).join(', ');""")
    return False, wide


def phone_screenshot(driver, path, width=375):
    driver.set_window_size(width, 900)
    height, bars = driver.execute_script("return [document.documentElement.scrollHeight, window.outerHeight - window.innerHeight]")
    driver.set_window_size(width, min(max(height, 600), 2400) + bars)
    time.sleep(0.2)
    driver.save_screenshot(path)
    driver.set_window_size(1200, 900)


def dangling(text):
    """Separators with nothing after them in a provider row (a template section shown for an empty value)."""
    return [line for line in (text or "").splitlines() if re.search(r"(:|·)\s*$", line)]


def narrow_fields(driver):
    """The add form's text fields narrower than 90 % of the form at the current width: [(id, field px, form px)]."""
    return driver.execute_script("""
        const form = document.querySelector('form[action="/providers"]'); if (!form) return [['no form', 0, 0]];
        const cs = getComputedStyle(form), inner = form.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        return ['fhirBase', 'providerName', 'clientId', 'clientSecret'].map(id => [id, Math.round(document.getElementById(id).getBoundingClientRect().width), Math.round(inner)])
          .filter(x => x[1] < 0.9 * x[2]);""")


def open_page(driver, url):
    """Opens a page, signing in first when the instance asks (the other instance's sign-in replaced the shared cookie)."""
    driver.get(url)
    if sign_in_if_asked(driver) and urllib.parse.urlsplit(driver.current_url).path != urllib.parse.urlsplit(url).path:
        driver.get(url)


def page_text(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return found[0].text.strip() if found else None


def clicked(driver, element_id, until, timeout=30):
    """Clicks a (submit) button and waits for a new page satisfying `until(driver)`."""
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, element_id).click()
    WebDriverWait(driver, timeout).until(lambda d: d.find_element(By.TAG_NAME, "html").id != old.id and until(d))


def html_error(text):
    m = re.search(r'id="error"[^>]*>(.*?)</p>', text or "", re.S)
    return m.group(1).strip() if m else None


def csrf_of(text):
    m = re.search(r'name="csrf" value="([^"]+)"', text or "")
    return m.group(1) if m else None


def row_text(driver):
    rows = driver.find_elements(By.ID, f"provider-{PROVIDER_ID}")
    return rows[0].text if rows else None


def poll_page_until_synced(driver, b_base, since_last_sync=None, timeout=180):
    """Reloads B's /providers until the provider is connected, has a last sync (other than
    `since_last_sync`'s text) and is not syncing; returns the row's text."""
    deadline = time.time() + timeout
    text = None
    while time.time() < deadline:
        open_page(driver, b_base + "/providers")
        text = row_text(driver) or ""
        status = driver.find_elements(By.CSS_SELECTOR, f"#provider-{PROVIDER_ID} .status-connected")
        last = re.search(r"Last sync: ([^·\n]+)", text)
        if "last sync failed" in text:
            raise Failure(f"B's /providers shows a failed sync: {text!r}")
        if status and last and last.group(1).strip() != "never" and "syncing now" not in text and "downloaded" in text \
                and (since_last_sync is None or text != since_last_sync):
            return text
        time.sleep(1)
    raise Failure(f"B's /providers did not show {PROVIDER_ID} connected with a finished sync within {timeout} s; last row text: {text!r}; "
                  f"page: {short(driver.find_element(By.TAG_NAME, 'body').text, 600)}")


def expected_from_a(driver, base, fhir, app_checker, checker_callback, out):
    """What A serves the checker app: $everything when A's CapabilityStatement offers it (as B's sync uses it), else the US Core types searched."""
    tok = checker_token(driver, base, app_checker, checker_callback, out)
    cap = requests.get(fhir + "/metadata", timeout=30).json()
    resources = cap["rest"][0].get("resource", [])
    everything = any(op.get("name") == "everything" for r in resources if r.get("type") == "Patient" for op in r.get("operation", []))
    a_types = {r["type"] for r in resources if any(sp.get("name") == "patient" for sp in r.get("searchParam", []))}
    return tok.get("patient"), served_by_a(fhir, tok["access_token"], tok.get("patient"), a_types, everything)


def b_session(b_base, b_sign_in):
    """A second signed-in session on B (plain HTTP, for statuses the browser does not show) and its CSRF token."""
    s = requests.Session()
    r = s.get(b_sign_in, allow_redirects=False, timeout=30)
    if r.status_code not in (302, 303) or "hr_session" not in s.cookies:
        raise Failure(f"signing in to B with requests: GET /login?token=… answered {r.status_code} {dict(r.headers)}")
    r = s.get(b_base + "/providers", allow_redirects=False, timeout=30)
    token = csrf_of(r.text)
    if r.status_code != 200 or not token:
        raise Failure(f"B's /providers for a signed-in session answered {r.status_code} without a csrf field: {short(r.text, 300)}")
    return s, token


def page_stage(cli, A, base, fhir, a_log, driver, work, out, postgres, app_checker, checker_callback):
    print("the server's provider pages (B as `serve --allow-loopback-providers`):", flush=True)
    P = Instance("bpage", cli, work, postgres, out)
    b_port = free_port()
    b_base = f"http://127.0.0.1:{b_port}"
    callback = b_base + "/providers/callback"
    app = json.loads(A.run("apps", "register", "--name", "HealthRecords B pages", "--purpose", "Keeps a copy of your records.", "--privacy-url",
                           "https://example.org/privacy", "--redirect-uri", callback, "--public", "--json").stdout)
    check(app.get("appId") and not app.get("secret"), f"A: HealthRecords B pages registered as a public client ({callback})")
    app_id = app["appId"]

    token_file = os.path.join(work, "person-b.token")
    b_token = "provider-page-person-token-b-9876543210"
    with open(token_file, "w") as f:
        f.write(b_token)
    b_log = os.path.join(out, "b-page-server-log.jsonl")
    server, got_base, b_sign_in = start_serve(cli, P, token_file, b_log, port=b_port, extra=("--allow-loopback-providers", "--sync-interval", "3600"))
    try:
        check(got_base == b_base, f"B serves at {b_base} (the port fixed before A registered the redirect URI)", f"B printed {got_base}")
        PERSON_TOKENS[b_base] = b_token

        # Attack checks first, on the empty list.
        anon = requests.Session()
        r = anon.get(b_base + "/providers", allow_redirects=False, timeout=30)
        check(r.status_code in (302, 303) and r.headers.get("Location", "").startswith("/login"),
              f"GET /providers without the person's session: {r.status_code} to {r.headers.get('Location')}", short(r.text, 300))
        r = anon.post(b_base + "/providers", data={"fhirBase": fhir, "name": "Forged", "clientId": app_id}, allow_redirects=False, timeout=30)
        check(r.status_code == 403, f"POST /providers without the person's session is refused ({r.status_code})", short(r.text, 300))
        r = anon.get(callback + "?code=x&state=y", allow_redirects=False, timeout=30)
        check(r.status_code in (302, 303) and r.headers.get("Location", "").startswith("/login"),
              f"GET /providers/callback without the person's session: {r.status_code} to {r.headers.get('Location')}", short(r.text, 300))
        s, csrf = b_session(b_base, b_sign_in)
        forged = {"fhirBase": fhir, "name": "Forged", "clientId": app_id}
        r = s.post(b_base + "/providers", data=forged, allow_redirects=False, timeout=30)
        check(r.status_code == 403, f"POST /providers without the CSRF field is refused ({r.status_code}: {short(re.sub('<[^>]+>', ' ', r.text), 120)})")
        r = s.post(b_base + "/providers", data={**forged, "csrf": "x" * len(csrf)}, allow_redirects=False, timeout=30)
        check(r.status_code == 403, f"POST /providers with a wrong CSRF token is refused ({r.status_code})")
        listed = json.loads(P.run("providers", "list", "--json").stdout)
        items = listed if isinstance(listed, list) else listed.get("providers", [])
        check(items == [], f"…and no provider was added ({[x.get('id') for x in items]})")

        # The person signs in to B and adds A.
        driver.set_window_size(1200, 900)
        driver.get(b_sign_in)
        check(urllib.parse.urlsplit(driver.current_url).path != "/login", f"the person signs in to B's pages ({driver.current_url})")
        driver.get(b_base + "/providers")
        check(driver.title.startswith("Providers"), f"B's /providers opens ({driver.title!r})")
        shown = page_text(driver, "redirect-uri")
        check(shown == callback, f"the page shows the redirect URI to register: {shown}")
        check("No providers yet" in driver.page_source, "the page says no providers yet")
        ok, why = fits(driver)
        check(ok, "the empty /providers page fits a 375 px screen", why, fatal=False)
        narrow = narrow_fields(driver)
        check(not narrow, "at 375 px the add form's fields span the form like the client-secret field", f"narrower (id, px, form px): {narrow}", fatal=False)
        phone_screenshot(driver, os.path.join(out, "providers-empty-375.png"))

        driver.find_element(By.ID, "fhirBase").send_keys(fhir)
        driver.find_element(By.ID, "providerName").send_keys("Instance A")
        driver.find_element(By.ID, "clientId").send_keys(app_id)
        clicked(driver, "add-provider", lambda d: d.current_url.startswith(base))
        landed = driver.current_url
        path = urllib.parse.urlsplit(landed).path
        authorize = landed if path == "/authorize" else base + query_of(landed).get("next", "") if path == "/login" else None
        check(authorize and urllib.parse.urlsplit(authorize).path == "/authorize",
              f"adding the provider sends the browser to A's {'sign-in page' if path == '/login' else 'authorize page'}", landed)
        q = query_of(authorize)
        check(q.get("client_id") == app_id and q.get("redirect_uri") == callback and q.get("aud") == fhir and q.get("code_challenge_method") == "S256"
              and q.get("code_challenge") and len(q.get("state", "")) >= 32 and q.get("response_type") == "code"
              and set(q.get("scope", "").split()) >= {"launch/patient", "offline_access"},
              f"the authorize URL: B pages' client id, redirect_uri {q.get('redirect_uri')}, aud {q.get('aud')}, S256, scope {q.get('scope')!r}", authorize)
        signed_state = q["state"]

        # A's sign-in (the shared cookie), consent, back to B (which may ask for its own sign-in again).
        steps, callback_seen = [], None
        deadline = time.time() + 90
        while time.time() < deadline:
            url = driver.current_url
            u = urllib.parse.urlsplit(url)
            if origin_of(url) == b_base and u.path == "/providers":
                break
            if u.path == "/login":
                if origin_of(url) == b_base:
                    callback_seen = b_base + query_of(url).get("next", "")
                steps.append(f"sign in at {origin_of(url)}")
                sign_in_if_asked(driver)
            elif origin_of(url) == base and u.path == "/authorize":
                boxes = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=allow]")
                if not boxes:
                    raise Failure(f"no consent sheet at {url}: {short(driver.find_element(By.TAG_NAME, 'body').text, 400)}")
                for bx in boxes:
                    if not bx.is_selected():
                        bx.click()
                radio = driver.find_elements(By.CSS_SELECTOR, "input[type=radio][name=newData][value=share]")
                if radio:
                    radio[0].click()
                phone_screenshot(driver, os.path.join(out, "a-consent-for-b-pages-375.png"))
                driver.set_window_size(1200, 900)
                steps.append(f"consent on A ({len(boxes)} categories)")
                r = s.get(b_base + "/providers", timeout=30)
                pending_row = re.sub(r"[ \t]+", " ", re.sub(r"<[^>]+>", "", (re.search(rf'id="provider-{PROVIDER_ID}"[^>]*>(.*?)</li>', r.text, re.S) or ["", ""])[1]))
                pending_row = "\n".join(l.strip() for l in pending_row.splitlines() if l.strip())
                check(r.status_code == 200 and "Not signed in" in pending_row and "Last sync: never" in pending_row,
                      f"while the person is at A, B's /providers lists {PROVIDER_ID} not signed in, never synced", pending_row)
                check(not dangling(pending_row), "…without separators followed by nothing", f"lines {dangling(pending_row)} in {pending_row!r}", fatal=False)
                clicked(driver, "submit", lambda d: True)
            else:
                raise Failure(f"the sign-in flow stopped at {url} (title {driver.title!r}): {short(driver.find_element(By.TAG_NAME, 'body').text, 600)}")
        print(f"  info  the browser's way: {' → '.join(steps)}", flush=True)
        end = driver.current_url
        notice = page_text(driver, "notice")
        check(origin_of(end) == b_base and urllib.parse.urlsplit(end).path == "/providers" and query_of(end).get("notice") == "connected"
              and notice and notice.startswith(PAGE_NOTICES["connected"]),
              f"back at B's /providers with the notice {notice!r}", f"at {end}; #error {page_text(driver, 'error')!r}; {short(driver.find_element(By.TAG_NAME, 'body').text, 600)}")
        phone_screenshot(driver, os.path.join(out, "providers-connected-375.png"))

        # The background sync: poll the page, and the CLI on the store the server holds open.
        t0 = time.time()
        row = poll_page_until_synced(driver, b_base)
        check(True, f"B's /providers shows {PROVIDER_ID} connected with a finished sync after {time.time() - t0:.1f} s: {' | '.join(row.splitlines()[:4])}")
        st = provider_status(P)
        check(st and st.get("status") == "connected" and st.get("lastSync") and st.get("lastFullSync") and st.get("patient"),
              f"`providers list --json` beside the running server: connected, lastSync {st and st.get('lastSync')}, patient {st and st.get('patient')}", str(st))
        check(not dangling(row), "the connected row has no separators followed by nothing", f"lines {dangling(row)} in {row!r}", fatal=False)
        ok, why = fits(driver)
        check(ok, "/providers with a connected provider fits a 375 px screen", why, fatal=False)
        phone_screenshot(driver, os.path.join(out, "providers-synced-375.png"))

        patient, a_served = expected_from_a(driver, base, fhir, app_checker, checker_callback, out)
        stored = stored_in_b(P, a_served)
        missing = sorted(set(a_served) - set(stored))
        check(not missing, f"B (pages) holds all {len(a_served)} records A serves", f"{len(missing)} missing, e.g. {missing[:3]}")
        extra = sorted(set(stored) - set(a_served))
        check(not extra, f"B (pages) holds nothing A does not serve ({len(stored)} records)", f"e.g. {extra[:3]}")
        differ = sorted(k for k in a_served if k in stored and stored[k] != a_served[k])
        check(not differ, "every record in B (pages) is the same JSON as A serves it", f"{len(differ)} differ, e.g. {differ[:3]}")
        check(("Patient", patient) in stored and st.get("patient") == patient, f"B (pages) holds the provider's Patient/{patient}")
        m = re.search(r"(\d+) downloaded, (\d+) new", row)
        check(m and int(m.group(2)) == len(stored), f"the page's last result counts {m and m.group(2)} new = {len(stored)} stored", row, fatal=False)

        # Sync now.
        open_page(driver, b_base + "/providers")
        before_row = row_text(driver)
        clicked(driver, f"sync-{PROVIDER_ID}", lambda d: "/providers" in d.current_url)
        notice = page_text(driver, "notice")
        check(query_of(driver.current_url).get("notice") == "sync-started" and notice == PAGE_NOTICES["sync-started"],
              f"“Sync now” answers with the notice {notice!r}", f"at {driver.current_url}; #error {page_text(driver, 'error')!r}")
        t_sync = st.get("lastSync")
        deadline = time.time() + 120
        while time.time() < deadline:
            st2 = provider_status(P)
            if st2 and st2.get("lastSync") != t_sync:
                break
            time.sleep(1)
        row2 = poll_page_until_synced(driver, b_base)
        check(st2.get("lastSync") != t_sync and st2.get("status") == "connected",
              f"the sync ran: lastSync {t_sync} → {st2.get('lastSync')}; the page: {' | '.join(row2.splitlines()[1:3])}", f"{st2}; before {before_row!r}")
        m = re.search(r"(\d+) downloaded, (\d+) new, (\d+) changed", row2)
        check(m and m.group(2) == "0" and m.group(3) == "0", f"…nothing new or changed ({m and m.group(0)})", row2, fatal=False)
        after = stored_in_b(P, a_served)
        check(after == stored, f"…and B's records are the same ({len(after)})")

        # Callbacks that must change nothing.
        def unchanged(label, t_from, no_token=True):
            st3 = provider_status(P)
            keys = ("status", "lastSync", "lastFullSync", "patient", "statusDetail")
            same = st3 and all(st3.get(k) == st2.get(k) for k in keys)
            time.sleep(0.3)
            tokens = [(m_, s_) for _, m_, r_, s_ in a_requests(a_log, t_from) if r_ == "/token"]
            now = stored_in_b(P, a_served)
            check(same and not (tokens and no_token) and now == stored, f"…{label} changed nothing (provider {st3 and st3.get('status')}, "
                  f"lastSync unchanged, {len(now)} records{', no request to A’s /token' if no_token else ''})",
                  f"before {[st2.get(k) for k in keys]} after {[st3 and st3.get(k) for k in keys]}; A's /token requests {tokens}", fatal=False)

        for label, state_value in (("a wrong state", secrets.token_urlsafe(32)), ("the used state of the finished sign-in", signed_state)):
            t_from = time.time()
            r = s.get(callback, params={"code": "forged-code", "state": state_value}, allow_redirects=False, timeout=30)
            err = html_error(r.text)
            check(r.status_code == 400 and err, f"/providers/callback with {label}: {r.status_code}, #error {err!r}",
                  f"Location {r.headers.get('Location')}; {short(re.sub('<[^>]+>', ' ', r.text), 400)}")
            unchanged(label, t_from)
        open_page(driver, callback + "?code=forged-code&state=" + secrets.token_urlsafe(32))
        err = page_text(driver, "error")
        check(err is not None and urllib.parse.urlsplit(driver.current_url).path == "/providers/callback", f"the browser shows the error on the page: {err!r}")
        ok, why = fits(driver)
        check(ok, "/providers with an error fits a 375 px screen", why, fatal=False)
        phone_screenshot(driver, os.path.join(out, "providers-error-375.png"))

        # A sign-in the person denies at the provider: the connection stays, the state answers once.
        r = s.post(f"{b_base}/providers/{PROVIDER_ID}/connect", data={"csrf": csrf}, allow_redirects=False, timeout=30)
        loc = r.headers.get("Location", "")
        check(r.status_code in (302, 303) and loc.startswith(base + "/authorize?"), f"“Sign in again” ({r.status_code}) sends to A's /authorize", f"{loc} {short(r.text, 300)}")
        state2 = query_of(loc).get("state")
        t_from = time.time()
        r = s.get(callback, params={"error": "access_denied", "error_description": "The person said no", "state": state2}, allow_redirects=False, timeout=30)
        err = html_error(r.text)
        check(r.status_code == 400 and err and "access_denied" in err, f"a denied sign-in: {r.status_code}, #error {err!r}", short(r.text, 300))
        unchanged("the denial", t_from)
        t_from = time.time()
        r = s.get(callback, params={"code": "forged-code", "state": state2}, allow_redirects=False, timeout=30)
        err = html_error(r.text)
        time.sleep(0.3)
        tokens = [(m_, s_) for _, m_, r_, s_ in a_requests(a_log, t_from) if r_ == "/token"]
        check(r.status_code == 400 and not tokens, f"the denied sign-in's state is not accepted again ({r.status_code}, #error {err!r}, A's /token requests {tokens})",
              "the pending sign-in outlives its callback: a second callback with the same state is taken to A's token endpoint", fatal=False)
        unchanged("a second callback with the denied state", t_from, no_token=False)

        # Forged forms on the connected provider.
        for action in ("sync", "remove", "connect"):
            r = s.post(f"{b_base}/providers/{PROVIDER_ID}/{action}", data={}, allow_redirects=False, timeout=30)
            check(r.status_code == 403, f"POST /providers/{PROVIDER_ID}/{action} without the CSRF field is refused ({r.status_code})")
        st4 = provider_status(P)
        check(st4 and st4.get("status") == "connected", f"…and {PROVIDER_ID} is still there, connected")

        # Remove (keep records).
        driver.set_window_size(1200, 900)
        open_page(driver, b_base + "/providers")
        clicked(driver, f"remove-{PROVIDER_ID}", lambda d: "/providers" in d.current_url)
        notice = page_text(driver, "notice")
        check(notice == PAGE_NOTICES["removed"] and row_text(driver) is None and provider_status(P) is None,
              f"“Remove” answers {notice!r}; the provider is gone from the page and the store", f"{driver.current_url} {row_text(driver)!r}")
        kept = stored_in_b(P, a_served)
        check(kept == stored, f"…and its {len(kept)} records stay")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    global TOKEN_LIFETIME
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "provider-signin-test"))
    ap.add_argument("--postgres", help="a PostgreSQL server URL: both instances' stores are new persons there")
    ap.add_argument("--token-lifetime", type=int, default=TOKEN_LIFETIME, help="A's access-token lifetime in seconds (`serve --token-lifetime`)")
    ap.add_argument("--stages", default="cli,page", help="cli (B's CLI signs in and syncs), page (B's server pages do), or both (default)")
    a = ap.parse_args()
    stages = set(a.stages.split(","))
    if not stages or stages - {"cli", "page"}:
        ap.error("--stages takes cli, page or cli,page")
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
        PERSON_TOKENS[base] = open(token_file).read()
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

        if "cli" in stages:
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
        if "page" in stages:
            page_stage(cli, A, base, fhir, a_log, driver, work, a.out, a.postgres, app_checker, checker_callback)
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
