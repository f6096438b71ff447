#!/usr/bin/env python3
"""Our SMART Health Links server walked by an independent client (jwcrypto + urllib).

`healthrecords serve` runs on loopback over a fresh store; `healthrecords share create` makes the
links. Checked: jwcrypto decrypts every file served (with zip: DEF and without) to the content
promised (a check-in collection, an IPS document, a card file); a U link wants a recipient; a P
link's passcode limit holds under 20 parallel wrong guesses (then the link answers 404, even to the
right passcode); a location works once and not after its lifetime; an L link's file is encrypted again after an import (same
key, same header, new IV) and polling it too often gets 429 with Retry-After; an expired link and a
revoked one answer 404 at once; `share log` shows the accesses. Exit status 0 when every check holds.
Usage: shl_sender_interop.py --cli PATH --fixtures DIR
"""
import argparse
import base64
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from jwcrypto import jwe, jwk

ISSUER = "https://spec.smarthealth.cards/examples/issuer"
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def payload(shlink):
    return json.loads(b64url_decode(shlink.split("shlink:/", 1)[1]))


def decrypt(compact, key_b64):
    token = jwe.JWE()
    token.deserialize(compact, key=jwk.JWK(kty="oct", k=key_b64))
    return json.loads(b64url_decode(compact.split(".")[0])), token.payload


