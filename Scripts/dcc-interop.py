#!/usr/bin/env python3
"""EU DCC interop between `healthrecords` and the member states' harness libraries.

Run by Scripts/dcc-interop.sh, which makes the venv (cose 0.9.dev7, cbor2 5, base45, cryptography,
and for the QR parts qrcode, Pillow, pyzbar) and the DSCs (openssl) in CERTS:
NAME.key.pem and NAME.cert.pem for ec-all, ec-test, rsa2048-r, rsa3072-tvr, ec-other, ec-expired,
ec-future.

Prints `ok - …`, `FAIL - …` or `skip - …` per check and `N checks, M failed`; exits 1 on a failure.
"""
from __future__ import annotations

import argparse
import base64
import copy
import json
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import base45
import cbor2
from cose.algorithms import Es256, Ps256
from cose.headers import KID, Algorithm
from cose.keys import CoseKey
from cose.keys.curves import P256
from cose.keys.keyops import SignOp, VerifyOp
from cose.keys.keyparam import (EC2KpCurve, EC2KpD, EC2KpX, EC2KpY, KpAlg, KpKeyOps, KpKty, RSAKpD,
                                RSAKpDP, RSAKpDQ, RSAKpE, RSAKpN, RSAKpP, RSAKpQ, RSAKpQInv)
from cose.keys.keytype import KtyEC2, KtyRSA
from cose.messages import Sign1Message
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.serialization import Encoding, load_pem_private_key
from cryptography.utils import int_to_bytes

# CWT claim keys and the hcert claim, as in the harness.
ISS, EXP, IAT, HCERT = 1, 4, 6, -260
EKU = {"t": "1.3.6.1.4.1.1847.2021.1.1", "v": "1.3.6.1.4.1.1847.2021.1.2", "r": "1.3.6.1.4.1.1847.2021.1.3"}
KIND = {"v": "vaccination", "t": "test", "r": "recovery"}


