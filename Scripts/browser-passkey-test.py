#!/usr/bin/env python3
"""Passkeys in a real browser: Debian's Chromium (headless, JavaScript on) with Selenium's
virtual authenticator (CTAP2, internal, resident keys, user verification), on
`healthrecords serve` at http://localhost:PORT (a host name: browsers take no IP address as an
RP ID).

1. Signed in with the token link, the person adds a passkey on /passkeys: the page shows ten
   recovery codes once, and lists the passkey.
2. Signed out, "Sign in with a passkey" signs in (no token), back to the page asked for.
3. Signed out, a recovery code signs in once; the passkey page then says one code was used.
4. The two pages run only the server's script (CSP `script-src 'self'`), with no CSP violation
   in the browser's log, and fit a 390 px screen.
5. Many people (`serve --people DIR`): Ben opens his invite, enrols a passkey and signs in with
   it at the front (its user handle names him); he makes Ana his proxy. Ana enrols her own,
   signs in, acts for Ben (his records, under a banner) and goes back to her own.
6. The shared SMART base (`<origin>/fhir`): Python fhirclient (PyPI) launches an app of the
   operator's catalogue there; on the consent page Ana chooses Ben's records, comes back to the
   same request acting for him and allows conditions; fhirclient exchanges the code at the root
   and reads Ben's condition, the id token verifies (joserfc) with the root's JWKS and names the
   root. Ben signs in with his id and a recovery code and finds what she did on his household page.
"""
import argparse, http.server, json, os, shutil, socket, subprocess, sys, tempfile, threading, time, urllib.parse, urllib.request

import fhirclient.client
from fhirclient.models.condition import Condition as FCCondition
from joserfc import jwt as jose_jwt
from joserfc.jwk import KeySet

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import Callback, fits  # noqa: E402

checks = []


def check(condition, what):
    if not condition:
        raise SystemExit(f"browser passkey test FAILED: {what}")
    checks.append(what)
    print(f"  ok  {what}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", default=".build/browser-passkey-test")
    a = parser.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    work = tempfile.mkdtemp(dir=a.out)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    origin = f"http://localhost:{port}"
    token = os.urandom(24).hex()
    token_file = os.path.join(work, "token")
    with open(token_file, "w") as f:
        f.write(token)
    env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(work, "store.sqlite"))
    env.pop("HEALTHRECORDS_PASSPHRASE", None)
    log = open(os.path.join(work, "serve.log"), "w")
    server = subprocess.Popen([os.path.abspath(a.cli), "serve", "--port", str(port), "--public-url", origin, "--person-token-file", token_file,
                               "--text-logs", "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, env=env)
    driver = None
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(origin + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(30)
        driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
            protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True, has_user_verification=True, is_user_verified=True))

        # 1. Enrol.
        driver.get(f"{origin}/login?token={token}&next=%2Fpasskeys")
        check(driver.find_element(By.TAG_NAME, "h1").text == "Passkeys", "the token link opens the passkey page")
        check(fits(driver), "the passkey page fits a 390 px screen")
        driver.set_window_size(1200, 900)
        driver.find_element(By.ID, "passkey-name").send_keys("Chromium")
        driver.find_element(By.ID, "add-passkey").click()
        WebDriverWait(driver, 20).until(lambda d: not d.find_element(By.ID, "recovery-codes").get_attribute("hidden"))
        codes = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]
        check(len(codes) == 10 and len(set(codes)) == 10, "adding a passkey shows ten recovery codes once")
        check(len(driver.get_credentials()) == 1 and driver.get_credentials()[0].is_resident_credential, "the authenticator holds one discoverable credential")
        driver.get(origin + "/passkeys")
        check("Chromium" in driver.find_element(By.CSS_SELECTOR, "ul.records").text, "the passkey is listed by its name")
        check("10 of 10 left" in driver.page_source, "the page counts ten recovery codes")

        # 2. Sign out, then in with the passkey.
        driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(origin + "/login"))
        driver.get(origin + "/login?next=%2Fcards")
        check(fits(driver), "the sign-in page fits a 390 px screen")
        driver.find_element(By.ID, "sign-in-passkey").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url == origin + "/cards")
        check(driver.find_element(By.TAG_NAME, "h1").text != "Sign in", "the passkey signs in (no token) and opens the page asked for")
        driver.save_screenshot(os.path.join(a.out, "signed-in-with-passkey.png"))

        # 3. A recovery code, once.
        driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(origin + "/login"))
        driver.find_element(By.ID, "code").send_keys(codes[3])
        driver.find_element(By.CSS_SELECTOR, "form[action='/login/recovery'] button").click()
        WebDriverWait(driver, 20).until(lambda d: "/passkeys" in d.current_url)
        check("9 codes are left" in driver.page_source, "a recovery code signs in, and the page says what is left")
        driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(origin + "/login"))
        driver.find_element(By.ID, "code").send_keys(codes[3])
        driver.find_element(By.CSS_SELECTOR, "form[action='/login/recovery'] button").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "p.error"))
        check("already used" in driver.find_element(By.CSS_SELECTOR, "p.error").text, "the same recovery code is refused the second time")

        # 5. Many people on one server.
        many_people(driver, os.path.abspath(a.cli), work, a.out)

        # 4. No CSP violation, no script error.
        problems = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]
                    and "401" not in e["message"] and "403" not in e["message"]]
        check(not problems, f"the browser logged no script or policy error ({problems})")
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait(timeout=20)
    print(f"browser passkey test passed: {len(checks)} checks")


