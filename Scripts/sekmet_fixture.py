#!/usr/bin/env python3
"""An independent FHIR server for the provider tests: sekmet-fhir 0.1.1 (PyPI), started on a free
loopback port with a temporary data folder and loaded with Synthea R4 transaction bundles.

Used by Scripts/provider-sekmet-test.py (imported) and Benchmarks/provider-sync.sh (run as
`python3 Scripts/sekmet_fixture.py serve --sekmet PATH --out DIR`, which starts the server, loads
the data, writes DIR/fixture.json and serves until it is killed). Standard library only, so any
python3 can run it; sekmet itself runs from its own venv (it needs pydantic 2, the server checks'
venv pins pydantic 1 for fhir.resources 6.4.0).

What sekmet 0.1.1 does, read from its source (sekmet/fhir/*.py, sekmet/auth/server.py):
- `POST /fhir` with a transaction Bundle: every POST entry gets a new server id (uuid4); a
  reference equal to another entry's fullUrl (Synthea's `urn:uuid:…`) is rewritten to `Type/newid`;
  `meta.versionId` and `meta.lastUpdated` are set, other `meta` members kept; the answer lists one
  entry per request entry, in order, with `response.location` `BASE/Type/id/_history/1`.
- Resources are stored as parsed JSON and served as `json.dumps(resource, separators=(",", ":"))`
  (compact, ASCII with \\u escapes): a read and a search page carry the same bytes for a resource.
- Searches page with `_count` (default 20, max 1000) and `_offset`; `next` links are absolute,
  built on `base_url`. An unknown search parameter is ignored with a warning (the page then holds
  more than asked) unless the request sends `Prefer: handling=strict`.
- `Patient/ID/$everything` answers one Bundle with everything (no paging, `_count`, `_since` and
  `_type` ignored): the Patient, every resource referencing it, and the resources those reference.
- `_lastUpdated` is a date search parameter on `meta.lastUpdated` (millisecond instants).
- SMART Backend Services: `/.well-known/smart-configuration` (and `/fhir/.well-known/…`) names the
  token endpoint `ROOT/auth/token` (ROOT = base_url without `/fhir`); client_credentials with a
  private_key_jwt assertion (RS384/ES384/RS256/ES256; aud must equal that URL; exp ≤ now+300;
  jti single use) or client_secret_basic; access tokens are HS256 JWTs with aud = base_url.
"""
from __future__ import annotations

import argparse
import base64
import copy
import glob
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "fhir"))
SYNTHEA = os.path.join(SHARED, "synthea")
NDJSON = os.path.join(SHARED, "ndjson")
# The Synthea patients the tests load: one with many Observations (Barrett Cummings, 391 entries),
# one with non-ASCII text in its data (Hernan Heredia), and a small one (Luigi Wiegand) to show
# that a sync takes only its own patient's records.
SYNTHEA_PATIENTS = ("Barrett_Cummings_", "Hernan_Heredia_", "Luigi_Wiegand_")
# The bulk-export sample's largest patient: 2,780 resources referencing it (Condition 219,
# MedicationRequest 1036, Immunization 10, DocumentReference 708, Procedure 805, Device 2).
BIG_PATIENT = "79a66c97-6131-3213-f3c9-4606946ab056"


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def synthea_bundle(prefix: str) -> tuple[str, dict]:
    files = glob.glob(os.path.join(SYNTHEA, prefix + "*.json"))
    if len(files) != 1:
        raise SystemExit(f"error: no single Synthea bundle {prefix}* in {SYNTHEA}")
    with open(files[0], encoding="utf-8") as f:
        return os.path.basename(files[0]), json.load(f)


def _walk_refs(node):
    if isinstance(node, dict):
        if isinstance(node.get("reference"), str):
            yield node
        for v in node.values():
            yield from _walk_refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk_refs(v)