def http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--fixtures", required=True)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        store = os.path.join(work, "store.sqlite")
        env = dict(os.environ, HEALTHRECORDS_STORE=store)
        env.pop("HEALTHRECORDS_POSTGRES_URL", None)

        def cli(*argv, ok=True):
            r = subprocess.run([args.cli, *argv], env=env, capture_output=True, text=True, timeout=120)
            if ok and r.returncode != 0:
                raise SystemExit(f"{' '.join(argv[:2])} exited {r.returncode}: {r.stderr.strip()}")
            return r

        def bundle(*resources):
            path = os.path.join(work, f"in-{len(os.listdir(work))}.json")
            json.dump({"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}, open(path, "w"))
            return path

        cli("import", bundle(
            {"resourceType": "Patient", "id": "p1", "name": [{"text": "Robin Example"}], "birthDate": "1980-05-06"},
            {"resourceType": "Condition", "id": "c1", "code": {"text": "Asthma"}, "onsetDateTime": "2020-02-01"},
            {"resourceType": "AllergyIntolerance", "id": "a1", "code": {"text": "Peanut"}, "recordedDate": "2020-01-01"},
            {"resourceType": "Immunization", "id": "i1", "status": "completed", "vaccineCode": {"text": "COVID-19"}, "occurrenceDateTime": "2021-01-02"},
            {"resourceType": "MedicationStatement", "id": "m1", "status": "active", "medicationCodeableConcept": {"text": "Salbutamol"},
             "effectiveDateTime": "2020-04-01"},
        ), "--source", "clinic")
        cli("import", os.path.join(args.fixtures, "vectors/shc-spec/example-00-e-file.smart-health-card"),
            "--issuer-files", f"{ISSUER}={os.path.join(args.fixtures, 'vectors/shc-spec/issuer')}", "--at", "2023-07-01")
        card_id = json.loads(cli("cards", "--json").stdout)[0]["id"]

        # Locations live 3 s here (an hour by default), so their lifetime can be seen.
        server = subprocess.Popen([args.cli, "serve", "--port", "0", "--store", store, "--log-level", "error", "--link-location-lifetime", "3"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            base = None
            for line in server.stdout:
                if line.startswith("Listening on "):
                    base = line.split("Listening on ", 1)[1].strip()
                    break
            if not base:
                raise SystemExit("serve did not start")

            def share(*argv):
                return json.loads(cli("share", "create", "--public-url", base, "--json", *argv).stdout)

            # U: the check-in collection (compressed), and a small collection (not compressed).
            for made, zipped in [(share("--check-in", "--expires", "10m"), True), (share("--types", "allergy", "--expires", "10m"), False)]:
                p = payload(made["link"])
                check(p["flag"] == "U", f"a single-file link is not U: {p}")
                status, _, _ = http("GET", p["url"])
                check(status == 400, f"a U link without recipient answered {status}")
                status, headers, body = http("GET", p["url"] + "?recipient=" + urllib.parse.quote("Interop Desk"))
                if check(status == 200 and headers.get("Content-Type") == "application/jose", f"U file: {status} {headers}"):
                    header, plain = decrypt(body.decode(), p["key"])
                    check(("zip" in header) == zipped and header.get("cty") == "application/fhir+json", f"header {header} (zip expected: {zipped})")
                    doc = json.loads(plain)
                    patients = [e for e in doc["entry"] if e["resource"]["resourceType"] == "Patient"]
                    check(doc["type"] == "collection" and "timestamp" in doc and len(patients) == 1
                          and all(e["fullUrl"].startswith("urn:uuid:") for e in doc["entry"]), f"not a patient-shared collection: {doc}")

            # P: 20 parallel wrong guesses never pass the limit of 5; then even the right one is refused.
            guarded = payload(share("--summary", "--cards", card_id, "--expires", "10m", "--passcode-file", write(work, "pc", "right passcode"))["link"])
            status, _, body = http("POST", guarded["url"], {"recipient": "Interop"})
            check(status == 401 and json.loads(body) == {"remainingAttempts": 5}, f"no passcode: {status} {body}")
            def guess(n):
                # An attacker told to wait (429: every check slot busy) comes back when told.
                for _ in range(60):
                    answer = http("POST", guarded["url"], {"recipient": f"guess {n}", "passcode": f"wrong {n}"})
                    if answer[0] != 429:
                        return answer
                    time.sleep(float(answer[1].get("Retry-After", "1")))
                return answer
            with concurrent.futures.ThreadPoolExecutor(20) as pool:
                answers = list(pool.map(guess, range(20)))
            left = sorted(json.loads(b)["remainingAttempts"] for s, _, b in answers if s == 401)
            check(left == [0, 1, 2, 3, 4], f"wrong guesses evaluated: {left}; statuses {[s for s, _, _ in answers]}")
            check(all(s in (401, 404) for s, _, _ in answers), f"statuses {[s for s, _, _ in answers]}")
            status, _, _ = http("POST", guarded["url"], {"recipient": "Interop", "passcode": "right passcode"})
            check(status == 404, f"a disabled link answered {status}")

            # P with the right passcode: the summary and the card by location, each once.
            made = share("--summary", "--cards", card_id, "--expires", "10m", "--passcode-file", write(work, "pc2", "right passcode"))
            p = payload(made["link"])
            status, _, body = http("POST", p["url"], {"recipient": "Interop", "passcode": "right passcode", "embeddedLengthMax": 0})
            if check(status == 200, f"manifest: {status} {body}"):
                files = json.loads(body)["files"]
                check([f["contentType"] for f in files] == ["application/fhir+json", "application/smart-health-card"], f"files {files}")
                for f in files:
                    status, _, jwe_bytes = http("GET", f["location"])
                    if check(status == 200, f"location {status}"):
                        header, plain = decrypt(jwe_bytes.decode(), p["key"])
                        check(header.get("cty") == f["contentType"], f"cty {header}")
                        content = json.loads(plain)
                        if f["contentType"] == "application/smart-health-card":
                            check(len(content["verifiableCredential"]) == 1, f"card file {content}")
                        else:
                            check(content["type"] == "document" and content["entry"][0]["resource"]["resourceType"] == "Composition", "not an IPS")
                    status, _, _ = http("GET", f["location"])
                    check(status == 404, f"a location used twice answered {status}")
            expected = ["manifest", "file", "location-used", "file", "location-used"]
            for _ in range(100):  # the server writes its access log in batches, a moment later
                log = json.loads(cli("share", "log", made["handle"], "--json").stdout)
                if [e["event"] for e in reversed(log)] == expected:
                    break
                time.sleep(0.05)
            check([e["event"] for e in reversed(log)] == expected, f"log {log}")

            # A location older than its lifetime is not served.
            status, _, body = http("POST", p["url"], {"recipient": "Interop", "passcode": "right passcode", "embeddedLengthMax": 0})
            late = json.loads(body)["files"][0]["location"] if status == 200 else None
            time.sleep(4)
            check(late is not None and http("GET", late)[0] == 404, "a location past its lifetime was served")

            # L: encrypted again after an import (same key and header, new IV); polled too often: 429.
            lt = payload(share("--summary", "--expires", "10m", "--long-term", "--manifest")["link"])
            def embedded():
                status, headers, body = http("POST", lt["url"], {"recipient": "Interop", "embeddedLengthMax": 1 << 20})
                check(status == 200, f"L manifest {status}")
                f = json.loads(body)["files"][0]
                check(f.get("status") == "can-change", f"L file status {f}")
                return f["embedded"]
            first = embedded()
            cli("import", bundle({"resourceType": "Condition", "id": "c2", "code": {"text": "Migraine"}, "onsetDateTime": "2022-02-01"}), "--source", "second")
            second = embedded()
            a, b = first.split("."), second.split(".")
            check(a[0] == b[0] and a[2] != b[2], "the L file was not encrypted again with a fresh IV under the same header")
            check(b"Migraine" in decrypt(second, lt["key"])[1] and b"Migraine" not in decrypt(first, lt["key"])[1], "the L file does not follow the records")
            statuses = [http("POST", lt["url"], {"recipient": "Interop"}) for _ in range(12)]
            limited = [h for s, h, _ in statuses if s == 429]
            check(limited and int(limited[0].get("Retry-After", "0")) >= 1, f"fast polls: {[s for s, _, _ in statuses]}")

            # Expiry and revocation act at once.
            short = payload(share("--check-in", "--expires", "2s")["link"])
            time.sleep(3)
            check(http("GET", short["url"] + "?recipient=x")[0] == 404, "an expired link was served")
            gone = share("--check-in", "--expires", "10m")
            check(http("GET", payload(gone["link"])["url"] + "?recipient=x")[0] == 200, "a fresh link was not served")
            cli("share", "revoke", gone["handle"])
            check(http("GET", payload(gone["link"])["url"] + "?recipient=x")[0] == 404, "a revoked link was served")
        finally:
            server.terminate()
            server.wait(timeout=30)
    for f in failures:
        print("FAIL:", f)
    print("shl-sender-interop:", "every check held" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


def write(directory, name, text):
    path = os.path.join(directory, name)
    open(path, "w").write(text + "\n")
    return path


if __name__ == "__main__":
    sys.exit(main())
