#!/usr/bin/env python3
"""SMART Health Links against an independent JWE implementation (jwcrypto).

jwcrypto encrypts a card file (with zip: DEF) and the IG's IPS (without), a small sharing server
on loopback serves them behind a passcode link (one file embedded in the manifest, one by
location) and behind a U link, and `healthrecords import` follows each link: the card must be
verified and stored, the IPS imported. Exit status 0 when every check holds.
Usage: shl_interop.py --cli PATH --fixtures DIR
"""
import argparse
import base64
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

from jwcrypto import jwe, jwk

ISSUER = "https://spec.smarthealth.cards/examples/issuer"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def encrypt(key: jwk.JWK, plaintext: bytes, cty: str, compress: bool) -> str:
    header = {"alg": "dir", "enc": "A256GCM", "cty": cty}
    if compress:
        header["zip"] = "DEF"
    token = jwe.JWE(plaintext, protected=json.dumps(header))
    token.add_recipient(key)
    return token.serialize(compact=True)


def link(payload: dict) -> str:
    return "shlink:/" + b64url(json.dumps(payload, separators=(",", ":")).encode())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--fixtures", required=True)
    args = parser.parse_args()

    raw_key = os.urandom(32)
    key = jwk.JWK(kty="oct", k=b64url(raw_key))
    card = open(os.path.join(args.fixtures, "vectors/shc-spec/example-00-e-file.smart-health-card"), "rb").read()
    ips = open(os.path.join(args.fixtures, "vectors/shl/IPS_IG-bundle-01.json"), "rb").read()
    card_jwe = encrypt(key, card, "application/smart-health-card", compress=True)
    ips_jwe = encrypt(key, ips, "application/fhir+json", compress=False)
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def reply(self, status, body, ctype):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            seen.append(("POST", self.path, body))
            if self.path != "/m":
                return self.reply(404, "", "text/plain")
            if body.get("passcode") != "4321":
                return self.reply(401, json.dumps({"remainingAttempts": 3}), "application/json")
            port = self.server.server_address[1]
            manifest = {"files": [
                {"contentType": "application/smart-health-card", "embedded": card_jwe},
                {"contentType": "application/fhir+json", "location": f"http://127.0.0.1:{port}/f/1"},
            ]}
            self.reply(200, json.dumps(manifest), "application/json")

        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            seen.append(("GET", url.path, urllib.parse.parse_qs(url.query)))
            if url.path == "/f/1":
                return self.reply(200, ips_jwe, "application/jose")
            if url.path == "/u" and "recipient" in urllib.parse.parse_qs(url.query):
                return self.reply(200, card_jwe, "application/jose")
            self.reply(404, "", "text/plain")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    failures = []

    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(work, "store.sqlite"))
        env.pop("HEALTHRECORDS_POSTGRES_URL", None)
        passcode = os.path.join(work, "passcode.txt")
        open(passcode, "w").write("4321\n")
        verify = ["--issuer-files", f"{ISSUER}={os.path.join(args.fixtures, 'vectors/shc-spec/issuer')}", "--at", "2023-07-01"]

        def run(shlink, *extra):
            r = subprocess.run([args.cli, "import", shlink, "--recipient", "Interop Clinic", "--allow-loopback", "--json", *verify, *extra],
                               env=env, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                failures.append(f"import exited {r.returncode}: {r.stderr.strip()}")
                return None
            return json.loads(r.stdout)["links"][0]

        guarded = run(link({"url": base + "/m", "key": b64url(raw_key), "flag": "P", "label": "Interop summary"}), "--passcode-file", passcode)
        if guarded:
            files = guarded["files"]
            card_ok = files[0]["status"] == "cards" and files[0]["cards"][0]["valid"] and files[0]["cards"][0]["stored"]
            ips_ok = files[1]["status"] == "imported" and files[1]["inserted"] > 0 and files[1]["source"] == "Interop summary"
            if not card_ok:
                failures.append(f"the jwcrypto-encrypted card (zip DEF) was not verified and stored: {files[0]}")
            if not ips_ok:
                failures.append(f"the jwcrypto-encrypted IPS was not imported: {files[1]}")
            posted = [s for s in seen if s[0] == "POST"]
            if not posted or posted[-1][2].get("recipient") != "Interop Clinic" or posted[-1][2].get("passcode") != "4321":
                failures.append(f"the manifest request did not carry the recipient and passcode: {posted}")
        direct = run(link({"url": base + "/u", "key": b64url(raw_key), "flag": "LU"}))
        if direct:
            f = direct["files"][0]
            # Stored already by the first link: verified again, not stored twice.
            if f["status"] != "cards" or not f["cards"][0]["valid"]:
                failures.append(f"the U link's card was not read: {f}")
    server.shutdown()
    for f in failures:
        print("FAIL:", f)
    print("shl-interop:", "every check held" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
