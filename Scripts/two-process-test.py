#!/usr/bin/env python3
"""Two `healthrecords serve` processes on one PostgreSQL person's store, as a service runs them
behind a load balancer: every request of a flow alternates between them (issue 32).

Both listen on loopback with the same --public-url (the balancer's address) and the same
sign-in token; requests go to one port or the other. What a person or an app holds lives in the
database, so a flow begun on one process finishes on the other, and the limits that must hold
globally hold across them:

1. SMART App Launch: the person signs in on A; /authorize on B shows the consent sheet; the
   consent is posted to A; the code is exchanged on B (PKCE); the FHIR search runs on A and B;
   the refresh token is used on A, and its replay on B is refused (single use) and ends the family;
   the code replayed on A is refused and what was issued for it stops working on B.
2. Passkeys: enrolment options from A, the answer to B; sign-in options from B, the answer to A;
   the same answer replayed to B is refused.
3. A SMART Health Link with a passcode and 3 attempts: wrong passcodes to A, B, A use up the
   attempts together, after which the right passcode on B finds nothing.
4. The app API's authorization request: made on A, answered on B's consent page, its status
   read on A, and the grant reading on B.
5. Many people (`serve --postgres URL` without a person, two processes): Ana's invite opened on
   A, her passkey enrolled on B; the front's sign-in options from A, the answer to B (a session
   in Ana's store, named by her id), the replay to A refused; Ana's session on Ben's path is nobody's.
   Then SMART at the shared base (`/fhir` at the root): /authorize on A, the consent posted to B,
   the code (Ana's prefix) exchanged at B's root /token, her labs read at A's root /fhir, the code
   replayed on A refused.

Needs HEALTHRECORDS_POSTGRES_URL (or --postgres); soft-webauthn for the passkey part (the
passkey venv of Scripts/server-checks.sh).
"""
import argparse, base64, hashlib, json, os, re, secrets, shutil, socket, subprocess, sys, tempfile, time, urllib.parse

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402
_spec = importlib.util.spec_from_file_location("passkey_peers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "passkey-peers-test.py"))
passkey_peers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(passkey_peers)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("smart_authorize", os.path.join(ROOT, "Benchmarks", "smart-authorize.py"))
smart_authorize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(smart_authorize)
checks = []


def check(condition, what):
    if not condition:
        raise SystemExit(f"two-process test FAILED: {what}")
    checks.append(what)
    print(f"  ok  {what}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--out", default=".build/two-process-test")
    ap.add_argument("--postgres", default=os.environ.get("HEALTHRECORDS_POSTGRES_URL"))
    a = ap.parse_args()
    if not a.postgres:
        raise SystemExit("two-process test: give --postgres or set HEALTHRECORDS_POSTGRES_URL")
    cli = os.path.abspath(a.cli)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    work = tempfile.mkdtemp(dir=a.out)
    person = "two-process-" + secrets.token_hex(6)
    store = a.postgres + ("&" if "?" in a.postgres else "?") + "person=" + person
    env = dict(os.environ)
    env.pop("HEALTHRECORDS_PASSPHRASE", None)

    def run(*args):
        out = subprocess.run([cli, *args, "--postgres", store], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {out.stderr}")
        return out.stdout

    synthea = os.path.join(ROOT, "Tests", "Fixtures", "data", "fhir", "synthea")
    patient = sorted(f for f in os.listdir(synthea) if f.endswith(".json"))[0]
    run("import", os.path.join(synthea, patient))
    redirect = "http://127.0.0.1:9/callback"
    app = json.loads(run("apps", "register", "--name", "Two processes", "--purpose", "Reads labs", "--privacy-url", "https://two.example/privacy",
                         "--redirect-uri", redirect, "--public", "--types", "lab-result,personal-details", "--json"))

    api_app = json.loads(run("apps", "register", "--name", "Two processes API", "--purpose", "Reads labs", "--privacy-url", "https://two.example/privacy",
                             "--types", "lab-result,condition", "--json"))

    ports = [free_port(), free_port()]
    public = f"http://localhost:{ports[0]}"
    token = secrets.token_hex(24)
    token_file = os.path.join(work, "token")
    with open(token_file, "w") as f:
        f.write(token)
    servers = []
    for i, port in enumerate(ports):
        log = open(os.path.join(work, f"serve-{i}.log"), "w")
        servers.append(subprocess.Popen([cli, "serve", "--postgres", store, "--port", str(port), "--public-url", public, "--person-token-file", token_file,
                                         "--text-logs", "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, env=env))
    A, B = (f"http://localhost:{p}" for p in ports)
    try:
        for base in (A, B):
            for _ in range(300):
                try:
                    if requests.get(base + "/healthz", timeout=1).ok:
                        break
                except requests.RequestException:
                    time.sleep(0.1)
        check(all(requests.get(b + "/healthz").ok for b in (A, B)), "two serve processes on one person's PostgreSQL store")

        # 1. SMART App Launch, alternating.
        person_session = requests.Session()
        r = person_session.get(A + "/login", params={"token": token, "next": "/"}, allow_redirects=False)
        check(r.status_code == 303, "the person signs in on A")
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        state = secrets.token_urlsafe(12)
        r = person_session.get(B + "/authorize", params={
            "response_type": "code", "client_id": app["appId"], "redirect_uri": redirect, "scope": "launch/patient patient/Observation.rs offline_access",
            "state": state, "aud": public + "/fhir", "code_challenge": challenge, "code_challenge_method": "S256"}, allow_redirects=False)
        while r.status_code in (302, 303) and not r.headers["Location"].startswith(redirect):
            r = person_session.get(urllib.parse.urljoin(B, r.headers["Location"]), allow_redirects=False)
        check(r.status_code == 200 and 'name="allow"' in r.text, "B shows the consent sheet to A's session")
        form = smart_authorize.ConsentForm()
        form.feed(r.text)
        fields = list(form.hidden) + [("allow", "lab-result"), ("newData", "share")]
        submit = next((b for b in form.buttons if b[0] == "submit"), None)
        if submit and submit[1]:
            fields.append((submit[1], submit[2] or ""))
        action = form.action
        r = person_session.post(urllib.parse.urljoin(A, action), data=fields, allow_redirects=False)
        location = r.headers.get("Location", "")
        check(r.status_code in (302, 303) and location.startswith(redirect), f"A takes the consent B showed ({r.status_code})")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        check(query.get("state") == state and "code" in query, "the app gets a code for its state")
        r = requests.post(B + "/token", data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect,
                                              "client_id": app["appId"], "code_verifier": verifier})
        check(r.status_code == 200, f"B exchanges A's code ({r.status_code} {r.text[:200]})")
        tokens = r.json()
        pages = []
        for base in (A, B):
            r = requests.get(base + f"/fhir/Observation?patient={tokens['patient']}&category=laboratory&_count=5",
                             headers={"Authorization": "Bearer " + tokens["access_token"], "Accept": "application/fhir+json"})
            pages.append(r.json() if r.ok else {"status": r.status_code, "body": r.text[:300]})
        check(pages[0].get("total", 0) > 0 and pages[0].get("total") == pages[1].get("total"),
              f"the token reads the same labs on A and B ({[p.get('total', p) for p in pages]})")
        refresh = tokens.get("refresh_token")
        check(bool(refresh), "a refresh token came with offline_access")
        r = requests.post(A + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": app["appId"]})
        check(r.status_code == 200, "A rotates the refresh token")
        rotated = r.json()
        r = requests.post(B + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": app["appId"]})
        check(r.status_code == 400, "the old refresh token replayed on B is refused")
        r = requests.post(A + "/token", data={"grant_type": "refresh_token", "refresh_token": rotated["refresh_token"], "client_id": app["appId"]})
        check(r.status_code == 400, "the replay ended the family: the rotated token no longer works on A either")
        # The code replayed on A: refused, and what B issued for it is revoked (RFC 6749 §4.1.2).
        check(requests.post(A + "/token", data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect,
                                                "client_id": app["appId"], "code_verifier": verifier}).status_code == 400,
              "the same code replayed on A is refused (single use across processes)")
        r = requests.get(B + "/fhir/Observation?category=laboratory&_count=1",
                         headers={"Authorization": "Bearer " + rotated["access_token"], "Accept": "application/fhir+json"})
        check(r.status_code == 401, f"after the replays no token of that grant reads on B ({r.status_code})")

        # 2. Passkeys, alternating.
        csrf_html = person_session.get(A + "/passkeys").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', csrf_html).group(1)
        options = person_session.post(A + "/passkeys/options", json={"csrf": csrf}).json()
        options["challenge"] = passkey_peers.unb64u(options["challenge"])
        options["user"]["id"] = passkey_peers.unb64u(options["user"]["id"])
        device = passkey_peers.VerifyingDevice()
        credential = device.create({"publicKey": options}, public)
        r = person_session.post(B + "/passkeys", json={"csrf": csrf, "name": "Two processes", "credential": passkey_peers.encode(credential)})
        check(r.status_code == 200 and len(r.json().get("recoveryCodes", [])) == 10, f"options from A, enrolment on B ({r.status_code})")
        fresh = requests.Session()
        options = fresh.post(B + "/login/passkey/options").json()
        options["challenge"] = passkey_peers.unb64u(options["challenge"])
        answer = {"next": "/", "credential": passkey_peers.encode(device.get({"publicKey": options}, public))}
        r = fresh.post(A + "/login/passkey", json=answer)
        check(r.status_code == 200, f"sign-in options from B, the answer to A ({r.status_code})")
        check(fresh.get(B + "/cards").status_code == 200, "the session A started opens pages on B")
        r = requests.post(B + "/login/passkey", json=answer)
        check(r.status_code == 401, "the same answer replayed on B is refused")

        # 3. A SMART Health Link's passcode attempts, counted across processes.
        new = person_session.get(A + "/links/new").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', new).group(1)
        r = person_session.post(B + "/links", data={"csrf": csrf, "what": "summary", "lifetime": "3600", "passcode": "right-passcode", "attempts": "3",
                                                    "label": "Two processes"})
        link = re.search(r"shlink:/([A-Za-z0-9_-]+)", r.text)
        check(r.status_code == 200 and link is not None, "B publishes a link with a passcode and 3 attempts")
        payload = json.loads(passkey_peers.unb64u(link.group(1)))
        url = payload["url"].replace(public, "")
        remaining = []
        for base in (A, B, A):
            r = requests.post(base + url, json={"recipient": "Dr. Two", "passcode": "wrong"})
            remaining.append(r.json().get("remainingAttempts") if r.status_code == 401 else r.status_code)
        check(remaining == [2, 1, 0], f"wrong passcodes on A, B, A use up one count ({remaining})")
        r = requests.post(B + url, json={"recipient": "Dr. Two", "passcode": "right-passcode"})
        check(r.status_code == 404, f"after the last attempt the link is gone on B too ({r.status_code})")

        # 4. An app API authorization request, alternating.
        r = requests.post(A + "/token", data={"grant_type": "client_credentials", "client_id": api_app["appId"], "client_secret": api_app["secret"]})
        api_token = r.json()["access_token"]
        auth = {"Authorization": "Bearer " + api_token}
        r = requests.post(A + "/authorization-requests", json={"types": ["lab-result", "condition"]}, headers=auth)
        check(r.status_code == 201, f"A takes the app's authorization request ({r.status_code})")
        pending = r.json()
        consent_path = pending["url"].replace(public, "")
        html = person_session.get(B + consent_path).text
        csrf = re.search(r'name="csrf" value="([^"]+)"', html)
        check(csrf is not None and 'name="allow"' in html, "B shows the consent page of the request A took")
        r = person_session.post(B + consent_path, data={"csrf": csrf.group(1), "allow": "lab-result", "newData": "share", "action": "allow"})
        check(r.status_code == 200, f"the person answers on B ({r.status_code})")
        r = requests.get(A + "/authorization-requests/" + pending["id"], headers=auth)
        check(r.status_code == 200 and r.json().get("status") == "completed", f"A reports the answer given on B ({r.text[:80]})")
        r = requests.get(B + "/records?type=lab-result&limit=1", headers=auth)
        check(r.status_code == 200 and len(r.json().get("records", [])) == 1, "the grant reads on B")
        r = person_session.post(A + consent_path, data={"csrf": csrf.group(1), "allow": "condition", "newData": "share", "action": "allow"})
        check(r.status_code == 404, f"a second answer on A finds the request answered ({r.status_code})")
    finally:
        for s in servers:
            s.terminate()
        for s in servers:
            s.wait(timeout=20)
    many_people(cli, a.postgres, work, env)
    print(f"two-process test passed: {len(checks)} checks")


def many_people(cli, postgres, work, env):
    """Two processes serving every person of the database."""
    database = postgres.split("?")[0] + ("?" + "&".join(p for p in postgres.split("?")[1].split("&") if not p.startswith("person=")) if "?" in postgres else "")
    database = database.rstrip("?")

    def people(*args):
        out = subprocess.run([cli, "people", *args, "--postgres", database], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"people {' '.join(args)} failed: {out.stderr}")
        return out.stdout

    ana = json.loads(people("add", "Ana", "--json"))["id"]
    ben = json.loads(people("add", "Ben", "--json"))["id"]

    def as_ana(*args):
        out = subprocess.run([cli, *args, "--postgres", database, "--person", ana], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {out.stderr}")
        return out.stdout

    synthea = os.path.join(ROOT, "Tests", "Fixtures", "data", "fhir", "synthea")
    as_ana("import", os.path.join(synthea, sorted(f for f in os.listdir(synthea) if f.endswith(".json"))[0]))
    redirect = "http://127.0.0.1:9/callback"
    app = json.loads(as_ana("apps", "register", "--name", "Shared base", "--purpose", "Reads labs", "--privacy-url", "https://two.example/privacy",
                            "--redirect-uri", redirect, "--public", "--types", "lab-result", "--json"))
    ports = [free_port(), free_port()]
    public = f"http://localhost:{ports[0]}"
    servers = []
    for i, port in enumerate(ports):
        log = open(os.path.join(work, f"people-{i}.log"), "w")
        servers.append(subprocess.Popen([cli, "serve", "--postgres", database, "--port", str(port), "--public-url", public, "--text-logs",
                                         "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, env=env))
    A, B = (f"http://localhost:{p}" for p in ports)
    try:
        for base in (A, B):
            for _ in range(300):
                try:
                    if requests.get(base + "/healthz", timeout=1).ok:
                        break
                except requests.RequestException:
                    time.sleep(0.1)
        invite = json.loads(people("invite", ana, "--public-url", public, "--json"))["url"]
        session = requests.Session()
        r = session.get(invite.replace(public, A), allow_redirects=False)
        check(r.status_code == 303 and session.cookies.get("hr_session", "").startswith(ana + "."), "Ana's invite opened on A signs her in")
        html = session.get(B + "/passkeys").text
        check(ana in html, "B serves Ana's passkey page to the session A started")
        csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
        options = session.post(A + "/passkeys/options", json={"csrf": csrf}).json()
        check(passkey_peers.unb64u(options["user"]["id"]) == ana.encode(), "her passkeys' user handle is her id")
        options["challenge"] = passkey_peers.unb64u(options["challenge"])
        options["user"]["id"] = passkey_peers.unb64u(options["user"]["id"])
        device = passkey_peers.VerifyingDevice()
        credential = device.create({"publicKey": options}, public)
        r = session.post(B + "/passkeys", json={"csrf": csrf, "name": "Ana's phone", "credential": passkey_peers.encode(credential)})
        check(r.status_code == 200, f"enrolment options from A, the answer to B ({r.status_code})")
        fresh = requests.Session()
        options = fresh.post(A + "/login/passkey/options").json()
        options["challenge"] = passkey_peers.unb64u(options["challenge"])
        answer = {"next": "/", "credential": passkey_peers.encode(device.get({"publicKey": options}, public))}
        r = fresh.post(B + "/login/passkey", json=answer)
        check(r.status_code == 200 and fresh.cookies.get("hr_session", "").startswith(ana + "."), f"the front's challenge from A, answered on B ({r.status_code})")
        check(fresh.get(A + "/passkeys").status_code == 200, "the session B started opens Ana's pages on A")
        r = requests.post(A + "/login/passkey", json=answer)
        check(r.status_code == 401, f"the same answer replayed on A is refused ({r.status_code})")
        r = fresh.get(A + f"/p/{ben}/passkeys", allow_redirects=False)
        check(r.status_code == 303, "Ana's session on Ben's path is nobody's session")

        # SMART at the shared base, alternating.
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        r = fresh.get(A + "/authorize", params={
            "response_type": "code", "client_id": app["appId"], "redirect_uri": redirect, "scope": "launch/patient patient/Observation.rs",
            "state": "two", "aud": public + "/fhir", "code_challenge": challenge, "code_challenge_method": "S256"}, allow_redirects=False)
        check(r.status_code == 200 and 'id="whose"' in r.text and 'name="allow"' in r.text, "A shows Ana the shared base's consent sheet")
        form = smart_authorize.ConsentForm()
        form.feed(r.text)
        fields = list(form.hidden) + [("allow", "lab-result"), ("newData", "share"), ("action", "allow")]
        r = fresh.post(urllib.parse.urljoin(B, form.action), data=fields, allow_redirects=False)
        location = r.headers.get("Location", "")
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)).get("code", "")
        check(r.status_code in (302, 303) and location.startswith(redirect) and code.startswith(ana + "."),
              f"B takes the consent A showed; the code carries Ana's prefix ({r.status_code})")
        exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": app["appId"], "code_verifier": verifier}
        r = requests.post(B + "/token", data=exchange)
        check(r.status_code == 200 and r.json().get("access_token", "").startswith(ana + "."), f"B's root /token exchanges it for Ana ({r.status_code})")
        tokens = r.json()
        r = requests.get(A + f"/fhir/Observation?patient={tokens['patient']}&category=laboratory&_count=5",
                         headers={"Authorization": "Bearer " + tokens["access_token"], "Accept": "application/fhir+json"})
        check(r.status_code == 200 and r.json().get("total", 0) > 0, f"A's root /fhir serves Ana's labs to it ({r.status_code})")
        check(requests.post(A + "/token", data=exchange).status_code == 400, "the same code replayed on A's root is refused")
    finally:
        for s in servers:
            s.terminate()
        for s in servers:
            s.wait(timeout=20)
        people("remove", ana, "--yes")
        people("remove", ben, "--yes")


if __name__ == "__main__":
    main()
