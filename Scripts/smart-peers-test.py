#!/usr/bin/env python3
"""SMART on FHIR with clients no one here wrote: Python fhirclient and fhirpy from PyPI.

Starts `healthrecords serve` on a loopback port over a fresh store (the shared Synthea data, all
but one patient, whose records arrive later), registers public SMART apps with the CLI, and
checks what real peers see (the person's consent answered in Debian's chromium, headless,
JavaScript off):

1. Discovery: /fhir/metadata (read by fhirclient's own models, strictly) and both
   smart-configuration documents agree; the CapabilityStatement carries the oauth-uris extension.
2. fhirclient runs the whole standalone launch: its authorize URL (PKCE S256, aud = the FHIR
   base), consent in the browser (lab results and personal details on, the rest off), its
   handle_callback, the id_token verified against jwks_uri (joserfc), Patient read, a paged search
   through every lab result (each resource parsed strictly by fhirclient's models; count equal
   to the Bundle total and to what the CLI lists), refresh, revocation (next request 401) and a
   failed refresh after it.
3. fhirpy reads the same searches with the bearer token and gets the same ids.
4. Raw HTTP: wrong verifier, reused code, another client's code, redirect_uri mismatch at
   /authorize and /token, aud mismatch, `plain` and missing PKCE challenges, scope escalation on
   refresh, a spent refresh token (its family revoked), a denied category (empty searchset, 404
   on read), "ask before sharing new data" (records imported after approval stay absent until
   `apps approve`), and fhirclient's default scopes reaching the consent page.
5. A restart keeps the person's session, access and refresh tokens; with --token-lifetime 2 an
   access token expires (401).

Every FHIR response received (by fhirclient, fhirpy or raw requests) must be
application/fhir+json and validate with the fhir.resources R4 (4.0.1) models; every error is an
OperationOutcome. Prints `ok  …` per check; exits non-zero at the first failure.
"""
import argparse, base64, glob, hashlib, http.server, json, os, secrets, shutil, subprocess, sys, tempfile, threading, time, traceback
import urllib.parse

import logging

import fhir.resources
import fhirclient.client
import fhirpy
import requests
from fhir.resources import construct_fhir_element
from fhirclient import client as smart_client
from fhirclient.models.observation import Observation as FCObservation
from fhirclient.models.patient import Patient as FCPatient
from fhirclient.server import FHIRNotFoundException, FHIRUnauthorizedException
from joserfc import jwt as jose_jwt
from joserfc.jwk import KeySet
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import Callback  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
SYNTHEA = os.path.join(SHARED, "data", "fhir", "synthea")
# Imported while the server runs, after the "ask" app's approval (11 lab results).
LATE_PATIENT = "Luigi_Wiegand"
EVERY_TYPE = ("allergy,condition,immunization,lab-result,medication,procedure,vital-sign,coverage,clinical-note,personal-details,visits,"
              "practitioner-details,social-history,other-observations,claims,care-plans,medication-details,devices,other")
LAB_GRANULAR = "patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory"
OAUTH_URIS = "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"
checks = []
validated = {}


class Failure(Exception):
    pass


def lab_fingerprint(resource):
    """What identifies a lab result across the store's ids and the served ids."""
    coding = [(c.get("system"), c.get("code")) for c in (resource.get("code") or {}).get("coding") or []]
    value = resource.get("valueQuantity") or {}
    return json.dumps([coding, resource.get("effectiveDateTime"), resource.get("issued"), str(value.get("value")), value.get("unit"),
                       resource.get("valueString"), (resource.get("valueCodeableConcept") or {}).get("text")])


def check(condition, what):
    if not condition:
        raise Failure(what)
    checks.append(what)
    print(f"  ok  {what}", flush=True)


STORE_ARGS = []


