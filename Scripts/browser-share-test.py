#!/usr/bin/env python3
"""Sharing with a clinician in a real browser (Debian's chromium, headless).

Starts `healthrecords serve` on a loopback port over a fresh store (a few records and a SMART
Health Card from the spec examples) and checks, as a person and a clinician would see it:

1. With JavaScript off (as every page of the person's works): the Share page previews the
   summary's sections; a link made there (summary + card, passcode) shows its QR code and link;
   a clinician's fetch appears in the link's access log; Revoke ends it at once (404 after).
2. With JavaScript on, for the viewer page only: a new passcode link opened in the viewer asks
   for the passcode, says so when it is wrong (with the attempts left), then shows the summary's
   sections (the problem and allergy by name) and the card.
3. The pages fit a 390 px wide screen.

Screenshots go to the output folder. Exit status 0 when every check holds.
Usage: browser-share-test.py --cli PATH [--out DIR]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time, urllib.error, urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import fits, submitted  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHC = os.path.join(ROOT, "Tests", "Fixtures", "vectors", "shc-spec")
ISSUER = "https://spec.smarthealth.cards/examples/issuer"


def check(condition, what):
    if not condition:
        raise SystemExit(f"browser share test FAILED: {what}")
    print(f"  ok  {what}", flush=True)


def browser(javascript):
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def make_link(driver, base, passcode, label):
    driver.get(base + "/links/new")
    driver.find_element(By.ID, "what-summary").click()
    for box in driver.find_elements(By.CSS_SELECTOR, "input[name=card]"):
        box.click()
    driver.find_element(By.ID, "passcode").send_keys(passcode)
    driver.find_element(By.ID, "label").send_keys(label)
    title = submitted(driver, "create-link")
    return title, driver.find_element(By.ID, "viewer-link").get_attribute("value")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "healthrecords"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "browser-share-test"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="healthrecords-share-")
    env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(work, "store.sqlite"))
    for name in ("HEALTHRECORDS_PASSPHRASE", "HEALTHRECORDS_POSTGRES_URL"):
        env.pop(name, None)

    def run(*args):
        out = subprocess.run([a.cli, *args], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {out.stderr}")
        return out.stdout

    bundle = os.path.join(work, "records.json")
    json.dump({"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in [
        {"resourceType": "Patient", "id": "p1", "name": [{"text": "Robin Example"}], "birthDate": "1980-05-06"},
        {"resourceType": "Condition", "id": "c1", "clinicalStatus": {"coding": [{"code": "active"}]}, "code": {"text": "Asthma"}, "onsetDateTime": "2020-02-01"},
        {"resourceType": "AllergyIntolerance", "id": "a1", "code": {"text": "Peanut allergy"}, "recordedDate": "2020-01-01"},
        {"resourceType": "MedicationStatement", "id": "m1", "status": "active", "medicationCodeableConcept": {"text": "Salbutamol inhaler"},
         "effectiveDateTime": "2020-04-01"},
    ]]}, open(bundle, "w"))
    run("import", bundle, "--source-name", "Riverside Clinic")
    run("import", os.path.join(SHC, "example-00-e-file.smart-health-card"), "--issuer-files", f"{ISSUER}={os.path.join(SHC, 'issuer')}", "--at", "2023-07-01")

    token_file = os.path.join(work, "person-token")
    open(token_file, "w").write("browser-share-test-person-token-0123456789abcdef\n")
    server = subprocess.Popen([a.cli, "serve", "--port", "0", "--person-token-file", token_file, "--text-logs", "--log-level", "warning"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    drivers = []
    try:
        base = None
        for line in server.stdout:
            if line.startswith("Listening on "):
                base = line.split()[-1]
                break
        check(base is not None, f"server listening at {base}")

        pages = browser(javascript=False)
        drivers.append(pages)
        pages.get(base + "/login?token=" + open(token_file).read().strip())
        pages.get(base + "/links/new")
        text = pages.find_element(By.ID, "sections").text
        check("Active Problems" in text and "Allergies" in text and "1 entry" in text, "the Share page previews the summary's sections with counts")
        check(fits(pages), "the Share page fits a 390 px screen")
        title, viewer_link = make_link(pages, base, "pass word", "For Dr Browser")
        check(title.startswith("Your link is ready") and pages.find_elements(By.CSS_SELECTOR, "#link-qr svg"), "a link made on the page shows its QR code")
        check(viewer_link.startswith(base + "/view#shlink:/"), "and the link to send, opening in the viewer")
        check(fits(pages), "the new link's page fits a 390 px screen")
        pages.save_screenshot(os.path.join(a.out, "link-created.png"))
        handle = pages.find_element(By.ID, "link-page").get_attribute("href").rsplit("/", 1)[1]

        payload = json.loads(__import__("base64").urlsafe_b64decode(viewer_link.split("shlink:/", 1)[1] + "=="))
        status, manifest = post(payload["url"], {"recipient": "Front desk, Hilltop Clinic", "passcode": "pass word"})
        check(status == 200 and len(manifest["files"]) == 2, "a clinician's system fetches the manifest (summary and card)")
        pages.get(base + "/links/" + handle)
        log = pages.find_element(By.ID, "access-log").text
        check("Front desk, Hilltop Clinic" in log and "Opened" in log, "the access log shows who opened it")
        pages.save_screenshot(os.path.join(a.out, "link-log.png"))
        submitted(pages, "revoke")
        check("Revoked" in pages.find_element(By.ID, "link-state").text and not pages.find_elements(By.ID, "revoke"), "Revoke ends the link on its page")
        check(post(payload["url"], {"recipient": "Front desk", "passcode": "pass word"})[0] == 404, "and at once for the clinician (404)")

        # The viewer, with JavaScript on for it alone.
        _, viewer_link = make_link(pages, base, "open sesame", "Summary for the ER")
        viewer = browser(javascript=True)
        drivers.append(viewer)
        viewer.get(viewer_link)
        WebDriverWait(viewer, 20).until(lambda d: d.find_element(By.ID, "open-form").is_displayed())
        check(viewer.find_element(By.ID, "passcode").is_displayed() and "Summary for the ER" in viewer.find_element(By.ID, "heading").text,
              "the viewer reads the link from the fragment and asks for the passcode")
        viewer.find_element(By.ID, "passcode").send_keys("wrong guess")
        viewer.find_element(By.ID, "open").click()
        WebDriverWait(viewer, 20).until(lambda d: "Wrong passcode" in d.find_element(By.ID, "status").text)
        check("Attempts left: 4" in viewer.find_element(By.ID, "status").text, "a wrong passcode says how many attempts are left")
        box = viewer.find_element(By.ID, "passcode")
        box.clear()
        box.send_keys("open sesame")
        viewer.find_element(By.ID, "open").click()
        WebDriverWait(viewer, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#records section"))
        records = viewer.find_element(By.ID, "records").text
        check("Asthma" in records and "Peanut allergy" in records and "Salbutamol inhaler" in records and "Robin Example" in records,
              "the viewer decrypts the summary and shows its sections")
        check(viewer.find_elements(By.CSS_SELECTOR, "section.shc") and "CVX 207" in records and "John B. Anyperson" in records, f"and the card ({records})")
        check(fits(viewer), "the viewer fits a 390 px screen")
        viewer.save_screenshot(os.path.join(a.out, "viewer.png"))
        errors = [e for e in viewer.get_log("browser") if e.get("level") == "SEVERE" and "401" not in e.get("message", "") and "favicon.ico" not in e.get("message", "")]
        check(not errors, f"no script or policy errors in the viewer ({errors})")
    finally:
        for d in drivers:
            d.quit()
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print("browser share test: every check held")


if __name__ == "__main__":
    main()
