#!/usr/bin/env python3
"""Passkeys against an independent WebAuthn client: PyPI soft-webauthn 0.1.4 (with fido2 1.2.0's
CBOR and COSE), over HTTP, on `healthrecords serve` at http://localhost:PORT.

soft-webauthn sets only the user-present flag; this server requires user verification, so the
plain device is the "user verification missing" case, and a subclass that also sets UV (as a
platform authenticator that asked for a fingerprint would) enrols and signs in. Checked:

1. Enrolment while signed in gives ten recovery codes; the passkey then signs in, twice, with no
   token, and the session opens the person's pages.
2. Refused, each with its reason and no session: the plain device (no user verification) at
   enrolment and at sign-in; another origin; another RP ID; a replayed answer; the counter going
   backwards; a credential enrolled on another person's server; enrolment with a forged token.
3. A recovery code signs in once.
"""
import argparse, base64, json, os, shutil, socket, subprocess, sys, tempfile, time
from struct import pack

import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.utils import sha256
from soft_webauthn import SoftWebauthnDevice

checks = []


def check(condition, what):
    if not condition:
        raise SystemExit(f"passkey peers test FAILED: {what}")
    checks.append(what)
    print(f"  ok  {what}", flush=True)


def b64u(data):
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class VerifyingDevice(SoftWebauthnDevice):
    """soft-webauthn with the UV flag set: its own key, COSE encoding and signatures."""

    def create(self, options, origin):
        answer = super().create(options, origin)
        from fido2 import cbor
        attestation = cbor.decode(answer["response"]["attestationObject"])
        auth = bytearray(attestation["authData"])
        auth[32] |= 0x04
        attestation["authData"] = bytes(auth)
        answer["response"]["attestationObject"] = cbor.encode(attestation)
        return answer

    def get(self, options, origin):
        if self.rp_id != options["publicKey"]["rpId"]:
            raise ValueError("Requested rpID does not match current credential")
        self.sign_count += 1
        client_data = json.dumps({"type": "webauthn.get", "challenge": b64u(options["publicKey"]["challenge"]), "origin": origin}).encode()
        data = sha256(self.rp_id.encode("ascii")) + b"\x05" + pack(">I", self.sign_count)
        signature = self.private_key.sign(data + sha256(client_data), ec.ECDSA(hashes.SHA256()))
        return {"id": b64u(self.credential_id), "rawId": self.credential_id, "type": "public-key",
                "response": {"authenticatorData": data, "clientDataJSON": client_data, "signature": signature, "userHandle": self.user_handle}}


def encode(credential):
    """A PublicKeyCredential with its buffers as base64url, as the server's page posts it."""
    return {"type": "public-key", "id": b64u(credential["rawId"]), "rawId": b64u(credential["rawId"]),
            "response": {k: (b64u(v) if isinstance(v, (bytes, bytearray)) else v) for k, v in credential["response"].items()}}


class Server:
    def __init__(self, cli, work, name):
        self.work = os.path.join(work, name)
        os.makedirs(self.work)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.origin = f"http://localhost:{self.port}"
        self.token = os.urandom(24).hex()
        token_file = os.path.join(self.work, "token")
        with open(token_file, "w") as f:
            f.write(self.token)
        env = dict(os.environ, HEALTHRECORDS_STORE=os.path.join(self.work, "store.sqlite"))
        env.pop("HEALTHRECORDS_PASSPHRASE", None)
        self.log = open(os.path.join(self.work, "serve.log"), "w")
        self.process = subprocess.Popen([cli, "serve", "--port", str(self.port), "--public-url", self.origin, "--person-token-file", token_file,
                                         "--text-logs", "--log-level", "warning"], stdout=self.log, stderr=subprocess.STDOUT, env=env)
        for _ in range(300):
            try:
                if requests.get(self.origin + "/healthz", timeout=1).ok:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        raise SystemExit(f"{name} did not start; see {self.work}/serve.log")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)

    def signed_in(self):
        session = requests.Session()
        r = session.get(self.origin + "/login", params={"token": self.token, "next": "/"}, allow_redirects=False)
        assert r.status_code == 303, r.status_code
        return session

    def csrf(self, session):
        html = session.get(self.origin + "/passkeys").text
        marker = 'name="csrf" value="'
        start = html.index(marker) + len(marker)
        return html[start:html.index('"', start)]

    def enrol(self, session, device, csrf=None, name="Soft key"):
        csrf = csrf or self.csrf(session)
        options = session.post(self.origin + "/passkeys/options", json={"csrf": self.csrf(session)}).json()
        options["challenge"] = unb64u(options["challenge"])
        options["user"]["id"] = unb64u(options["user"]["id"])
        credential = device.create({"publicKey": options}, self.origin)
        return session.post(self.origin + "/passkeys", json={"csrf": csrf, "name": name, "credential": encode(credential)})

    def sign_in(self, device, origin=None, rp_id=None, answer_hook=None):
        session = requests.Session()
        options = session.post(self.origin + "/login/passkey/options").json()
        options["challenge"] = unb64u(options["challenge"])
        if rp_id:
            options["rpId"] = rp_id
        credential = device.get({"publicKey": options}, origin or self.origin)
        body = {"next": "/cards", "credential": encode(credential)}
        if answer_hook:
            answer_hook(body)
        return session, session.post(self.origin + "/login/passkey", json=body)