def run(cli, *args, env=None):
    out = subprocess.run([cli, *args, *STORE_ARGS], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise Failure(f"healthrecords {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout


# MARK: FHIR validation of everything received

class Validator:
    """Validates every response from the FHIR base with the fhir.resources R4 models."""

    def __init__(self):
        self.fhir_base = None

    def hook(self, response, *args, **kwargs):
        url = response.url
        if not self.fhir_base or not url.startswith(self.fhir_base + "/") or "/.well-known/" in url:
            return
        ctype = response.headers.get("Content-Type", "")
        if not ctype.startswith("application/fhir+json"):
            raise Failure(f"{response.request.method} {url} answered {response.status_code} with Content-Type {ctype!r}, not application/fhir+json")
        try:
            body = response.json()
        except ValueError:
            raise Failure(f"{url} answered {response.status_code} with a body that is not JSON: {response.text[:200]!r}")
        r4(body, f"{url} ({response.status_code})")
        if response.status_code >= 400 and body.get("resourceType") != "OperationOutcome":
            raise Failure(f"{url} answered {response.status_code} with a {body.get('resourceType')}, not an OperationOutcome")
        if body.get("resourceType") == "Bundle" and body.get("type") == "searchset":
            if "total" not in body:
                raise Failure(f"searchset from {url} has no total")
            for link in body.get("link", []):
                if not link["url"].startswith(self.fhir_base + "/"):
                    raise Failure(f"searchset link {link['relation']} is not an absolute URL under {self.fhir_base}: {link['url']}")


def r4(body, where):
    """Parses a FHIR resource with the fhir.resources models of FHIR 4.0.1 (extra fields refused)."""
    kind = body.get("resourceType") if isinstance(body, dict) else None
    if not kind:
        raise Failure(f"{where}: not a FHIR resource: {str(body)[:200]}")
    try:
        construct_fhir_element(kind, body)
    except Exception as e:  # pydantic.ValidationError, ValueError for unknown types
        raise Failure(f"{where}: the {kind} is not valid FHIR R4 (fhir.resources {fhir.resources.__version__}): {e}")
    if kind == "OperationOutcome" and not body.get("issue"):
        raise Failure(f"{where}: OperationOutcome without an issue (R4 requires 1..*)")
    validated[kind] = validated.get(kind, 0) + 1
    return body


VALIDATOR = Validator()
HTTP = requests.Session()
HTTP.hooks["response"].append(VALIDATOR.hook)


def fhir_get(url, token=None, **params):
    headers = {"Accept": "application/fhir+json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    r = HTTP.get(url, headers=headers, params=params or None, timeout=30)
    return r.status_code, r.json(), r


def post_form(url, form, auth=None):
    r = HTTP.post(url, data=form, auth=auth, timeout=30, allow_redirects=False)
    try:
        body = r.json()
    except ValueError:
        body = None
    return r.status_code, body, r


# MARK: OAuth helpers

def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


class Flow:
    """The pieces of the SMART servers the test talks to."""

    def __init__(self, base, callback, driver):
        self.base = base
        self.fhir = base + "/fhir"
        self.callback = callback
        self.driver = driver

    def authorize_url(self, client_id, scope, challenge, method="S256", aud=None, redirect=None, state=None, drop=()):
        params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect or self.callback, "scope": scope,
                  "state": state or secrets.token_urlsafe(12), "aud": aud or self.fhir, "code_challenge": challenge,
                  "code_challenge_method": method}
        for key in drop:
            params.pop(key, None)
        return self.base + "/authorize?" + urllib.parse.urlencode(params), params

    def consent(self, url, allow, new_data="share", button="submit", expect=None):
        """Opens an authorize URL in the browser, answers the consent sheet, returns (callback URL, offered categories)."""
        d = self.driver
        d.get(url)
        offered = set()
        if not d.current_url.startswith(self.callback):
            boxes = d.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=allow]")
            if not boxes:
                raise Failure(f"no consent sheet at {d.current_url} (page {d.title!r}) for {url}")
            offered = {b.get_attribute("value") for b in boxes}
            if expect:
                expect(offered)
            missing = set(allow) - offered
            if missing:
                raise Failure(f"the consent sheet does not offer {sorted(missing)} (offered: {sorted(offered)})")
            for b in boxes:
                if b.is_selected() != (b.get_attribute("value") in allow):
                    b.click()
            # Allowing medications, the person ticks every medication the sheet lists (only
            # ticked medications are read).
            if "medication" in allow:
                for m in d.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=medication]"):
                    if not m.is_selected():
                        m.click()
            radio = d.find_elements(By.CSS_SELECTOR, f"input[type=radio][name=newData][value={new_data}]")
            if not radio:
                raise Failure("the consent sheet has no newData radio for " + new_data)
            radio[0].click()
            d.find_element(By.ID, button).click()
            WebDriverWait(d, 20).until(lambda drv: drv.current_url.startswith(self.callback))
        return d.current_url, offered

    def code(self, client_id, scope, allow, new_data="share"):
        """A fresh authorization code through the browser: (code, verifier)."""
        verifier, challenge = pkce()
        url, params = self.authorize_url(client_id, scope, challenge)
        back, _ = self.consent(url, allow, new_data)
        q = query_of(back)
        if "code" not in q or q.get("state") != params["state"]:
            raise Failure(f"the consent did not return a code with the state: {back}")
        return q["code"], verifier

    def exchange(self, client_id, code, verifier, redirect=None):
        return post_form(self.base + "/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect or self.callback,
                                                "client_id": client_id, "code_verifier": verifier})

    def refresh(self, client_id, refresh_token, scope=None):
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
        if scope is not None:
            form["scope"] = scope
        return post_form(self.base + "/token", form)

    def tokens(self, client_id, scope, allow, new_data="share"):
        code, verifier = self.code(client_id, scope, allow, new_data)
        status, body, r = self.exchange(client_id, code, verifier)
        if status != 200:
            raise Failure(f"code exchange for {client_id} failed: {status} {body}")
        return body, r