def settle(driver):
    """A wait that reads through a page being replaced (a form post navigates while it looks)."""
    return WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))


def many_people(driver, cli, work, out):
    people = os.path.join(work, "people")

    def run(*args):
        result = subprocess.run([cli, *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {result.stderr}")
        return result.stdout

    ana = json.loads(run("people", "add", "Ana", "--people", people, "--json"))["id"]
    ben = json.loads(run("people", "add", "Ben", "--people", people, "--json"))["id"]
    records = os.path.join(work, "ben.json")
    with open(records, "w") as f:
        f.write('{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"b1","name":[{"text":"Ben"}]}},'
                '{"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/b1"},'
                '"code":{"text":"Gout"},"onsetDateTime":"2020-02-01"}}]}')
    run("import", records, "--people", people, "--person", ben)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    origin = f"http://localhost:{port}"
    # The app's redirect URI: a page on loopback that only says it was reached.
    callback_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=callback_server.serve_forever, daemon=True).start()
    callback = f"http://127.0.0.1:{callback_server.server_address[1]}/callback"
    # In the operator's catalogue before the server opens anyone's store (each store gets its copy then).
    app = json.loads(run("apps", "register", "--people", people, "--catalogue", "--name", "Condition viewer", "--purpose", "Shows your conditions",
                         "--privacy-url", "https://peers.example/privacy", "--redirect-uri", callback, "--public", "--types", "condition",
                         "--json"))["appId"]
    log = open(os.path.join(work, "serve-people.log"), "w")
    server = subprocess.Popen([cli, "serve", "--people", people, "--port", str(port), "--public-url", origin, "--text-logs", "--log-level", "warning"],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(origin + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        driver.delete_all_cookies()
        driver.remove_all_credentials()

        def enrol(who, name):
            invite = json.loads(run("people", "invite", who, "--people", people, "--public-url", origin, "--json"))["url"]
            driver.get(invite)
            settle(driver).until(lambda d: d.current_url == origin + "/passkeys")
            check(who in driver.find_element(By.ID, "person-id").text, f"{name}'s invite opens their passkey page, with their id")
            driver.find_element(By.ID, "passkey-name").send_keys(name + "'s laptop")
            driver.find_element(By.ID, "add-passkey").click()
            settle(driver).until(lambda d: not d.find_element(By.ID, "recovery-codes").get_attribute("hidden"))
            return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]

        def sign_out():
            driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
            settle(driver).until(lambda d: d.current_url.startswith(origin + "/login"))

        def passkey_sign_in():
            driver.get(origin + "/login")
            check(not driver.find_elements(By.ID, "token"), "the front's sign-in page has no token form")
            driver.find_element(By.ID, "sign-in-passkey").click()
            settle(driver).until(lambda d: d.current_url == origin + "/")

        ben_codes = enrol(ben, "Ben")
        check(len(ben_codes) == 10, "Ben's passkey comes with ten recovery codes")
        sign_out()
        passkey_sign_in()
        check("Gout" in driver.page_source, "Ben's passkey signs him in at the front, to his records")
        driver.get(origin + "/household")
        driver.find_element(By.CSS_SELECTOR, "form[action='/household/proxies'] input[name='person']").send_keys(ana)
        driver.find_element(By.CSS_SELECTOR, "form[action='/household/proxies'] button").click()
        settle(driver).until(lambda d: "Ana" in d.find_element(By.ID, "proxies").text)
        check(ana in driver.find_element(By.ID, "proxies").text, "Ben makes Ana his proxy by her id")
        sign_out()

        driver.remove_all_credentials()
        enrol(ana, "Ana")
        sign_out()
        passkey_sign_in()
        check("Gout" not in driver.page_source, "Ana's passkey signs her in, to her own (empty) records")
        driver.get(origin + "/household")
        driver.find_element(By.XPATH, "//button[contains(., 'Act for Ben')]").click()
        settle(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".proxy-banner"))
        check("Gout" in driver.page_source and "acting for Ben" in driver.find_element(By.CSS_SELECTOR, ".proxy-banner").text,
              "Ana acts for Ben: his records, under a banner")
        check(fits(driver), "the page with the proxy banner fits a 390 px screen")
        driver.set_window_size(1200, 900)
        driver.save_screenshot(os.path.join(out, "acting-as-proxy.png"))
        driver.get(origin + "/passkeys")
        check("Only the person" in driver.page_source, "a proxy does not see Ben's passkeys")
        driver.get(origin + "/")
        driver.find_element(By.XPATH, "//button[contains(., 'Back to your own records')]").click()
        settle(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".proxy-banner"))
        check("Gout" not in driver.page_source, "back to her own records")
        shared_base(driver, origin, callback, app, ben, out)
        sign_out()

        driver.find_element(By.ID, "person").send_keys(ben)
        driver.find_element(By.ID, "code").send_keys(ben_codes[0])
        driver.find_element(By.CSS_SELECTOR, "form[action='/login/recovery'] button").click()
        settle(driver).until(lambda d: "/passkeys" in d.current_url)
        driver.get(origin + "/household")
        actions = driver.find_element(By.ID, "proxy-actions").text
        check("Ana" in actions and "GET /passkeys" in actions and "POST /authorize/consent/" in actions,
              "Ben signs in with his id and a code, and sees what Ana did (the app she allowed for him too)")
    finally:
        server.terminate()
        server.wait(timeout=20)
        callback_server.shutdown()