def ts(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


# Fixed times, so every good certificate verifies both at AT (`--at`) and now (until 2038):
# the good DSCs run 2021-01-01 … 2040-01-01 and the good CWTs 2025-06-01 … 2038-01-01.
AT = "2025-07-01T12:00:00Z"
IAT_GOOD, EXP_GOOD = ts("2025-06-01T00:00:00Z"), ts("2038-01-01T00:00:00Z")

NAME = {"fn": "Musterfrau-Gößinger", "fnt": "MUSTERFRAU<GOESSINGER", "gn": "Gabriele", "gnt": "GABRIELE"}
# Schema 1.3.0 payloads with codes from the EU value sets (so no dcc.valueSet warnings either).
PAYLOADS = {
    "v": {"ver": "1.3.0", "nam": NAME, "dob": "1998-02-26",
          "v": [{"tg": "840539006", "vp": "1119349007", "mp": "EU/1/20/1528", "ma": "ORG-100030215",
                 "dn": 2, "sd": 2, "dt": "2021-02-18", "co": "AT", "is": "Ministry of Health, Austria",
                 "ci": "URN:UVCI:01:AT:10807843F94AEE0EE5093FBC254BD813#B"}]},
    "t": {"ver": "1.3.0", "nam": {"fn": "Schmidt", "fnt": "SCHMIDT", "gn": "Jörg", "gnt": "JOERG"},
          "dob": "1964-08-12",
          "t": [{"tg": "840539006", "tt": "LP217198-3", "ma": "1232", "sc": "2021-05-30T10:12:22Z",
                 "tr": "260415000", "tc": "Testzentrum Köln Hbf", "co": "DE", "is": "Robert Koch-Institut",
                 "ci": "URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#W"}]},
    "r": {"ver": "1.3.0", "nam": {"fn": "Dupont", "fnt": "DUPONT", "gn": "Émilie", "gnt": "EMILIE"},
          "dob": "1988-06-07",
          "r": [{"tg": "840539006", "fr": "2021-01-10", "co": "FR", "is": "Ministère de la Santé",
                 "df": "2021-05-01", "du": "2021-10-21", "ci": "URN:UVCI:01:FR:W7V2BE46QSBJ#L"}]},
}


# ---------------------------------------------------------------- checks

class Checks:
    def __init__(self) -> None:
        self.count = self.failed = 0

    def record(self, name: str, problems: list[str]) -> bool:
        self.count += 1
        if problems:
            self.failed += 1
            print(f"FAIL - {name}")
            for p in problems:
                print("       " + p.replace("\n", "\n       "))
        else:
            print(f"ok - {name}")
        sys.stdout.flush()
        return not problems

    def run(self, name: str, fn, *args) -> bool:
        """Runs fn, which raises AssertionError (or anything) to fail."""
        try:
            fn(*args)
        except Exception as e:  # a crash in a check is that check's failure, not the run's end
            return self.record(name, [f"{type(e).__name__}: {e}"])
        return self.record(name, [])

    @staticmethod
    def skip(name: str, why: str) -> None:
        print(f"skip - {name}: {why}")

    def summary(self) -> int:
        print(f"{self.count} checks, {self.failed} failed")
        return 1 if self.failed else 0


# ---------------------------------------------------------------- DSCs

@dataclass
class DSC:
    name: str
    cert_path: Path
    key_path: Path
    cert: x509.Certificate
    key: object

    @property
    def der(self) -> bytes:
        return self.cert.public_bytes(Encoding.DER)

    @property
    def kid(self) -> bytes:
        # The harness: cert.fingerprint(SHA256())[0:8].
        return self.cert.fingerprint(SHA256())[:8]

    @property
    def is_ec(self) -> bool:
        return isinstance(self.key, ec.EllipticCurvePrivateKey)

    @property
    def alg(self):
        return Es256 if self.is_ec else Ps256

    @property
    def country(self) -> str:
        return self.cert.subject.get_attributes_for_oid(x509.NameOID.COUNTRY_NAME)[0].value

    def signing_key(self) -> CoseKey:
        if self.is_ec:
            n = self.key.private_numbers()
            return CoseKey.from_dict({KpKty: KtyEC2, EC2KpCurve: P256, KpAlg: Es256, KpKeyOps: [SignOp],
                                      EC2KpD: int_to_bytes(n.private_value, 32),
                                      EC2KpX: int_to_bytes(n.public_numbers.x, 32),
                                      EC2KpY: int_to_bytes(n.public_numbers.y, 32)})
        n = self.key.private_numbers()
        return CoseKey.from_dict({KpKty: KtyRSA, KpAlg: Ps256, KpKeyOps: [SignOp],
                                  RSAKpN: int_to_bytes(n.public_numbers.n), RSAKpE: int_to_bytes(n.public_numbers.e),
                                  RSAKpD: int_to_bytes(n.d), RSAKpP: int_to_bytes(n.p), RSAKpQ: int_to_bytes(n.q),
                                  RSAKpDP: int_to_bytes(n.dmp1), RSAKpDQ: int_to_bytes(n.dmq1),
                                  RSAKpQInv: int_to_bytes(n.iqmp)})


def harness_key(cert: x509.Certificate) -> CoseKey:
    """The verification key exactly as the harness's `_dsc` builds it from a DSC."""
    pub = cert.public_key()
    if isinstance(pub, rsa.RSAPublicKey):
        nums = pub.public_numbers()
        return CoseKey.from_dict({KpKeyOps: [VerifyOp], KpKty: KtyRSA, KpAlg: Ps256,
                                  RSAKpE: int_to_bytes(nums.e), RSAKpN: int_to_bytes(nums.n)})
    if isinstance(pub, ec.EllipticCurvePublicKey):
        nums = pub.public_numbers()
        return CoseKey.from_dict({KpKeyOps: [VerifyOp], KpKty: KtyEC2, EC2KpCurve: P256, KpAlg: Es256,
                                  EC2KpX: int_to_bytes(nums.x), EC2KpY: int_to_bytes(nums.y)})
    raise ValueError(f"unsupported DSC key {type(pub).__name__}")


def load_dscs(folder: Path) -> dict[str, DSC]:
    dscs = {}
    for cert_path in sorted(folder.glob("*.cert.pem")):
        name = cert_path.name.removesuffix(".cert.pem")
        key_path = folder / f"{name}.key.pem"
        dscs[name] = DSC(name, cert_path, key_path, x509.load_pem_x509_certificate(cert_path.read_bytes()),
                         load_pem_private_key(key_path.read_bytes(), None))
    return dscs


# ---------------------------------------------------------------- Python signs

def cwt(payload: dict, iss: str, iat: int, exp: int) -> bytes:
    return cbor2.dumps({ISS: iss, EXP: exp, IAT: iat, HCERT: {1: payload}})


def sign(dsc: DSC, claims: bytes, *, tagged: bool = True, kid_protected: bool = True) -> bytes:
    phdr = {Algorithm: dsc.alg}
    uhdr = {}
    (phdr if kid_protected else uhdr)[KID] = dsc.kid
    msg = Sign1Message(phdr=phdr, uhdr=uhdr, payload=claims)
    msg.key = dsc.signing_key()
    return msg.encode(tag=tagged)


def hc1(cose_bytes: bytes) -> str:
    return "HC1:" + base45.b45encode(zlib.compress(cose_bytes, 9)).decode()


@dataclass
class Case:
    """One Python-signed certificate and how healthrecords should judge it."""
    name: str
    text: str
    dsc: DSC
    kind: str | None  # v, t, r
    payload: dict | None
    iss: str | None = None
    iat: int | None = None
    exp: int | None = None
    at: str | None = AT
    code: str | None = None  # the one error code expected; None for a valid one
    verify_dsc: DSC | None = None  # the --dsc given, when not the signer's
    file: Path | None = None


def good_cases(dscs: dict[str, DSC]) -> list[Case]:
    # kind, DSC, tagged, kid in the protected header
    plan = [("v", "ec-all", True, True), ("t", "ec-test", False, False), ("r", "rsa2048-r", True, True),
            ("v", "rsa3072-tvr", False, False), ("t", "rsa3072-tvr", True, False), ("r", "ec-all", False, True)]
    cases = []
    for kind, dsc_name, tagged, kid_protected in plan:
        dsc = dscs[dsc_name]
        text = hc1(sign(dsc, cwt(PAYLOADS[kind], dsc.country, IAT_GOOD, EXP_GOOD), tagged=tagged,
                        kid_protected=kid_protected))
        name = (f"{KIND[kind]} {dsc.alg.fullname} {dsc_name} {'tagged' if tagged else 'untagged'} "
                f"kid {'protected' if kid_protected else 'unprotected'}")
        cases.append(Case(name, text, dsc, kind, PAYLOADS[kind], dsc.country, IAT_GOOD, EXP_GOOD))
    return cases


def tamper_payload(cose_bytes: bytes) -> bytes:
    """Changes one byte of the payload inside a text string, so the CBOR and schema stay valid."""
    i = cose_bytes.index(b"Gabriele")
    return cose_bytes[:i + 7] + b"a" + cose_bytes[i + 8:]


def bad_cases(dscs: dict[str, DSC]) -> list[Case]:
    """One defect each: everything else about the certificate is as in a good one."""
    ec_all, v = dscs["ec-all"], PAYLOADS["v"]
    good = sign(ec_all, cwt(v, "AT", IAT_GOOD, EXP_GOOD))
    good_b45 = base45.b45encode(zlib.compress(good, 9)).decode()
    no_dob = copy.deepcopy(v)
    del no_dob["dob"]

    def case(name, text, code, dsc=ec_all, at=AT, verify_dsc=None):
        return Case(name, text, dsc, "v", v, code=code, at=at, verify_dsc=verify_dsc)

    return [
        case("tampered payload byte", hc1(tamper_payload(good)), "dcc.signature"),
        case("signed by another DSC than given", hc1(good), "dcc.key.notFound", verify_dsc=dscs["ec-other"]),
        case("CWT expired (--at after exp)",
             hc1(sign(ec_all, cwt(v, "AT", IAT_GOOD, ts("2025-06-15T00:00:00Z")))), "dcc.expired"),
        case("CWT iat in the future",
             hc1(sign(ec_all, cwt(v, "AT", ts("2025-07-10T00:00:00Z"), EXP_GOOD))), "dcc.notYetValid"),
        case("vaccination signed by a DSC with only the test EKU",
             hc1(sign(dscs["ec-test"], cwt(v, "DE", IAT_GOOD, EXP_GOOD))), "dcc.keyUsage", dsc=dscs["ec-test"]),
        # The CWT is valid at --at; only the DSC (2021-01-01 … 2022-01-01) is not.
        case("DSC expired at check time",
             hc1(sign(dscs["ec-expired"], cwt(v, "IT", ts("2021-06-01T00:00:00Z"), EXP_GOOD))),
             "dcc.certificate.validity", dsc=dscs["ec-expired"], at="2023-06-01T00:00:00Z"),
        case("DSC not yet valid at check time",
             hc1(sign(dscs["ec-future"], cwt(v, "ES", IAT_GOOD, EXP_GOOD))),
             "dcc.certificate.validity", dsc=dscs["ec-future"]),
        case("base45 with a character outside the alphabet", "HC1:" + good_b45[:10] + "#" + good_b45[11:],
             "dcc.base45"),
        # Length 3n+1: a lone character after the last full group encodes no byte (RFC 9285).
        case("base45 with a dangling single character",
             "HC1:" + good_b45 + "0" * ((1 - len(good_b45)) % 3), "dcc.base45"),
        # As dgc-testdata common/2DCode/raw/H3 (no context) and H2 (HC2:).
        case("no HC1: prefix", good_b45, "dcc.prefix"),
        case("HC2: prefix", "HC2:" + good_b45, "dcc.prefix"),
        case("COSE not zlib-compressed", "HC1:" + base45.b45encode(good).decode(), "dcc.zlib"),
        case("payload without dob (schema)", hc1(sign(ec_all, cwt(no_dob, "AT", IAT_GOOD, EXP_GOOD))), "dcc.schema"),
    ]


# ---------------------------------------------------------------- Python verifies (the harness's way)

def py_verify(text: str, dsc: DSC, *, require_tag: bool) -> dict:
    """Decodes and verifies HC1 text as the harness does; returns the CWT claims. Raises on any problem."""
    text = text.strip()
    assert text.startswith("HC1:"), f"no HC1: prefix: {text[:10]!r}"
    cose_bytes = zlib.decompress(base45.b45decode(text[4:]))
    outer = cbor2.loads(cose_bytes)
    if require_tag:
        assert isinstance(outer, cbor2.CBORTag) and outer.tag == 18, f"not tagged 18: {type(outer).__name__}"
        msg = Sign1Message.decode(cose_bytes)
    elif isinstance(outer, cbor2.CBORTag):
        msg = Sign1Message.decode(cose_bytes)
    else:
        msg = Sign1Message.from_cose_obj(outer)
    kid = msg.phdr.get(KID, msg.uhdr.get(KID))
    assert kid == dsc.kid, f"kid {kid!r} is not the DSC's {dsc.kid!r}"
    assert msg.phdr.get(Algorithm) is dsc.alg, f"alg {msg.phdr.get(Algorithm)} for a {dsc.alg.fullname} DSC"
    msg.key = harness_key(dsc.cert)
    assert msg.verify_signature(), "cose: signature does not verify with the DSC's key"
    return {"claims": cbor2.loads(msg.payload), "phdr": msg.phdr, "uhdr": msg.uhdr, "tagged": isinstance(outer, cbor2.CBORTag)}


def check_claims(claims: dict, payload: dict, *, iss: str | None, iat: int | None, exp: int | None) -> None:
    assert set(claims) == {ISS, IAT, EXP, HCERT}, f"CWT claim keys {sorted(claims)}"
    assert isinstance(claims[IAT], int) and isinstance(claims[EXP], int), f"iat/exp not integers: {claims}"
    if iss is not None:
        assert claims[ISS] == iss, f"iss {claims[ISS]!r}, expected {iss!r}"
    if iat is not None:
        assert claims[IAT] == iat, f"iat {claims[IAT]}, expected {iat}"
    if exp is not None:
        assert claims[EXP] == exp, f"exp {claims[EXP]}, expected {exp}"
    assert set(claims[HCERT]) == {1}, f"-260 keys {list(claims[HCERT])}"
    assert claims[HCERT][1] == payload, f"payload differs:\n got  {claims[HCERT][1]}\n want {payload}"


def harness_dsc_checks(dsc: DSC, claims: dict) -> None:
    """The harness's test_expiration_check (the DSC covers iat…exp) and test_expected_key_usage."""
    iat, exp = claims[IAT], claims[EXP]
    nb, na = dsc.cert.not_valid_before_utc.timestamp(), dsc.cert.not_valid_after_utc.timestamp()
    assert nb <= iat <= exp <= na, f"DSC validity {nb}…{na} does not cover iat {iat} … exp {exp}"
    kinds = [k for k in ("v", "t", "r") if k in claims[HCERT][1]]
    assert len(kinds) == 1, f"hcert holds {kinds}"
    try:
        ekus = {e.dotted_string for e in dsc.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value}
    except x509.ExtensionNotFound:
        ekus = set()
    assert not ekus or EKU[kinds[0]] in ekus, f"DSC EKUs {ekus} do not allow {KIND[kinds[0]]}"


# ---------------------------------------------------------------- healthrecords

class HealthRecords:
    def __init__(self, binary: str) -> None:
        self.binary = binary

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([self.binary, *args], input=stdin, capture_output=True, text=True, timeout=60)

    def supports(self) -> tuple[bool, bool]:
        """(verify takes --dsc, `dcc issue` exists): the DCC commands appear while the Swift side is written."""
        verify = "--dsc" in self.run("verify", "--help").stdout
        # Not the exit code: an unknown subcommand with --help prints the top-level help and exits 0.
        issue = "--certificate" in self.run("dcc", "issue", "--help").stdout
        return verify, issue

    def verify(self, inputs: list[str], dscs: list[Path], at: str | None, stdin: str | None = None):
        args = ["verify", *inputs]
        for d in dscs:
            args += ["--dsc", str(d)]
        if at:
            args += ["--at", at]
        p = self.run(*args, "--json", stdin=stdin)
        try:
            report = json.loads(p.stdout)
        except ValueError:
            report = None
        return p, report


def describe(p: subprocess.CompletedProcess) -> str:
    return f"$ {' '.join(map(str, p.args))}\nexit {p.returncode}\nstdout: {p.stdout.strip()[:3000]}\nstderr: {p.stderr.strip()[:1000]}"


def iso_ts(text) -> int | None:
    return ts(text) if isinstance(text, str) else None


def valid_report_problems(card: dict, case: Case) -> list[str]:
    problems = []
    want = {"format": "eu-dcc", "valid": True, "trusted": True, "kind": KIND[case.kind],
            "algorithm": case.dsc.alg.fullname, "kid": base64.b64encode(case.dsc.kid).decode(), "issuer": case.iss,
            "payload": case.payload, "errors": []}
    for key, value in want.items():
        if card.get(key) != value:
            problems.append(f"{key}: got {json.dumps(card.get(key), ensure_ascii=False)[:600]}, "
                            f"want {json.dumps(value, ensure_ascii=False)[:600]}")
    for key, value in (("issuedDate", case.iat), ("expirationDate", case.exp)):
        try:
            got = iso_ts(card.get(key))
        except ValueError:
            got = None
        if got != value:
            problems.append(f"{key}: got {card.get(key)!r}, want {datetime.fromtimestamp(value, timezone.utc).isoformat()}")
    return problems


def expect_valid(hr: HealthRecords, checks: Checks, name: str, inputs: list[str], dscs: list[Path], at: str | None,
                 cases: list[Case], stdin: str | None = None) -> None:
    p, report = hr.verify(inputs, dscs, at, stdin)
    problems = []
    if p.returncode != 0:
        problems.append(f"exit {p.returncode}, want 0")
    if report is None:
        problems.append("stdout is not JSON")
    else:
        if report.get("valid") is not True:
            problems.append(f"valid: {report.get('valid')!r}")
        cards = report.get("cards") or []
        if len(cards) != len(cases):
            problems.append(f"{len(cards)} cards, want {len(cases)}")
        for card, case in zip(cards, cases):
            problems += [f"[{case.name}] {x}" if len(cases) > 1 else x for x in valid_report_problems(card, case)]
    if problems:
        problems.append(describe(p))
    checks.record(name, problems)


def expect_invalid(hr: HealthRecords, checks: Checks, case: Case) -> None:
    dsc = case.verify_dsc or case.dsc
    p, report = hr.verify([str(case.file)], [dsc.cert_path], case.at)
    problems = []
    if p.returncode != 1:
        problems.append(f"exit {p.returncode}, want 1")
    if report is None:
        problems.append("stdout is not JSON")
    else:
        cards = report.get("cards") or [{}]
        card = cards[0]
        codes = [e.get("code") for e in card.get("errors") or []]
        if report.get("valid") is not False or card.get("valid") is not False:
            problems.append(f"valid: {report.get('valid')!r} / card {card.get('valid')!r}")
        if card.get("format") != "eu-dcc":
            problems.append(f"format {card.get('format')!r}, want 'eu-dcc'")
        # Exactly the one defect made: another code next to it means a check misfired.
        if set(codes) != {case.code}:
            problems.append(f"error codes {codes}, want exactly [{case.code!r}]")
    if problems:
        problems.append(describe(p))
    checks.record(f"verify rejects {case.name} with {case.code}", problems)


# ---------------------------------------------------------------- QR (optional)

def qr_tools():
    """(make_png, read_png): each a function, or the reason it is missing (qrcode/Pillow/pyzbar, libzbar)."""
    try:
        import qrcode
        from qrcode.constants import ERROR_CORRECT_Q
    except ImportError as e:
        make = f"qrcode/Pillow not importable ({e})"
    else:
        def make(text: str, path: Path) -> None:
            # Q is the error correction level the DCC technical specification recommends.
            qr = qrcode.QRCode(error_correction=ERROR_CORRECT_Q, box_size=4, border=4)
            qr.add_data(text)
            qr.make(fit=True)
            qr.make_image().save(path)
    try:
        from PIL import Image
        from pyzbar.pyzbar import decode
    except (ImportError, OSError) as e:  # pyzbar raises ImportError when libzbar0 is absent
        read = f"pyzbar not importable ({e})"
    else:
        def read(path: Path) -> list[str]:
            with Image.open(path) as image:
                return [s.data.decode() for s in decode(image)]
    return make, read


# ---------------------------------------------------------------- the parts

def python_self_checks(checks: Checks, goods: list[Case], bads: list[Case], dscs: dict[str, DSC]) -> None:
    """The fixtures are what they claim to be, by the harness's libraries alone."""
    for case in goods:
        def check(case=case):
            res = py_verify(case.text, case.dsc, require_tag=False)
            check_claims(res["claims"], case.payload, iss=case.iss, iat=case.iat, exp=case.exp)
            harness_dsc_checks(case.dsc, res["claims"])
        checks.run(f"python verifies its own {case.name}", check)
    tampered = next(c for c in bads if c.code == "dcc.signature")

    def tampered_fails():
        try:
            py_verify(tampered.text, tampered.dsc, require_tag=False)
        except AssertionError as e:
            assert "signature" in str(e), str(e)
            return
        raise AssertionError("the tampered certificate verified")
    checks.run("python rejects its own tampered certificate (signature)", tampered_fails)
    ku = next(c for c in bads if c.code == "dcc.keyUsage")
    ekus = {e.dotted_string for e in ku.dsc.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value}
    checks.record("ec-test DSC carries only the test EKU", [] if ekus == {EKU["t"]} else [f"EKUs {ekus}"])


def python_signs(hr: HealthRecords, checks: Checks, work: Path, goods: list[Case], bads: list[Case],
                 dscs: dict[str, DSC], make_png) -> None:
    for i, case in enumerate(goods + bads):
        case.file = work / f"py-{i}.txt"
        case.file.write_text(case.text + "\n")
    for case in goods:
        cert = [case.dsc.cert_path]
        expect_valid(hr, checks, f"verify accepts {case.name} (now)", [str(case.file)], cert, None, [case])
        expect_valid(hr, checks, f"verify accepts {case.name} (--at {AT})", [str(case.file)], cert, AT, [case])

    # Every good one at once, with all DSCs as one PEM bundle; then the DSC as DER and base64 DER.
    bundle = work / "bundle.pem"
    bundle.write_bytes(b"".join(d.cert_path.read_bytes() for d in dscs.values()))
    expect_valid(hr, checks, "verify accepts all good certificates in one run, DSCs as one PEM bundle",
                 [str(c.file) for c in goods], [bundle], AT, goods)
    first = goods[0]
    der, b64 = work / "dsc.der", work / "dsc.b64"
    der.write_bytes(first.dsc.der)
    b64.write_text(base64.b64encode(first.dsc.der).decode() + "\n")
    expect_valid(hr, checks, "verify accepts a DSC given as DER", [str(first.file)], [der], AT, [first])
    expect_valid(hr, checks, "verify accepts a DSC given as base64 DER", [str(first.file)], [b64], AT, [first])
    expect_valid(hr, checks, "verify accepts a literal HC1: argument", [first.text], [first.dsc.cert_path], AT, [first])
    expect_valid(hr, checks, "verify accepts HC1: text on stdin", ["-"], [first.dsc.cert_path], AT, [first],
                 stdin=first.text + "\n")
    if callable(make_png):
        png = work / "py-qr.png"
        make_png(first.text, png)
        expect_valid(hr, checks, "verify accepts a QR PNG made by python-qrcode", [str(png)], [first.dsc.cert_path],
                     AT, [first])
    else:
        Checks.skip("verify of a python-qrcode PNG", make_png)

    for case in bads:
        expect_invalid(hr, checks, case)
    # One bad among good ones: the run is invalid (exit 1) while the good one stays valid.
    p, report = hr.verify([str(first.file), str(bads[0].file)], [first.dsc.cert_path], AT)
    cards = (report or {}).get("cards") or []
    ok = p.returncode == 1 and report and report.get("valid") is False and len(cards) == 2 \
        and cards[0].get("valid") is True and cards[1].get("valid") is False
    checks.record("verify of a good and a tampered certificate together: exit 1, first valid, second not",
                  [] if ok else [describe(p)])


# (DSC, --issuer, --issued-at, --expires): two with defaults, two with every claim given.
ISSUE_PLAN = [
    ("v", "ec-all", None, None, None),                 # SEC1 EC key
    ("t", "ec-test", "DE", "2025-06-01T00:00:00Z", "2038-01-01T00:00:00Z"),  # PKCS#8 EC key
    ("r", "rsa2048-r", None, None, None),              # PKCS#8 RSA key
    ("v", "rsa3072-tvr", "BE", "2025-06-01T00:00:00Z", "2038-01-01T00:00:00Z"),  # PKCS#1 RSA key
]


def healthrecords_signs(hr: HealthRecords, checks: Checks, work: Path, dscs: dict[str, DSC], read_png) -> None:
    for i, (kind, dsc_name, issuer, issued_at, expires) in enumerate(ISSUE_PLAN):
        dsc = dscs[dsc_name]
        key_form = dsc.key_path.read_text().splitlines()[0].strip("- ")
        name = f"{KIND[kind]} {dsc.alg.fullname} ({key_form})"
        payload_file, out, png = work / f"hr-{i}.json", work / f"hr-{i}.txt", work / f"hr-{i}.png"
        payload_file.write_text(json.dumps(PAYLOADS[kind], ensure_ascii=False, indent=2))
        args = ["dcc", "issue", str(payload_file), "--key", str(dsc.key_path), "--certificate", str(dsc.cert_path),
                "--out", str(out), "--qr", str(png)]
        for flag, value in (("--issuer", issuer), ("--issued-at", issued_at), ("--expires", expires)):
            if value:
                args += [flag, value]
        before = int(time.time())
        p = hr.run(*args)
        after = int(time.time())
        if not checks.record(f"healthrecords dcc issue {name}", [] if p.returncode == 0 and out.exists() else [describe(p)]):
            continue
        text = out.read_text()

        def harness_verifies():
            res = py_verify(text, dsc, require_tag=True)
            # The contract: protected header exactly {1: alg, 4: kid}.
            assert set(res["phdr"]) == {Algorithm, KID}, f"protected header {res['phdr']}"
            claims = res["claims"]
            if issued_at:
                check_claims(claims, PAYLOADS[kind], iss=issuer, iat=ts(issued_at), exp=ts(expires))
            else:
                # Defaults: iss the DSC subject's C, iat now, exp iat + 365 days.
                check_claims(claims, PAYLOADS[kind], iss=dsc.country, iat=None, exp=claims[IAT] + 365 * 86400)
                assert before - 2 <= claims[IAT] <= after + 2, f"iat {claims[IAT]} not in [{before}, {after}]"
            harness_dsc_checks(dsc, claims)
        checks.run(f"cose/cbor2/base45 verify {name} issued by healthrecords "
                   "(tag 18, kid, signature, claims, payload, DSC validity and EKU)",
                   harness_verifies)

        if callable(read_png):
            def qr_reads():
                assert png.exists(), "no QR PNG written"
                got = read_png(png)
                assert got == [text.strip()], f"pyzbar read {[g[:40] + '…' for g in got]}"
            checks.run(f"pyzbar reads the QR PNG of {name} as the HC1 text", qr_reads)
        else:
            Checks.skip(f"pyzbar read of the QR PNG of {name}", read_png)

        p, report = hr.verify([str(out)], [dsc.cert_path], None)
        checks.record(f"healthrecords verify accepts its own {name}",
                      [] if p.returncode == 0 and report and report.get("valid") is True else [describe(p)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--certs", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--python-only", action="store_true")
    args = ap.parse_args()

    from importlib.metadata import version
    print(f"# cose {version('cose')}, cbor2 {version('cbor2')}, base45 {version('base45')}, "
          f"cryptography {version('cryptography')}")
    checks = Checks()
    dscs = load_dscs(args.certs)
    goods, bads = good_cases(dscs), bad_cases(dscs)
    make_png, read_png = qr_tools()
    python_self_checks(checks, goods, bads, dscs)
    if not args.python_only:
        hr = HealthRecords(args.bin)
        verify_ok, issue_ok = hr.supports()
        if checks.record(f"{args.bin} verify takes --dsc", [] if verify_ok else ["no --dsc in `verify --help`"]):
            python_signs(hr, checks, args.work, goods, bads, dscs, make_png)
        if checks.record(f"{args.bin} has `dcc issue`", [] if issue_ok else ["no --certificate in `dcc issue --help`"]):
            healthrecords_signs(hr, checks, args.work, dscs, read_png)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