def token_error(status, body, want, what):
    check(status in (400, 401) and isinstance(body, dict) and body.get("error") == want,
          f"{what}: {want} ({status} {body.get('error') if isinstance(body, dict) else body})")


def good_token_response(body, r, pid, what):
    check(body.get("token_type", "").lower() == "bearer" and body.get("access_token") and 0 < int(body.get("expires_in", 0)) <= 3600
          and body.get("patient") == pid and "no-store" in r.headers.get("Cache-Control", ""),
          f"{what}: Bearer token, expires_in {body.get('expires_in')} ≤ 3600, patient context, Cache-Control: no-store")


# MARK: the server

def start_server(cli, env, token_file, port=0, extra=()):
    server = subprocess.Popen([cli, "serve", "--port", str(port), "--person-token-file", token_file, "--rate-limit", "1000", "--text-logs",
                               "--log-level", "warning", *extra, *STORE_ARGS], stdout=subprocess.PIPE, text=True, env=env)
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
        stop_server(server)
        raise Failure("the server did not start (no 'Listening on' and 'Person's pages' lines)")
    return server, base, sign_in


def stop_server(server):
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def lab_records(cli, env):
    """Lab results as the CLI lists them, less any stored as DSTU2 (not served from the R4 base)."""
    records = json.loads(run(cli, "records", "--type", "lab-result", "--json", env=env))
    return [r for r in records if r["fhirVersion"].startswith("4.")]