def shared_base(driver, origin, callback, app, ben, out):
    """fhirclient at the shared base; Ana, signed in, picks Ben's records on the consent page."""
    base = origin + "/fhir"
    smart = fhirclient.client.FHIRClient(settings={
        "app_id": app, "api_base": base, "redirect_uri": callback, "scope": "openid fhirUser patient/Condition.read"})
    check(smart.prepare() is False and smart.server.auth.auth_type == "oauth2",
          "fhirclient reads the shared base's /fhir/metadata and picks OAuth2 from its oauth-uris extension")
    authorize = smart.authorize_url
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize).query))
    check(authorize.startswith(origin + "/authorize?") and q.get("aud") == base, "its authorize URL is the root's, with aud = the shared base")
    driver.get(authorize)
    whose = settle(driver).until(lambda d: d.find_element(By.ID, "whose"))
    check("your own" in whose.text and driver.find_elements(By.ID, f"whose-{ben}"),
          "Ana's consent page says whose records: her own, with Ben's to choose instead")
    driver.find_element(By.ID, f"whose-{ben}").click()
    settle(driver).until(lambda d: "the records of Ben" in d.find_element(By.ID, "whose").text)
    check(driver.find_elements(By.CSS_SELECTOR, ".proxy-banner") and "/authorize?" in driver.current_url,
          "choosing Ben comes back to the same request, acting for him")
    box = driver.find_element(By.ID, "type-condition")
    if not box.is_selected():
        box.click()
    driver.set_window_size(1200, 900)
    driver.save_screenshot(os.path.join(out, "shared-base-consent.png"))
    driver.find_element(By.ID, "submit").click()
    settle(driver).until(lambda d: d.current_url.startswith(callback))
    back = driver.current_url
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query)).get("code", "")
    check(code.startswith(ben + "."), "the code carries Ben's prefix")
    smart.handle_callback(back)
    check(smart.ready and smart.patient_id and smart.server.auth.access_token.startswith(ben + "."),
          f"fhirclient exchanged it at the root /token: a token of Ben's, patient {smart.patient_id}")
    found = FCCondition.where({"patient": smart.patient_id}).perform_resources(smart.server)
    texts = [c.code.text for c in found if c.code]
    check(texts == ["Gout"], f"fhirclient reads Ben's conditions at the shared base: {texts}")
    id_token = smart.launch_context.get("id_token")
    jwks = json.loads(urllib.request.urlopen(origin + "/.well-known/jwks.json", timeout=10).read())
    claims = jose_jwt.decode(id_token, KeySet.import_key_set(jwks), algorithms=["ES256"]).claims
    check(claims.get("iss") == origin and claims.get("fhirUser") == f"{base}/Patient/{smart.patient_id}",
          "the id token verifies (joserfc) with the root's JWKS and names the root")
    driver.get(origin + "/")
    driver.find_element(By.XPATH, "//button[contains(., 'Back to your own records')]").click()
    settle(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".proxy-banner"))


if __name__ == "__main__":
    main()