def refused(response, reason, what):
    message = ""
    try:
        message = response.json().get("error", "")
    except ValueError:
        pass
    check(response.status_code in (400, 401) and reason in message and "set-cookie" not in {k.lower() for k in response.headers},
          f"{what}: refused ({response.status_code}: {message})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", default=".build/passkey-peers-test")
    a = parser.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    work = tempfile.mkdtemp(dir=a.out)
    server = Server(os.path.abspath(a.cli), work, "alice")
    other = Server(os.path.abspath(a.cli), work, "bob")
    try:
        session = server.signed_in()
        # 2. The plain soft-webauthn device does not verify the user.
        plain = SoftWebauthnDevice()
        refused(server.enrol(session, plain), "did not verify the user", "soft-webauthn without user verification, at enrolment")
        # A forged anti-forgery token.
        forged = server.enrol(session, VerifyingDevice(), csrf="forged")
        check(forged.status_code == 403, f"enrolment with a forged token: refused ({forged.status_code})")
        # 1. Enrolment and sign-in.
        device = VerifyingDevice()
        r = server.enrol(session, device)
        codes = r.json().get("recoveryCodes", []) if r.ok else []
        check(r.status_code == 200 and len(codes) == 10, f"soft-webauthn (with UV) enrols a passkey and gets 10 recovery codes ({r.status_code})")
        for n in (1, 2):
            s, r = server.sign_in(device)
            check(r.status_code == 200 and r.json().get("next") == "/cards" and s.get(server.origin + "/cards").ok,
                  f"sign-in {n} with the passkey opens the person's pages")
        # 2. Bent sign-ins.
        _, r = server.sign_in(device, origin="http://evil.localhost:%d" % server.port)
        refused(r, "is not this server's", "another origin")
        device.rp_id = "evil.example"
        _, r = server.sign_in(device, rp_id="evil.example")
        refused(r, "another relying party", "another RP ID")
        device.rp_id = "localhost"
        replay = {}
        _, r = server.sign_in(device, answer_hook=lambda body: replay.update(body))
        check(r.status_code == 200, "a good answer is accepted once")
        again = requests.post(server.origin + "/login/passkey", json=replay)
        refused(again, "expired or was already used", "the same answer replayed")
        device.sign_count = 0
        _, r = server.sign_in(device)
        refused(r, "counter", "the counter going backwards")
        plain_signin = SoftWebauthnDevice()
        plain_signin.cred_init("localhost", device.user_handle)
        plain_signin.credential_id, plain_signin.private_key = device.credential_id, device.private_key
        plain_signin.sign_count = 100
        _, r = server.sign_in(plain_signin)
        refused(r, "did not verify the user", "a sign-in without user verification")
        stranger = VerifyingDevice()
        enrolled = other.enrol(other.signed_in(), stranger)
        check(enrolled.status_code == 200, "another person's server enrols its own passkey")
        stranger.rp_id = "localhost"
        _, r = server.sign_in(stranger)
        refused(r, "not enrolled", "another person's credential")
        # 3. A recovery code, once.
        first = requests.post(server.origin + "/login/recovery", data={"code": codes[0]}, allow_redirects=False)
        check(first.status_code == 303 and "set-cookie" in {k.lower() for k in first.headers}, "a recovery code signs in")
        second = requests.post(server.origin + "/login/recovery", data={"code": codes[0]}, allow_redirects=False)
        check(second.status_code == 401, "the same recovery code again is refused")
    finally:
        server.stop()
        other.stop()
    print(f"passkey peers test passed: {len(checks)} checks")


if __name__ == "__main__":
    main()