def synthea_patient_identifiers(files):
    found = set()
    for f in files:
        for e in json.load(open(f))["entry"]:
            if e["resource"]["resourceType"] == "Patient":
                for i in e["resource"].get("identifier", []):
                    found.add((i.get("system"), i.get("value")))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "smart-peers-test"))
    ap.add_argument("--fhircheck", help="the python of Scripts/fhircheck-venv.sh: also run pyfhircheck's base-r4 REST pack with fhirclient's token")
    ap.add_argument("--postgres", help="a PostgreSQL server URL (postgres://user@host:port/db): use a new person's store there instead of a file")
    a = ap.parse_args()
    logging.getLogger("fhirclient").setLevel(logging.ERROR)  # it warns that it ignores the id_token (checked here instead)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="healthrecords-smart-peers-")
    env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(work, "store.sqlite"))
    for name in ("HEALTHRECORDS_PASSPHRASE", "HEALTHRECORDS_PERSON_TOKEN"):
        env.pop(name, None)
    if a.postgres:
        STORE_ARGS.extend(["--postgres", f"{a.postgres}?person=smart-peers-{os.getpid()}-{int(time.time())}"])
    print(f"SMART peers test on {'PostgreSQL' if a.postgres else 'SQLite'}: fhirclient {smart_client.__version__}, fhirpy {fhirpy.__version__}, "
          f"fhir.resources {fhir.resources.__version__} (FHIR {fhir.resources.__fhir_version__})", flush=True)
    server = driver = callback_server = None
    try:
        files = sorted(glob.glob(os.path.join(SYNTHEA, "*.json")))
        late = [f for f in files if os.path.basename(f).startswith(LATE_PATIENT)]
        early = [f for f in files if f not in late]
        check(len(late) == 1 and len(early) >= 10, f"Synthea data: {len(early)} patients now, {LATE_PATIENT} later")
        run(a.cli, "import", *early, env=env)
        labs = lab_records(a.cli, env)
        check(len(labs) > 100, f"the CLI lists {len(labs)} R4 lab results")

        callback_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Callback)
        threading.Thread(target=callback_server.serve_forever, daemon=True).start()
        callback = f"http://127.0.0.1:{callback_server.server_address[1]}/callback"

        def register(name):
            out = json.loads(run(a.cli, "apps", "register", "--name", name, "--purpose", "Shows your lab results over time.",
                                 "--privacy-url", "https://peers.example/privacy", "--redirect-uri", callback, "--public",
                                 "--types", EVERY_TYPE, "--json", env=env))
            check(out.get("appId") and not out.get("secret"), f"{name} registered as a public client (no secret)")
            return out["appId"]

        app_a, app_b, app_c = register("Lab Trends (fhirclient)"), register("Other App"), register("Ask First")

        token_file = os.path.join(work, "person.token")
        with open(token_file, "w") as f:
            f.write("smart-peers-person-token-0123456789")
        server, base, sign_in = start_server(a.cli, env, token_file)
        port = urllib.parse.urlsplit(base).port
        check(True, f"server listening at {base}")
        fhir_base = base + "/fhir"
        VALIDATOR.fhir_base = fhir_base

        # MARK: discovery
        status, cap, r = fhir_get(fhir_base + "/metadata")
        check(status == 200 and cap["resourceType"] == "CapabilityStatement" and cap.get("fhirVersion") == "4.0.1",
              "GET /fhir/metadata without a token: a valid R4 CapabilityStatement (fhirVersion 4.0.1)")
        security = cap["rest"][0].get("security", {})
        uris = {}
        for ext in security.get("extension", []):
            if ext.get("url") == OAUTH_URIS:
                uris = {e["url"]: e.get("valueUri") for e in ext.get("extension", [])}
        check(uris.get("authorize") == base + "/authorize" and uris.get("token") == base + "/token" and uris.get("revoke") == base + "/revoke"
              and uris.get("introspect") == base + "/introspect", f"rest.security carries the oauth-uris extension: {uris}")
        codings = [c for s in security.get("service", []) for c in s.get("coding", [])]
        check(any(c.get("code") == "SMART-on-FHIR" and c.get("system") == "http://terminology.hl7.org/CodeSystem/restful-security-service" for c in codings),
              "rest.security.service is SMART-on-FHIR")
        observation = next((res for res in cap["rest"][0].get("resource", []) if res["type"] == "Observation"), None)
        params = {p["name"] for p in (observation or {}).get("searchParam", [])}
        check(observation and {"patient", "category", "code", "date"} <= params, f"Observation is listed with patient, category, code, date ({sorted(params)})")
        configs = []
        for url in (fhir_base + "/.well-known/smart-configuration", base + "/.well-known/smart-configuration"):
            r = HTTP.get(url, timeout=30)
            check(r.status_code == 200 and r.headers.get("Content-Type", "").startswith("application/json"), f"GET {url[len(base):]}: 200 JSON")
            configs.append(r.json())
        sc = configs[0]
        check(configs[0] == configs[1], "both smart-configuration documents are the same")
        check(sc.get("authorization_endpoint") == uris.get("authorize") and sc.get("token_endpoint") == uris.get("token")
              and sc.get("revocation_endpoint") == uris.get("revoke") and sc.get("introspection_endpoint") == uris.get("introspect"),
              "smart-configuration endpoints match the CapabilityStatement's")
        check(sc.get("code_challenge_methods_supported") == ["S256"], f"code_challenge_methods_supported is exactly ['S256']: {sc.get('code_challenge_methods_supported')}")
        check({"authorization_code", "refresh_token"} <= set(sc.get("grant_types_supported", [])), "grant types authorization_code and refresh_token")
        wanted = {"launch-standalone", "client-public", "client-confidential-symmetric", "client-confidential-asymmetric", "context-standalone-patient",
                  "permission-patient", "permission-offline", "permission-v1", "permission-v2"}
        check(wanted <= set(sc.get("capabilities", [])), f"capabilities include {sorted(wanted)}")
        check(sc.get("issuer") in (None, base) and sc.get("jwks_uri") == base + "/.well-known/jwks.json", "issuer and jwks_uri as agreed")

        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1"):
            options.add_argument(arg)
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(30)
        flow = Flow(base, callback, driver)

        # MARK: fhirclient, the whole standalone launch
        print("fhirclient:", flush=True)
        saved = {}
        smart = fhirclient.client.FHIRClient(settings={
            "app_id": app_a, "api_base": fhir_base, "redirect_uri": callback,
            "scope": "openid fhirUser offline_access patient/*.read"}, save_func=lambda s: saved.update(s))
        smart.server.session.hooks["response"].append(VALIDATOR.hook)
        check(smart.prepare() is False and smart.server.auth.auth_type == "oauth2",
              "fhirclient reads /fhir/metadata with its own R4 models and picks OAuth2 from the oauth-uris extension")
        authorize = smart.authorize_url
        q = query_of(authorize)
        check(authorize.startswith(base + "/authorize?") and q.get("aud") == fhir_base and q.get("code_challenge_method") == "S256"
              and q.get("code_challenge") and q.get("redirect_uri") == callback and q.get("scope", "").startswith("launch/patient "),
              f"fhirclient's authorize URL: aud = the FHIR base, PKCE S256, scope {q.get('scope')!r}")

        r = HTTP.get(authorize, allow_redirects=False, timeout=30)
        location = r.headers.get("Location", "")
        check(r.status_code in (302, 303) and urllib.parse.urlsplit(location).path == "/login" and "next" in query_of(location),
              f"signed out, /authorize sends the person to /login?next=… ({r.status_code} {location[:60]})")
        driver.get(sign_in)
        check("/login" not in driver.current_url, "the person signs in at the printed link")

        def expect_wildcard(offered):
            check(len(offered) >= 8 and {"lab-result", "personal-details", "vital-sign", "condition"} <= offered,
                  f"patient/*.read is shown as one switch per category ({len(offered)} switches)")
            page = driver.page_source
            check("Lab Trends (fhirclient)" in page and "https://peers.example/privacy" in page and "allow all" not in page.lower(),
                  "the consent sheet names the app and its privacy policy; no allow-all")
            driver.save_screenshot(os.path.join(a.out, "smart-consent.png"))
        back, offered = flow.consent(authorize, {"lab-result", "personal-details"}, "share", expect=expect_wildcard)
        cq = query_of(back)
        check(cq.get("state") == smart.server.auth.auth_state and cq.get("code") and "error" not in cq,
              "consent with lab results and personal details on redirects to the callback with a code and fhirclient's state")
        first_code = cq["code"]
        smart.handle_callback(back)
        ctx = smart.launch_context
        pid = smart.patient_id
        check(smart.ready and pid and pid.startswith("person-") and ctx.get("patient") == pid,
              f"fhirclient's handle_callback exchanged the code (public client, PKCE verifier): patient {pid}")
        granted = ctx.get("scope", "").split()
        check({"launch/patient", "offline_access", "openid", "fhirUser"} <= set(granted), f"granted scope {ctx.get('scope')!r} keeps the launch and identity scopes")
        resource_scopes = [s for s in granted if s.startswith(("patient/", "user/"))]
        check(resource_scopes and all(s.endswith(".read") for s in resource_scopes), f"granted resource scopes are in the v1 form asked for: {resource_scopes}")
        check(smart.server.auth.refresh_token, "offline_access brought a refresh token")

        id_token = ctx.get("id_token")
        check(id_token, "openid fhirUser brought an id_token")
        jwks = requests.get(sc["jwks_uri"], timeout=30).json()
        decoded = jose_jwt.decode(id_token, KeySet.import_key_set(jwks), algorithms=["RS256", "RS384", "ES256", "ES384"])
        claims = decoded.claims
        aud = claims.get("aud")
        check(claims.get("iss") == base and (aud == app_a or (isinstance(aud, list) and app_a in aud)) and claims.get("sub")
              and str(claims.get("fhirUser", "")).endswith("Patient/" + pid) and claims.get("exp", 0) > time.time(),
              f"the id_token ({decoded.header.get('alg')}) verifies with the keys at jwks_uri: iss, aud, sub, fhirUser Patient/{pid}")

        patient = FCPatient.read(pid, smart.server)
        check(patient.id == pid, "fhirclient reads the person's Patient (its models parse it strictly)")
        have = {(i.system, i.value) for i in (patient.identifier or [])}
        want = synthea_patient_identifiers(early)
        check(want <= have, f"the Patient keeps every imported source's identifiers ({len(want)} of them)")

        search = FCObservation.where(struct={"patient": pid, "category": "laboratory", "_count": "100"})
        ids, served, pages, total = [], [], 0, None
        for bundle in search.perform_iter(smart.server):
            pages += 1
            if total is None:
                total = bundle.total
            if bundle.type != "searchset" or bundle.total != total:
                raise Failure(f"lab search page {pages}: a {bundle.type} Bundle with total {bundle.total} (page 1 said {total})")
            for entry in bundle.entry or []:
                res = entry.resource
                if not isinstance(res, FCObservation):
                    raise Failure(f"page {pages} holds a {type(res).__name__}, not an Observation")
                if not any(c.code == "laboratory" for cat in res.category or [] for c in cat.coding or []):
                    raise Failure(f"Observation/{res.id} in the lab search is not in the laboratory category")
                ids.append(res.id)
                served.append(lab_fingerprint(res.as_json()))
        # Served ids are the store's opaque keys (docs/fhir-api.md), so the results are matched
        # to the CLI's records by content: code, effective time, value and issued time.
        cli_prints = sorted(lab_fingerprint(r["resource"]) for r in labs)
        check(pages > 1, f"the lab search is paged: {pages} pages of up to 100, following absolute next links")
        check(len(ids) == len(set(ids)) == total == len(labs) and sorted(served) == cli_prints,
              f"fhirclient pages through every lab result: {len(ids)} = Bundle total {total} = the CLI's {len(labs)}, no duplicates, the same records")

        if a.fhircheck:
            # A second peer on the same token: pyfhircheck's read-only REST pack (issue 30).
            p = subprocess.run([a.fhircheck, os.path.join(ROOT, "Scripts", "fhir-conformance.py"), "--fhir", fhir_base,
                                "--token=" + smart.server.auth.access_token, "--type", "Observation", "--id=" + ids[0]],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                raise Failure("pyfhircheck's base-r4 pack failed: " + (p.stdout + p.stderr)[-2000:])
            check(True, "pyfhircheck's base-r4 pack passes with fhirclient's token (read with ETag and Last-Modified, vread, "
                  "search, paging, instance history, not-found, JSON)")
            print("\n".join("    " + line for line in p.stdout.splitlines()), flush=True)

        status, empty, _ = fhir_get(fhir_base + "/Observation", smart.server.auth.access_token, patient=pid, category="vital-signs")
        check(status == 200 and empty["total"] == 0 and not empty.get("entry"), "vital signs (turned off) are an empty searchset: 200, total 0")
        status, empty, _ = fhir_get(fhir_base + "/Condition", smart.server.auth.access_token, patient=pid)
        check(status == 200 and empty["total"] == 0 and not empty.get("entry"), "conditions (turned off) are an empty searchset")
        status, every, _ = fhir_get(fhir_base + "/Observation", smart.server.auth.access_token, patient=pid, _count="1")
        check(status == 200 and every["total"] == len(labs), f"Observation without a category counts only the allowed lab results ({every['total']})")
        vital = json.loads(run(a.cli, "records", "--type", "vital-sign", "--limit", "1", "--json", env=env))[0]["id"]
        try:
            FCObservation.read(vital, smart.server)
            raise Failure(f"a vital sign (turned off) was readable: Observation/{vital}")
        except FHIRNotFoundException as e:
            check(e.response.status_code == 404, "reading a vital sign (turned off) by its provider id is 404, like a record that does not exist")
        lab = FCObservation.read(ids[0], smart.server)
        check(lab.id == ids[0] and lab_fingerprint(lab.as_json()) in cli_prints, "reading a lab result by its served id works")
        status, oo, _ = fhir_get(fhir_base + "/Observation/no-such-record-0000", smart.server.auth.access_token)
        check(status == 404 and oo["resourceType"] == "OperationOutcome", "an unknown id is 404 with an R4 OperationOutcome")
        status, oo, _ = fhir_get(fhir_base + "/Observation", smart.server.auth.access_token, patient=pid, date="notadate")
        check(status == 400 and oo["resourceType"] == "OperationOutcome", "date=notadate is 400 with an R4 OperationOutcome")
        status, oo, r = fhir_get(fhir_base + "/Observation", None, patient=pid)
        check(status == 401 and r.headers.get("WWW-Authenticate", "").startswith("Bearer") and oo["resourceType"] == "OperationOutcome",
              "no token: 401, WWW-Authenticate: Bearer, an OperationOutcome")

        print("fhirpy:", flush=True)
        fp = fhirpy.SyncFHIRClient(fhir_base, authorization="Bearer " + smart.server.auth.access_token,
                                   requests_config={"hooks": {"response": [VALIDATOR.hook]}, "timeout": 30})
        fp_ids = [o["id"] for o in fp.resources("Observation").search(patient=pid, category="laboratory").limit(100)]
        check(len(fp_ids) == len(set(fp_ids)) and set(fp_ids) == set(ids), f"fhirpy pages through the same {len(fp_ids)} lab result ids")
        fp_patient = fp.reference("Patient", pid).to_resource()
        check(fp_patient["id"] == pid and fp_patient["resourceType"] == "Patient", "fhirpy reads the same Patient")
        check(fp.resources("Observation").search(patient=pid, category="vital-signs").fetch() == [], "fhirpy sees no vital signs")

        print("fhirclient refresh and revocation:", flush=True)
        old_access, old_refresh = smart.server.auth.access_token, smart.server.auth.refresh_token
        check(smart.reauthorize() and smart.server.auth.access_token != old_access and smart.server.auth.refresh_token not in (None, old_refresh),
              "fhirclient's reauthorize() refreshes: new access token, rotated refresh token")
        check(smart.patient_id == pid and FCPatient.read(pid, smart.server).id == pid, "the refreshed token reads the Patient")
        status, _, r = post_form(base + "/revoke", {"token": smart.server.auth.access_token, "token_type_hint": "access_token", "client_id": app_a})
        check(status == 200, "POST /revoke with the access token: 200")
        try:
            FCPatient.read(pid, smart.server)
            raise Failure("a revoked access token still reads")
        except FHIRUnauthorizedException as e:
            check(e.response.status_code == 401 and e.response.headers.get("WWW-Authenticate", "").startswith("Bearer"),
                  "after revocation fhirclient's next request is 401 with WWW-Authenticate: Bearer")
        status, _, r = post_form(base + "/revoke", {"token": smart.server.auth.refresh_token, "token_type_hint": "refresh_token", "client_id": app_a})
        check(status == 200, "POST /revoke with the refresh token: 200")
        try:
            smart.reauthorize()
            raise Failure("a revoked refresh token still refreshes")
        except requests.HTTPError as e:
            body = e.response.json()
            check(e.response.status_code == 400 and body.get("error") == "invalid_grant", "fhirclient's refresh after revocation fails: invalid_grant")
        status, body, _ = flow.exchange(app_a, first_code, smart.server.auth.code_verifier)
        token_error(status, body, "invalid_grant", "fhirclient's code, exchanged again")

        # MARK: negative cases over raw HTTP
        print("raw HTTP:", flush=True)
        allow_a = {"lab-result", "personal-details"}
        v2_scope = "launch/patient offline_access patient/*.rs"
        code, verifier = flow.code(app_a, v2_scope, allow_a)
        status, body, _ = flow.exchange(app_a, code, pkce()[0])
        token_error(status, body, "invalid_grant", "a wrong PKCE verifier")
        code, verifier = flow.code(app_a, v2_scope, allow_a)
        status, body, _ = flow.exchange(app_b, code, verifier)
        token_error(status, body, "invalid_grant", "another client's code")
        code, verifier = flow.code(app_a, v2_scope, allow_a)
        status, body, _ = flow.exchange(app_a, code, verifier, redirect=callback + "/other")
        token_error(status, body, "invalid_grant", "a redirect_uri at /token other than the one authorized")
        code, verifier = flow.code(app_a, v2_scope, allow_a)
        status, body, r = flow.exchange(app_a, code, verifier)
        check(status == 200, "a fresh code exchanges once")
        good_token_response(body, r, pid, "the code exchange")
        check(not any(s.endswith(".read") for s in body["scope"].split() if s.startswith("patient/")) and any(".rs" in s for s in body["scope"].split()),
              f"v2 scopes asked for are granted in the v2 form: {body['scope']!r}")
        status, again, _ = flow.exchange(app_a, code, verifier)
        token_error(status, again, "invalid_grant", "the same code again")

        family, fr = flow.tokens(app_a, "launch/patient offline_access patient/Observation.rs patient/Patient.rs", allow_a)
        status, body, _ = flow.refresh(app_a, family["refresh_token"], family["scope"] + " patient/Condition.rs")
        token_error(status, body, "invalid_scope", "a refresh asking for more than was granted (patient/Condition.rs)")
        status, renewed, r = flow.refresh(app_a, family["refresh_token"])
        check(status == 200 and renewed.get("refresh_token") not in (None, family["refresh_token"]), "the refresh token still refreshes after the refused escalation, and rotates")
        good_token_response(renewed, r, pid, "the refresh")
        status, body, _ = flow.refresh(app_a, family["refresh_token"])
        token_error(status, body, "invalid_grant", "the spent refresh token")
        status, body, _ = flow.refresh(app_a, renewed["refresh_token"])
        token_error(status, body, "invalid_grant", "the newer refresh token of a family whose spent token was reused (family revoked)")

        session = {c["name"]: c["value"] for c in driver.get_cookies()}
        verifier, challenge = pkce()

        def refused_at_authorize(url, what, may_redirect=True):
            r = HTTP.get(url, cookies=session, allow_redirects=False, timeout=30)
            location = r.headers.get("Location", "")
            lq = query_of(location)
            sheet = 'name="allow"' in r.text
            if r.status_code in (302, 303) and location.startswith(callback):
                ok = may_redirect and "code" not in lq and lq.get("error") and lq.get("state") == query_of(url)["state"]
                check(ok, f"{what}: refused, back to the app with error={lq.get('error')} and the state, no code" if ok
                      else f"{what}: not refused as it should be: redirected to the app with {location}")
            else:
                ok = 400 <= r.status_code < 500 and "code=" not in location and not sheet
                check(ok, f"{what}: refused with {r.status_code}, no consent sheet, no redirect to the app" if ok
                      else f"{what}: not refused: {r.status_code}, Location {location!r}, consent sheet shown: {sheet}")
        refused_at_authorize(flow.authorize_url(app_a, v2_scope, challenge, aud="https://elsewhere.example/fhir")[0], "aud mismatch at /authorize")
        refused_at_authorize(flow.authorize_url(app_a, v2_scope, verifier, method="plain")[0], "code_challenge_method=plain")
        refused_at_authorize(flow.authorize_url(app_a, v2_scope, challenge, drop=("code_challenge", "code_challenge_method"))[0], "a missing PKCE challenge")
        refused_at_authorize(flow.authorize_url(app_a, v2_scope, challenge, redirect=callback + "/other")[0], "an unregistered redirect_uri", may_redirect=False)
        refused_at_authorize(flow.authorize_url("no-such-client", v2_scope, challenge)[0], "an unknown client_id", may_redirect=False)
        url, params = flow.authorize_url(app_a, v2_scope, challenge)
        r = HTTP.post(base + "/authorize", data=params, cookies=session, allow_redirects=True, timeout=30)
        check(r.status_code == 200 and ('name="allow"' in r.text or (r.url.startswith(callback) and query_of(r.url).get("state") == params["state"]
                                                                    and "code" in query_of(r.url))),
              "POST /authorize with the same parameters works too (consent sheet, or straight back with a code)")

        print("fhirclient's default scopes, denied:", flush=True)
        default = fhirclient.client.FHIRClient(settings={"app_id": app_b, "api_base": fhir_base, "redirect_uri": callback}, save_func=lambda s: None)
        default.prepare()
        durl = default.authorize_url
        check(query_of(durl)["scope"] == "launch/patient " + smart_client.scope_default, f"fhirclient's default scope is {query_of(durl)['scope']!r}")
        back, offered = flow.consent(durl, set(), button="deny")
        dq = query_of(back)
        check(offered and dq.get("state") == default.server.auth.auth_state,
              f"its consent sheet shows ({len(offered)} switches); Don't allow returns to the app with its state")
        if "error" in dq:
            check(dq["error"] == "access_denied" and "code" not in dq, "the denial is error=access_denied, no code")
            try:
                default.handle_callback(back)
                raise Failure("fhirclient accepted a denied callback")
            except Failure:
                raise
            except Exception as e:
                check(not default.ready, f"fhirclient's handle_callback raises on the denial ({e})")
        else:
            # The server may hide a denial as it hides a category turned off: a code that reaches nothing.
            default.handle_callback(back)
            token = default.server.auth.access_token
            status, nothing, _ = fhir_get(fhir_base + "/Observation", token, patient=pid, category="laboratory")
            check(status == 200 and nothing["total"] == 0, "Don't allow gives a code whose token finds no lab results (total 0)")
            status, _, _ = fhir_get(fhir_base + f"/Patient/{pid}", token)
            check(status == 404, "… and no Patient (404), like a store without records")

        print("ask before sharing new data:", flush=True)

        def only_labs(offered):
            check("lab-result" in offered and "vital-sign" not in offered and "condition" not in offered,
                  f"a granular v2 lab scope is one switch: {sorted(offered)}")
        verifier, challenge = pkce()
        url, params = flow.authorize_url(app_c, "launch/patient " + LAB_GRANULAR, challenge)
        back, _ = flow.consent(url, {"lab-result"}, "ask", expect=only_labs)
        status, ask, r = flow.exchange(app_c, query_of(back)["code"], verifier)
        check(status == 200 and "refresh_token" not in ask, "without offline_access there is no refresh token")
        good_token_response(ask, r, pid, "the granular exchange")

        def lab_prints(token):
            found, url, params = [], fhir_base + "/Observation", {"patient": pid, "category": "laboratory", "_count": "100"}
            while url:
                status, bundle, _ = fhir_get(url, token, **params)
                if status != 200:
                    raise Failure(f"lab search answered {status}: {bundle}")
                found += [lab_fingerprint(e["resource"]) for e in bundle.get("entry", [])]
                url, params = next((l["url"] for l in bundle.get("link", []) if l["relation"] == "next"), None), {}
            return sorted(found)
        before = lab_prints(ask["access_token"])
        check(before == cli_prints, f"the ask app sees the {len(before)} lab results there were when the person approved")
        run(a.cli, "import", *late, env=env)
        now = lab_records(a.cli, env)
        check(len(now) > len(labs), f"{LATE_PATIENT}'s {len(now) - len(labs)} lab results imported while the server runs")
        check(lab_prints(ask["access_token"]) == before, "under \"ask\", the lab results added after approval are absent from the search")
        run(a.cli, "apps", "approve", app_c, env=env)
        check(lab_prints(ask["access_token"]) == sorted(lab_fingerprint(r["resource"]) for r in now), "after `apps approve` the new lab results appear")

        # MARK: restart
        print("restart:", flush=True)
        live, _ = flow.tokens(app_a, v2_scope, allow_a)
        stop_server(server)
        server = None
        server, base2, _ = start_server(a.cli, env, token_file, port=port, extra=("--token-lifetime", "2"))
        check(base2 == base, f"the server restarted at {base} with --token-lifetime 2")
        status, p, _ = fhir_get(fhir_base + f"/Patient/{pid}", live["access_token"])
        check(status == 200 and p["id"] == pid, "an access token issued before the restart still reads")
        driver.get(base + "/apps")
        check("/login" not in driver.current_url, "the person is still signed in after the restart")
        status, short, r = flow.refresh(app_a, live["refresh_token"])
        check(status == 200 and int(short["expires_in"]) <= 2, f"a refresh token issued before the restart refreshes (expires_in {short.get('expires_in')})")
        status, _, _ = fhir_get(fhir_base + f"/Patient/{pid}", short["access_token"])
        check(status == 200, "the short-lived token reads at once")
        time.sleep(int(short["expires_in"]) + 1.5)
        status, oo, r = fhir_get(fhir_base + f"/Patient/{pid}", short["access_token"])
        check(status == 401 and r.headers.get("WWW-Authenticate", "").startswith("Bearer") and oo["resourceType"] == "OperationOutcome",
              "an expired access token: 401, WWW-Authenticate: Bearer, an OperationOutcome")

        kinds = ", ".join(f"{n} {k}" for k, n in sorted(validated.items()))
        check(validated.get("Bundle", 0) > 10 and validated.get("CapabilityStatement", 0) >= 1 and validated.get("OperationOutcome", 0) >= 4,
              f"every FHIR response validated with fhir.resources R4: {kinds}")
        print(f"SMART peers test passed: {len(checks)} checks", flush=True)
    except Failure as e:
        print(f"SMART peers test FAILED: {e}", file=sys.stderr, flush=True)
        if driver:
            try:
                driver.save_screenshot(os.path.join(a.out, "failure.png"))
                print(f"  (browser at {driver.current_url}; screenshot {os.path.join(a.out, 'failure.png')})", file=sys.stderr)
            except Exception:
                pass
        sys.exit(1)
    except Exception as e:
        traceback.print_exc()
        print(f"SMART peers test FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
    finally:
        if driver:
            driver.quit()
        if server:
            stop_server(server)
        if callback_server:
            callback_server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