def bulk_patient_bundle(patient_id: str = BIG_PATIENT) -> tuple[str, dict]:
    """A transaction bundle DERIVED from the bulk-export sample (ndjson/): the patient, every line
    referencing it, and the Organizations, Practitioners and Locations those lines reference, each
    as a POST entry with fullUrl `urn:uuid:<its id>` and its `Type/id` references to resources in the
    bundle rewritten to those urns (as Synthea writes them). References to resources the sample
    lacks (its Encounters were left out) stay as they are; conditional references
    (`Practitioner?identifier=…`) to resources in the sample become urns too (sekmet resolves a
    conditional reference only against resources it already holds). Nothing else is changed."""
    by_key: dict[tuple[str, str], dict] = {}
    order: list[tuple[str, str]] = []
    for path in sorted(glob.glob(os.path.join(NDJSON, "*.ndjson"))):
        if os.path.basename(path).startswith("log"):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    key = (r["resourceType"], r["id"])
                    by_key[key] = r
                    order.append(key)
    pkey = ("Patient", patient_id)
    if pkey not in by_key:
        raise SystemExit(f"error: patient {patient_id} not in {NDJSON}")
    by_identifier = {(t, ident.get("system"), ident.get("value")): i for (t, i), r in by_key.items()
                     for ident in r.get("identifier", []) if isinstance(ident, dict)}

    def target(reference: str) -> tuple[str, str] | None:
        """The sample's resource a literal (`Type/id`) or conditional (`Type?identifier=sys|value`,
        as this Synthea version writes them) reference names, if the sample holds it."""
        if "?identifier=" in reference:
            t, _, q = reference.partition("?identifier=")
            sys_, _, val = q.partition("|")
            i = by_identifier.get((t, sys_, val))
            return (t, i) if i else None
        t, _, i = reference.partition("/")
        return (t, i) if (t, i) in by_key else None

    mine = [pkey] + [k for k in order if k != pkey and any(
        ref["reference"] == f"Patient/{patient_id}" for ref in _walk_refs(by_key[k]))]
    chosen = set(mine)
    for k in list(mine):
        for ref in _walk_refs(by_key[k]):
            key = target(ref["reference"])
            if key and key not in chosen and key[0] in ("Organization", "Practitioner", "Location", "PractitionerRole"):
                chosen.add(key)
                mine.append(key)
    entries = []
    for k in mine:
        r = copy.deepcopy(by_key[k])
        for ref in _walk_refs(r):
            key = target(ref["reference"])
            if key in chosen:
                ref["reference"] = f"urn:uuid:{key[1]}"
        entries.append({"fullUrl": f"urn:uuid:{k[1]}", "resource": r, "request": {"method": "POST", "url": k[0]}})
    return f"ndjson patient {patient_id} (derived bundle)", {"resourceType": "Bundle", "type": "transaction", "entry": entries}


def patient_entries(bundle: dict) -> tuple[str, list[int]]:
    """The bundle's Patient fullUrl and the indexes of the entries of that patient: the Patient and
    every entry whose resource references it."""
    pat = [i for i, e in enumerate(bundle["entry"]) if e["resource"]["resourceType"] == "Patient"]
    if len(pat) != 1:
        raise SystemExit("error: a bundle with other than one Patient")
    full = bundle["entry"][pat[0]]["fullUrl"]
    idx = [i for i, e in enumerate(bundle["entry"])
           if i == pat[0] or any(r["reference"] == full for r in _walk_refs(e["resource"]))]
    return full, idx


