#!/usr/bin/env python3
"""Drives the consent pages in a real browser (Debian's chromium, headless, JavaScript off).

Starts `healthrecords serve` on a loopback port over a fresh store (one Synthea patient and three
SMART Health Cards from the spec examples, two of them immunizations), registers an app with the CLI, and checks what a
person and an app would see:

1. The app asks for four types; the person opens the consent page, turns two on, submits; the
   app then reads exactly those two types (and the request reports completed).
2. The app asks for verifiable records; the person sees the two matching cards, ticks one,
   shares; the app collects exactly that card once, and the next request asks again.
3. A second app asks for lab results; the person picks "the past 30 days" and "share new records";
   the app then reads nothing older (every lab of the store is), a lab dated today once it is
   imported, and its earliest date is 30 days back.
4. A third app asks for medications; the person turns them on and ticks two of their medications;
   the app reads exactly those two (its medication list, and the records behind them).
5. Every page fits a 390 px wide screen without sideways scrolling.
6. What the person sees: search finds a lab result by its LOINC code; its page shows the value,
   unit, reference range and flag; its trend is an SVG with one point per result and a table;
   the summary; each page at phone and desktop widths.

Screenshots (consent page, share page, timeline, app page) go to the output folder; with
--update-docs the consent page and timeline are copied to docs/screenshots/.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time, urllib.parse, urllib.request, urllib.error

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import fits, submitted  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
SHC = os.path.join(SHARED, "vectors", "shc-spec")
ISSUER = "https://spec.smarthealth.cards/examples/issuer"
PHOTO_ISSUER = "https://photo-issuer.example"
IMMUNIZATION = "https://smarthealth.cards#immunization"
checks = []


def check(condition, what):
    if not condition:
        raise SystemExit(f"browser test FAILED: {what}")
    checks.append(what)
    print(f"  ok  {what}", flush=True)


STORE_ARGS = []


def run(cli, *args, env=None, store=True):
    out = subprocess.run([cli, *args, *(STORE_ARGS if store else [])], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {out.stderr}")
    return out.stdout


def http(method, url, token=None, json_body=None, form=None):
    headers = {}
    data = None
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if json_body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(json_body).encode()
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def screenshot(driver, path, width=390, max_height=2000):
    driver.execute_script("window.scrollTo(0, 0)")
    driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height, 600), max_height))
    time.sleep(0.4)  # let the switches finish their 0.15 s slide
    driver.save_screenshot(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "browser-test"))
    ap.add_argument("--update-docs", action="store_true")
    ap.add_argument("--postgres", help="a PostgreSQL server URL (postgres://user@host:port/db): use a new person's store there instead of a file")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="healthrecords-browser-")
    env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(work, "store.sqlite"))
    env.pop("HEALTHRECORDS_PASSPHRASE", None)
    if a.postgres:
        STORE_ARGS.extend(["--postgres", f"{a.postgres}?person=browser-{os.getpid()}-{int(time.time())}"])
    print(f"browser test on {'PostgreSQL' if a.postgres else 'SQLite'}", flush=True)
    server = None
    driver = None
    try:
        synthea = sorted(os.listdir(os.path.join(SHARED, "data", "fhir", "synthea")))
        patient = next(f for f in synthea if f.startswith("Clint_Champlin")) if any(f.startswith("Clint_Champlin") for f in synthea) else synthea[0]
        run(a.cli, "import", os.path.join(SHARED, "data", "fhir", "synthea", patient), env=env)
        for card in ("example-00-e-file.smart-health-card", "example-01-e-file.smart-health-card", "example-02-e-file.smart-health-card"):
            run(a.cli, "import", os.path.join(SHC, card), "--issuer-files", f"{ISSUER}={os.path.join(SHC, 'issuer')}", "--at", "2023-07-01", env=env)
        cards = json.loads(run(a.cli, "cards", "--type", IMMUNIZATION, "--json", env=env))
        check(len(cards) == 2, f"two immunization cards stored ({len(cards)} found)")
        # A lab result with a reference range and an interpretation, from another provider.
        run(a.cli, "import", os.path.join(SHARED, "data", "fhir", "r4-examples", "observation-example-f001-glucose.json"), "--source-name", "Acme Laboratory", env=env)
        # Medications from a pharmacy besides the patient's own, so there are several to pick from.
        pharmacy = os.path.join(work, "pharmacy.json")
        with open(pharmacy, "w") as f:
            json.dump({"resourceType": "Bundle", "type": "collection", "entry": [{"resource": {
                "resourceType": "MedicationStatement", "id": f"pharmacy-{code}", "status": "active", "effectiveDateTime": "2024-02-01",
                "medicationCodeableConcept": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": code, "display": name}]}}}
                for code, name in (("314076", "Lisinopril 10 MG Oral Tablet"), ("617312", "Atorvastatin 10 MG Oral Tablet"), ("312938", "Sertraline 50 MG Oral Tablet"))]}, f)
        run(a.cli, "import", pharmacy, "--source-name", "Acme Pharmacy", env=env)
        labs = json.loads(run(a.cli, "records", "--type", "lab-result", "--json", env=env))
        trend_code, trend_units = "2339-0", set()
        trend_count = 0
        for r in labs:
            res = r.get("resource") or {}
            if any(c.get("system") == "http://loinc.org" and c.get("code") == trend_code for c in res.get("code", {}).get("coding", [])) and "valueQuantity" in res:
                trend_count += 1
                trend_units.add(res["valueQuantity"].get("unit"))
        check(trend_count >= 3 and len(trend_units) == 1, f"{trend_count} glucose results (LOINC {trend_code}) in one unit to chart")
        app = json.loads(run(a.cli, "apps", "register", "--name", "Glucose Buddy", "--purpose", "Shows your lab results next to your vaccinations.",
                             "--privacy-url", "https://glucose-buddy.example/privacy", "--types", "lab-result,immunization,condition,medication", "--json", env=env))

        # A card this store does not hold yet, from an issuer of the test's own, to upload as a
        # phone photo of its QR code: rotated, blurred, JPEG.
        run(a.cli, "keys", "generate", "--private", os.path.join(work, "photo-issuer.private.jwks"), "--public", os.path.join(work, "photo-issuer.jwks"), env=env, store=False)
        run(a.cli, "issue", os.path.join(SHC, "example-00-a-fhirBundle.json"), "--key", os.path.join(work, "photo-issuer.private.jwks"),
            "--iss", PHOTO_ISSUER, "--jws", os.path.join(work, "photo-card.jws"), env=env, store=False)
        run(a.cli, "qr", "encode", "--shc", os.path.join(work, "photo-card.jws"), "--png", os.path.join(work, "photo-card.png"), "--module-size", "5", env=env, store=False)
        from PIL import Image, ImageFilter
        qr = Image.open(os.path.join(work, "photo-card.png")).convert("L")
        canvas = Image.new("L", (qr.width + 160, qr.height + 160), 235)
        canvas.paste(qr, (80, 80))
        photo = canvas.rotate(12, expand=True, fillcolor=235, resample=Image.BICUBIC).filter(ImageFilter.GaussianBlur(0.8))
        card_photo = os.path.join(work, "card-photo.jpg")
        photo.convert("RGB").save(card_photo, "JPEG", quality=60)

        token_file = os.path.join(work, "person.token")
        with open(token_file, "w") as f:
            f.write("browser-test-person-token-0123456789")
        server = subprocess.Popen([a.cli, "serve", "--port", "0", "--person-token-file", token_file, "--text-logs", "--log-level", "warning",
                                   "--keys", f"{PHOTO_ISSUER}={os.path.join(work, 'photo-issuer.jwks')}", "--offline", *STORE_ARGS],
                                  stdout=subprocess.PIPE, text=True, env=env)
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
        check(base is not None and sign_in is not None, f"server listening at {base}")

        status, tok = http("POST", base + "/token", form={"grant_type": "client_credentials", "client_id": app["appId"], "client_secret": app["secret"]})
        check(status == 200 and tok["token_type"] == "Bearer", "the app gets a bearer token")
        token = tok["access_token"]
        status, before = http("GET", base + "/records?limit=1000", token)
        check(status == 200 and before["records"] == [], "before consent the app sees what an empty store shows")

        options = Options()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1"):
            options.add_argument(arg)
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(30)

        driver.get(sign_in)
        check(driver.find_elements(By.CSS_SELECTOR, "section.group"), "signing in opens the records timeline")
        check(fits(driver), "the timeline fits a 390 px screen")
        screenshot(driver, os.path.join(a.out, "timeline.png"))

        status, req = http("POST", base + "/authorization-requests", token, {"types": ["lab-result", "immunization", "condition", "medication"]})
        check(status == 201 and req["status"] == "pending", "the app's authorization request waits for the person")
        driver.get(req["url"])
        toggles = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=allow]")
        check(len(toggles) == 4 and not any(t.is_selected() for t in toggles), "the consent page has one toggle per type, all off")
        page = driver.page_source
        check("Glucose Buddy" in page and "Shows your lab results" in page and "https://glucose-buddy.example/privacy" in page
              and "Highly sensitive" in page and "allow all" not in page.lower(), "name, purpose, privacy link and sensitivity shown; no allow-all")
        check(fits(driver), "the consent page fits a 390 px screen")
        driver.find_element(By.ID, "type-lab-result").click()
        driver.find_element(By.ID, "type-immunization").click()
        screenshot(driver, os.path.join(a.out, "consent.png"))
        title = submitted(driver, "submit")
        check(title.startswith("Done"), f"submitting the form without JavaScript saves the choice (page: {title!r})")

        status, polled = http("GET", f"{base}/authorization-requests/{req['id']}", token)
        check(polled["status"] == "completed", "the app's poll reports the request completed")
        status, after = http("GET", base + "/records?limit=1000", token)
        types = {r["clinicalType"] for r in after["records"]}
        check(types == {"lab-result", "immunization"}, f"the app sees exactly the two types turned on: {sorted(types)}")
        for t in ("condition", "medication"):
            status, denied = http("GET", f"{base}/records?type={t}", token)
            check(denied["records"] == [], f"{t} (turned off) looks like no data")

        # A history window (issue 33): the past 30 days, chosen on the sheet.
        def app_asking(name, purpose, types):
            """Registers an app with the CLI, gets its token and asks for `types`: (token, request)."""
            reg = json.loads(run(a.cli, "apps", "register", "--name", name, "--purpose", purpose, "--privacy-url",
                                 f"https://{name.lower().replace(' ', '-')}.example/privacy", "--types", ",".join(types), "--json", env=env))
            _, tok = http("POST", base + "/token", form={"grant_type": "client_credentials", "client_id": reg["appId"], "client_secret": reg["secret"]})
            _, req = http("POST", base + "/authorization-requests", tok["access_token"], {"types": types})
            return tok["access_token"], req

        rtoken, rreq = app_asking("Recent Labs", "Your last month of results.", ["lab-result"])
        driver.get(rreq["url"])
        check(driver.find_element(By.ID, "history-all").is_selected(), "the sheet offers all of history first chosen")
        driver.find_element(By.ID, "type-lab-result").click()
        driver.find_element(By.ID, "history-30d").click()
        driver.find_element(By.CSS_SELECTOR, "input[name=newData][value=share]").click()
        check(fits(driver), "the consent page with its history choices fits a 390 px screen")
        title = submitted(driver, "submit")
        check(title.startswith("Done"), f"the window is saved (page: {title!r})")
        status, windowed = http("GET", base + "/records?type=lab-result&limit=1000", rtoken)
        check(status == 200 and windowed["records"] == [] and len(labs) > 0,
              f"with a 30-day window the app reads none of the store's {len(labs)} older lab results")
        today = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        fresh = os.path.join(work, "fresh-lab.json")
        with open(fresh, "w") as f:
            json.dump({"resourceType": "Observation", "id": "fresh-hemoglobin", "status": "final",
                       "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category", "code": "laboratory"}]}],
                       "code": {"coding": [{"system": "http://loinc.org", "code": "718-7"}], "text": "Hemoglobin"},
                       "effectiveDateTime": today, "valueQuantity": {"value": 14.1, "unit": "g/dL"}}, f)
        run(a.cli, "import", fresh, "--source-name", "Acme Laboratory", env=env)
        status, windowed = http("GET", base + "/records?type=lab-result&limit=1000", rtoken)
        ids = [r["resource"]["id"] for r in windowed["records"]]
        check(ids == ["fresh-hemoglobin"], f"a lab dated today is read, and still nothing older ({ids})")
        status, dates = http("GET", base + "/authorization/earliest-dates?types=lab-result", rtoken)
        earliest = (dates.get("earliestDates") or {}).get("lab-result") or ""
        expected = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 30 * 86400))
        check(status == 200 and earliest[:10] in (expected, time.strftime("%Y-%m-%d", time.gmtime(time.time() - 30 * 86400 + 120))),
              f"the app's earliest date is 30 days back ({earliest})")
        status, everything = http("GET", base + "/records?type=lab-result&limit=1000", token)
        check(len(everything["records"]) == len(labs), "the first app (all of history, new records under ask) still reads every older lab result")

        # Per-medication authorization (issue 33): two medications ticked, exactly two read.
        meds = json.loads(run(a.cli, "medications", "--json", env=env))
        check(len(meds) >= 3, f"the person has {len(meds)} medications to pick from")
        ptoken, preq = app_asking("Pill Reminder", "Reminds you to take your medications.", ["medication"])
        driver.get(preq["url"])
        boxes = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=medication]")
        check(len(boxes) == len(meds) and not any(b.is_selected() for b in boxes), f"the sheet lists the {len(meds)} medications, none ticked")
        driver.find_element(By.ID, "type-medication").click()
        ticked = [boxes[0].get_attribute("value"), boxes[1].get_attribute("value")]
        boxes[0].click()
        boxes[1].click()
        check(fits(driver), "the consent page with the medication list fits a 390 px screen")
        screenshot(driver, os.path.join(a.out, "consent-medications.png"))
        title = submitted(driver, "submit")
        check(title.startswith("Done"), f"the pick is saved (page: {title!r})")
        status, read = http("GET", base + "/medications", ptoken)
        check(status == 200 and sorted(m["id"] for m in read["medications"]) == sorted(ticked),
              f"the app's medication list holds exactly the two ticked ({[m['name'] for m in read['medications']]})")
        behind = {(r["source"], r["resourceType"], r["id"]) for m in meds if m["id"] in ticked for r in m["records"]}
        status, precs = http("GET", base + "/records?type=medication&limit=1000", ptoken)
        got = {(r["source"], r["resourceType"], r["id"]) for r in precs["records"]}
        check(got == behind, f"the app reads the {len(behind)} records behind them and no other medication record ({len(got)} read)")

        status, creq = http("POST", base + "/verifiable-record-requests", token, {"recordTypes": [IMMUNIZATION]})
        check(status == 201, "the app asks for verifiable immunization records")
        driver.get(creq["url"])
        boxes = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=card]")
        check(len(boxes) == 2, "the share page offers the two immunization cards, not the laboratory one")
        picked = boxes[1].get_attribute("value")
        boxes[1].click()
        screenshot(driver, os.path.join(a.out, "share.png"))
        check(fits(driver), "the share page fits a 390 px screen")
        title = submitted(driver, "submit")
        check(title.startswith("Done"), "sharing the ticked card is confirmed")
        status, got = http("POST", f"{base}/verifiable-record-requests/{creq['id']}/records", token)
        jws = {c["id"]: c["dataRepresentation"] for c in cards}
        check(status == 200 and [r["id"] for r in got["records"]] == [picked] and got["records"][0]["dataRepresentation"] == jws[picked],
              "the app collects exactly the ticked card, its JWS as dataRepresentation")
        status, again = http("POST", f"{base}/verifiable-record-requests/{creq['id']}/records", token)
        check(status == 409, "a second collection is refused")
        status, nxt = http("POST", base + "/verifiable-record-requests", token, {"recordTypes": [IMMUNIZATION]})
        check(nxt["status"] == "pending", "the next request asks the person again")

        driver.get(f"{base}/apps/{app['appId']}")
        check("Audit log" in driver.page_source and "records" in driver.page_source, "the app page shows grants and the audit log")
        screenshot(driver, os.path.join(a.out, "app.png"))
        driver.get(base + "/immunizations")
        check(fits(driver), "the immunization checklist fits a 390 px screen")

        # What the person sees (issue 17): a result's page, its trend, the summary, search.
        shots = {}
        driver.get(base + "/search?q=15074-8")
        links = driver.find_elements(By.CSS_SELECTOR, "ul.records a.name")
        check(len(links) == 1 and "Glucose" in links[0].text, "search finds the lab result by its LOINC code")
        links[0].click()
        page = driver.page_source
        value = driver.find_element(By.CSS_SELECTOR, ".result .value").text
        check(value == "6.3 mmol/l", f"the record page shows the value with its unit ({value!r})")
        check("3.1–6.2 mmol/l" in page and "High" in page, "the record page shows the reference range and the High flag")
        check("Acme Laboratory" in page and "15074-8" in page and "LOINC" in page, "the page names the provider and the code")
        check(driver.find_element(By.CSS_SELECTOR, "details.json summary").text == "Original FHIR JSON", "the original JSON is folded in <details>")
        shots["record"] = driver.current_url
        driver.get(f"{base}/trend?key=loinc%3A{trend_code}")
        points = driver.find_elements(By.CSS_SELECTOR, "svg.trend circle.point")
        check(len(points) == trend_count, f"the trend chart is an SVG with one point per result ({len(points)} of {trend_count})")
        svg = driver.find_element(By.CSS_SELECTOR, "svg.trend")
        check(svg.get_attribute("role") == "img" and driver.find_elements(By.CSS_SELECTOR, "svg.trend title") and driver.find_elements(By.CSS_SELECTOR, "svg.trend desc"),
              "the chart has a role, a title and a description")
        rows = driver.find_elements(By.CSS_SELECTOR, "table.values tbody tr")
        check(len(rows) == trend_count, "a table of the same values sits behind the chart")
        shots["trend"] = driver.current_url
        driver.get(base + "/summary")
        check(len(driver.find_elements(By.CSS_SELECTOR, "ul.summary li")) >= 3, "the summary lists the most frequent labs and vitals")
        shots["summary"] = driver.current_url
        driver.get(base + "/search?q=glucose")
        shots["search"] = driver.current_url

        # A phone photo of a card's QR code (JPEG), uploaded from the browser, is verified and stored.
        before = len(json.loads(run(a.cli, "cards", "--json", env=env)))
        driver.get(base + "/upload")
        check(fits(driver), "the upload page fits a 390 px screen")
        driver.find_element(By.ID, "file").send_keys(card_photo)
        old = driver.find_element(By.TAG_NAME, "html")
        driver.find_element(By.CSS_SELECTOR, "form.card button.primary").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
        page = driver.page_source
        check("Verified and added" in page and PHOTO_ISSUER in page, "an uploaded JPEG photo of a card's QR code is read, verified and added")
        after = json.loads(run(a.cli, "cards", "--json", env=env))
        check(len(after) == before + 1 and any(c["issuerIdentifier"] == PHOTO_ISSUER for c in after), "the photographed card is stored")
        shots["upload"] = base + "/upload"
        shots["cards"] = base + "/cards"
        shots["timeline"] = base + "/"
        for name, url in shots.items():
            for label, width in (("phone", 390), ("desktop", 1280)):
                driver.get(url)
                check(fits(driver, width), f"the {name} page fits a {width} px screen")
                screenshot(driver, os.path.join(a.out, f"{name}-{label}.png"), width=width)

        if a.update_docs:
            docs = os.path.join(ROOT, "docs", "screenshots")
            os.makedirs(docs, exist_ok=True)
            for name in ("consent.png", "timeline.png") + tuple(f"{n}-{w}.png" for n in shots for w in ("phone", "desktop")):
                shutil.copy(os.path.join(a.out, name), os.path.join(docs, name))
        print(f"browser test passed: {len(checks)} checks; screenshots in {a.out}", flush=True)
    finally:
        if driver:
            driver.quit()
        if server:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