class Sekmet:
    """One sekmet server: `start(auth)` writes settings.yaml and runs `sekmet serve -c …` on a fixed
    loopback port (chosen once, kept across restarts so stored links and token audiences hold)."""

    def __init__(self, sekmet: str, work: str, port: int | None = None, log=None):
        self.sekmet = os.path.abspath(sekmet)
        self.work = work
        self.port = port or free_port()
        self.root = f"http://127.0.0.1:{self.port}"
        self.base = f"{self.root}/fhir"
        self.data_dir = os.path.join(work, "sekmet-data")
        self.proc: subprocess.Popen | None = None
        self.log = log or (lambda s: None)
        self.auth: dict = {}

    def start(self, auth: dict) -> None:
        self.auth = auth
        os.makedirs(self.data_dir, exist_ok=True)
        settings = {
            "base_url": self.base, "host": "127.0.0.1", "port": self.port, "data_dir": self.data_dir,
            "simulator": {"enabled": False}, "log_inbound": False,
            # The loaded data is trusted test data; strict inbound validation uses R4B models.
            "validation": {"inbound": "off"},
            "own_private_key_path": os.path.join(self.work, "sekmet-own.pem"),
            "server_auth": auth,
        }
        cfg = os.path.join(self.work, "sekmet-settings.yaml")
        with open(cfg, "w") as f:
            json.dump(settings, f, indent=1)  # JSON is YAML
        out = open(os.path.join(self.work, "sekmet.log"), "ab")
        self.proc = subprocess.Popen([self.sekmet, "serve", "-c", cfg], cwd=self.work, stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"error: sekmet exited ({self.proc.returncode}); see {self.work}/sekmet.log")
            try:
                with urllib.request.urlopen(f"{self.base}/metadata", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.2)
        raise SystemExit(f"error: sekmet did not answer {self.base}/metadata within 60 s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    # A bearer token the fixture itself uses (every auth mode it starts keeps one static token).
    ADMIN_TOKEN = "sekmet-fixture-admin-token-7f3a"

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, bytes]:
        h = {"Accept": "application/fhir+json", "Authorization": f"Bearer {self.ADMIN_TOKEN}"}
        if body is not None:
            h["Content-Type"] = "application/fhir+json"
        h.update(headers or {})
        url = path if path.startswith("http") else f"{self.base}/{path.lstrip('/')}"
        req = urllib.request.Request(url, data=body, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def load(self, bundle: dict) -> list[tuple[str, str]]:
        """Posts a transaction; returns each entry's (type, server id), in entry order."""
        status, body = self.request("POST", "", json.dumps(bundle).encode())
        if status != 200:
            raise SystemExit(f"error: sekmet refused the transaction ({status}): {body[:500]!r}")
        answer = json.loads(body)
        out = []
        for req, resp in zip(bundle["entry"], answer["entry"]):
            loc = resp["response"]["location"]
            path = loc[len(self.base) + 1:].split("/_history")[0]
            t, _, i = path.partition("/")
            if t != req["resource"]["resourceType"]:
                raise SystemExit(f"error: transaction answer out of order: {loc} for a {req['resource']['resourceType']}")
            out.append((t, i))
        if len(out) != len(bundle["entry"]):
            raise SystemExit("error: the transaction answer lists fewer entries than the request")
        return out


def bearer_auth(token: str) -> dict:
    return {"types": ["bearer"], "tokens": [token, Sekmet.ADMIN_TOKEN]}


def smart_auth(client_id: str, jwks: dict, scopes: str = "system/*.read") -> dict:
    return {"types": ["bearer", "smart"], "tokens": [Sekmet.ADMIN_TOKEN],
            "smart_clients": [{"client_id": client_id, "jwks": jwks, "scopes": scopes}]}


def load_all(server: Sekmet, with_big: bool = True) -> dict:
    """Loads the Synthea patients (and the big derived one); returns, per patient label, the data
    the tests need: the bundle, entry → (type, server id) and the patient's entry indexes."""
    loaded = {}
    bundles = [synthea_bundle(p) for p in SYNTHEA_PATIENTS]
    if with_big:
        bundles.append(bulk_patient_bundle())
    for name, bundle in bundles:
        ids = server.load(bundle)
        full, idx = patient_entries(bundle)
        pidx = next(i for i in idx if bundle["entry"][i]["resource"]["resourceType"] == "Patient")
        loaded[name] = {"bundle": bundle, "ids": ids, "patient_full_url": full, "entries": idx, "patient": ids[pidx][1]}
    return loaded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve", help="start sekmet with a static bearer token, load the data, write DIR/fixture.json, serve until killed")
    sp.add_argument("--sekmet", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument("--token", default="provider-sync-bench-token")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    server = Sekmet(a.sekmet, a.out)
    server.start(bearer_auth(a.token))
    signal.signal(signal.SIGTERM, lambda *_: (server.stop(), sys.exit(0)))
    try:
        loaded = load_all(server)
        info = {"base": server.base, "token": a.token, "patients": {
            name: {"patient": d["patient"], "resources": len(d["entries"])} for name, d in loaded.items()}}
        tmp = os.path.join(a.out, "fixture.json.tmp")
        with open(tmp, "w") as f:
            json.dump(info, f, indent=1)
        os.replace(tmp, os.path.join(a.out, "fixture.json"))
        while server.proc and server.proc.poll() is None:
            time.sleep(0.5)
        raise SystemExit("error: sekmet exited")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
