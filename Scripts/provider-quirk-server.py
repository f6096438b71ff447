#!/usr/bin/env python3
"""A scripted FHIR R4 + SMART (OAuth 2) server with switchable real-world quirks, for testing
HealthRecords' provider connections (`healthrecords providers connect`, `healthrecords sync`).

Python standard library only. Serves one patient's records from a Synthea R4 transaction bundle
(default: Karena Pfeffer from ../shared/data/fhir/synthea), with `urn:uuid:` references rewritten
to `Type/id` as a FHIR server would serve them and `meta.versionId`/`meta.lastUpdated` added.

Endpoints (main listener, http://127.0.0.1:PORT):
  /.well-known/smart-configuration, /fhir/.well-known/smart-configuration
  /fhir/metadata                    CapabilityStatement (R4) with the oauth-uris extension
  /authorize                        auto-approves: 302 to redirect_uri with code and the same state
  /token                            authorization_code (PKCE S256) and refresh_token
  /fhir/Patient/ID                  and any other resource read /fhir/TYPE/ID
  /fhir/TYPE?patient=ID             searches: patient|subject, _count (capped at --max-count),
                                    _lastUpdated=gt|ge|lt|le…, category, _offset (our paging)
  /fhir/Patient/ID/$everything      only with --everything (the Patient and its compartment; _since, _count)
  /_resources                       GET: every resource as served now, and which are in the patient's compartment
  /_quirks                          GET: the current quirks; POST JSON: {"set": {quirk: value…},
                                    "expire_tokens": true, "touch": ["Observation/ID"…], "reset_counters": true}
A second listener (the "other host", http://localhost:OTHER/fhir) serves the same FHIR API; the
`foreign_next` quirk points next links at it. Both log to the same JSON-lines file.

Quirks (flags; the same names, with underscores, in POST /_quirks {"set": …}):
  --relative-next          next links relative ("Observation?…") instead of absolute
  --loop-next              from the third page on, next points back at the second page (a cycle)
  --require-category       Observation searches without `category` answer 400 with an OperationOutcome
  --throttle PATH=N        the first N requests to PATH answer 429 with Retry-After: 1 (repeatable)
  --fail PATH=500,504,…    the first requests to PATH answer these statuses, in order (repeatable)
  --no-refresh-token       never issue a refresh token (public clients)
  --refresh-invalid-grant  refresh_token grants answer 400 invalid_grant
  --foreign-next           next links point at the other host
  --deny                   /authorize answers error=access_denied
  --wrong-state            /authorize answers with a different state
  --everything             offer Patient/$everything (otherwise 404: clients fall back to per-type searches)
  --hostile                a hostile server: the first page of every search and of $everything also
                           carries other people's records, each disguised one way (HOSTILE_KINDS:
                           another Patient, a versioned or absolute reference to it, a urn:uuid
                           resolved by its fullUrl, an identifier alone, a contained Patient, a
                           Group, no subject); their ids start "hostile-" and none is the patient's

Every request is logged as one JSON object per line to --log: time, listener, method, path,
query, host, whether an Authorization header came and its bearer token, the status answered,
Retry-After, grant_type at /token, and for searchsets the `Type/id` of every entry.
At start one JSON line goes to stdout: {"base", "fhir", "other", "patient", "counts"}.
"""
import argparse, base64, copy, datetime, hashlib, json, re, secrets, socket, sys, threading, time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_BUNDLE = "Karena_Pfeffer_1f99a0cb-594b-476a-b9cb-502594c1ee6b.json"
OAUTH_URIS = "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"
FIXED_LAST_UPDATED = "2024-03-01T12:00:00Z"
REFERENCE_FIELDS = ("subject", "patient", "beneficiary")
LOOPBACK_REDIRECT = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/[^?#]*$")


# One record per way of naming someone else, as --hostile serves them (the key names the way).
INTRUDER_URN = "urn:uuid:7d0c6a2e-6b1f-4b8e-9a55-000000000bad"
HOSTILE_KINDS = {
    "patient": {"resourceType": "Patient", "name": [{"family": "Intruder", "given": ["Ivy"]}], "birthDate": "1990-01-01"},
    "versioned": {"resourceType": "Observation", "status": "final", "code": {"text": "HIV-1 RNA viral load"},
                  "subject": {"reference": "Patient/hostile-patient/_history/3"}},
    "absolute": {"resourceType": "Encounter", "status": "finished", "class": {"code": "AMB"},
                 "subject": {"reference": "http://127.0.0.1:9/fhir/Patient/hostile-patient"}},
    "urn": {"resourceType": "Condition", "code": {"text": "BRCA1 carrier"}, "subject": {"reference": INTRUDER_URN}},
    "identifier": {"resourceType": "Immunization", "status": "completed", "vaccineCode": {"text": "flu"},
                   "patient": {"identifier": {"system": "http://hl7.org/fhir/sid/us-ssn", "value": "999-12-3456"}}},
    "contained": {"resourceType": "AllergyIntolerance", "code": {"text": "penicillin"}, "patient": {"reference": "#who"},
                  "contained": [{"resourceType": "Patient", "id": "who", "name": [{"family": "Someone"}]}]},
    "group": {"resourceType": "Observation", "status": "final", "code": {"text": "ward census"}, "subject": {"reference": "Group/ward-3"}},
    "nobody": {"resourceType": "Condition", "code": {"text": "depression"}},
}


def hostile_entries(base):
    """The --hostile records, as Bundle entries (the Patient's fullUrl is the urn the "urn" record names)."""
    out = []
    for kind, body in HOSTILE_KINDS.items():
        r = dict(body, id="hostile-" + kind, meta={"versionId": "1", "lastUpdated": FIXED_LAST_UPDATED})
        full = INTRUDER_URN if kind == "patient" else f"{base}/{r['resourceType']}/{r['id']}"
        out.append({"fullUrl": full, "resource": r, "search": {"mode": "match"}})
    return out


def now_instant():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_instant(text):
    t = text.strip().replace("Z", "+00:00")
    if len(t) == 10:
        t += "T00:00:00+00:00"
    d = datetime.datetime.fromisoformat(t)
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return d


class Data:
    """The patient's records as served: references rewritten, meta added."""

    def __init__(self, path):
        bundle = json.load(open(path, encoding="utf-8"))
        full_to_ref = {}
        for e in bundle["entry"]:
            r = e["resource"]
            full_to_ref[e.get("fullUrl")] = f"{r['resourceType']}/{r['id']}"

        def rewrite(node):
            if isinstance(node, dict):
                return {k: (full_to_ref.get(v, v) if k == "reference" and isinstance(v, str) else rewrite(v)) for k, v in node.items()}
            if isinstance(node, list):
                return [rewrite(v) for v in node]
            return node
        self.resources = {}  # (type, id) -> resource
        self.order = []
        for e in bundle["entry"]:
            r = rewrite(e["resource"])
            meta = dict(r.get("meta") or {})
            meta["versionId"] = "1"
            meta["lastUpdated"] = FIXED_LAST_UPDATED
            r["meta"] = meta
            key = (r["resourceType"], r["id"])
            self.resources[key] = r
            self.order.append(key)
        patients = [k for k in self.order if k[0] == "Patient"]
        if len(patients) != 1:
            raise SystemExit(f"{path}: expected one Patient, found {len(patients)}")
        self.patient_id = patients[0][1]

    def in_compartment(self, r):
        want = "Patient/" + self.patient_id
        for f in REFERENCE_FIELDS:
            v = r.get(f)
            if isinstance(v, dict) and v.get("reference") == want:
                return True
        return False

    def compartment(self, kind=None):
        return [self.resources[k] for k in self.order
                if (kind is None or k[0] == kind) and k[0] != "Patient" and self.in_compartment(self.resources[k])]

    def counts(self):
        c = {"Patient": 1}
        for r in self.compartment():
            c[r["resourceType"]] = c.get(r["resourceType"], 0) + 1
        return c


class State:
    def __init__(self, args):
        self.lock = threading.Lock()
        self.args = args
        self.quirks = {
            "relative_next": args.relative_next, "loop_next": args.loop_next, "require_category": args.require_category,
            "throttle": dict(args.throttle), "fail": dict(args.fail), "no_refresh_token": args.no_refresh_token,
            "refresh_invalid_grant": args.refresh_invalid_grant, "foreign_next": args.foreign_next, "deny": args.deny,
            "wrong_state": args.wrong_state, "everything": args.everything, "token_lifetime": args.token_lifetime,
            "max_count": args.max_count, "rotate_refresh": not args.no_rotate, "hostile": args.hostile,
        }
        self.counters = {}
        self.codes = {}      # code -> details
        self.access = {}     # token -> details
        self.refresh = {}    # token -> details
        self.log_file = open(args.log, "a", encoding="utf-8") if args.log else None

    def log(self, entry):
        if not self.log_file:
            return
        with self.lock:
            self.log_file.write(json.dumps(entry) + "\n")
            self.log_file.flush()

    def count(self, path):
        with self.lock:
            self.counters[path] = self.counters.get(path, 0) + 1
            return self.counters[path]


def parse_pairs(values, what):
    out = {}
    for v in values or []:
        path, _, spec = v.partition("=")
        if not path.startswith("/") or not spec:
            raise SystemExit(f"--{what} wants PATH=SPEC, got {v!r}")
        out[path] = int(spec) if what == "throttle" else [int(s) for s in spec.split(",")]
    return out


def operation_outcome(code, text, severity="error"):
    return {"resourceType": "OperationOutcome", "issue": [{"severity": severity, "code": code, "diagnostics": text}]}


def make_handler(state, data, listener):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "QuirkFHIR/1.0"

        def log_message(self, *a):
            pass

        # MARK: plumbing

        def setup_request(self):
            split = urllib.parse.urlsplit(self.path)
            self.req_path = split.path
            self.req_query = split.query
            self.params = urllib.parse.parse_qs(split.query, keep_blank_values=True)
            auth = self.headers.get("Authorization")
            token = None
            if auth and auth.lower().startswith("bearer "):
                token = auth[7:].strip()
            self.entry = {"t": time.time(), "listener": listener, "method": self.command, "path": self.req_path, "query": split.query,
                          "host": self.headers.get("Host"), "auth": auth is not None, "auth_scheme": auth.split(" ")[0] if auth else None,
                          "token": token}

        def send(self, status, body=None, content_type="application/fhir+json", headers=None):
            raw = b""
            if body is not None:
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(raw)
            self.entry["status"] = status
            if headers and "Retry-After" in headers:
                self.entry["retry_after"] = headers["Retry-After"]
            if headers and "Location" in headers:
                self.entry["location"] = headers["Location"]
            if path_logged(self.req_path):
                state.log(self.entry)

        def body_form(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            return raw, dict(urllib.parse.parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))

        def base(self):
            return f"http://{self.headers.get('Host')}"

        # MARK: dispatch

        def do_GET(self):
            self.setup_request()
            p = self.req_path
            try:
                if p == "/_quirks":
                    with state.lock:
                        return self.send(200, state.quirks, "application/json")
                if p == "/_resources":
                    with state.lock:
                        every = [data.resources[k] for k in data.order]
                    return self.send(200, {"patient": data.patient_id, "resources": every,
                                           "compartment": [f"{r['resourceType']}/{r['id']}" for r in data.compartment()]}, "application/json")
                if listener == "main" and p in ("/.well-known/smart-configuration", "/fhir/.well-known/smart-configuration"):
                    return self.send(200, smart_configuration(), "application/json")
                if listener == "main" and p == "/authorize":
                    return self.authorize()
                if listener == "main" and p == "/brands.json":
                    return self.send(200, brands_bundle(), "application/json")
                if p == "/fhir/metadata":
                    return self.send(200, capability_statement())
                if p.startswith("/fhir/"):
                    return self.fhir()
                return self.send(404, operation_outcome("not-found", f"no such path {p}"))
            except BrokenPipeError:
                pass

        def do_POST(self):
            self.setup_request()
            p = self.req_path
            if p == "/_quirks":
                raw, _ = self.body_form()
                return self.control(raw)
            if listener == "main" and p == "/token":
                return self.token()
            if listener == "main" and p == "/authorize":
                _, form = self.body_form()
                self.params = {k: [v] for k, v in form.items()}
                return self.authorize()
            self.body_form()
            return self.send(405, operation_outcome("not-supported", f"POST {p} is not supported"))

        # MARK: control

        def control(self, raw):
            try:
                cmd = json.loads(raw or b"{}")
            except ValueError:
                return self.send(400, {"error": "not JSON"}, "application/json")
            with state.lock:
                for k, v in (cmd.get("set") or {}).items():
                    if k not in state.quirks:
                        return self.send(400, {"error": f"unknown quirk {k}"}, "application/json")
                    state.quirks[k] = v
                if cmd.get("expire_tokens"):
                    for t in state.access.values():
                        t["exp"] = 0
                if cmd.get("reset_counters"):
                    state.counters.clear()
                touched = []
                for ref in cmd.get("touch") or []:
                    kind, _, rid = ref.partition("/")
                    r = data.resources.get((kind, rid))
                    if not r:
                        return self.send(400, {"error": f"no {ref}"}, "application/json")
                    r = copy.deepcopy(r)
                    r["meta"]["versionId"] = str(int(r["meta"]["versionId"]) + 1)
                    r["meta"]["lastUpdated"] = now_instant()
                    r.setdefault("extension", []).append({"url": "http://example.org/quirk-touched", "valueString": r["meta"]["lastUpdated"]})
                    data.resources[(kind, rid)] = r
                    touched.append(r)
                answer = {"quirks": state.quirks, "touched": touched}
            return self.send(200, answer, "application/json")

        # MARK: OAuth

        def authorize(self):
            q = {k: v[0] for k, v in self.params.items()}
            self.entry["oauth"] = {k: q.get(k) for k in ("response_type", "client_id", "redirect_uri", "scope", "state", "aud", "code_challenge_method")}
            redirect = q.get("redirect_uri", "")
            if q.get("client_id") != state.args.client_id:
                return self.send(400, {"error": "invalid_client", "error_description": f"unknown client_id {q.get('client_id')!r}"}, "application/json")
            if not (LOOPBACK_REDIRECT.match(redirect) or redirect in state.args.redirect_uri):
                return self.send(400, {"error": "invalid_request", "error_description": f"redirect_uri {redirect!r} is not registered"}, "application/json")
            st = q.get("state")

            def back(params):
                sep = "&" if "?" in redirect else "?"
                return self.send(302, None, headers={"Location": redirect + sep + urllib.parse.urlencode(params), "Cache-Control": "no-store"})

            def refuse(error, text):
                self.entry["refused"] = text
                params = {"error": error, "error_description": text}
                if st:
                    params["state"] = st
                return back(params)
            if q.get("response_type") != "code":
                return refuse("unsupported_response_type", "response_type must be code")
            if not st:
                return refuse("invalid_request", "state is missing")
            if q.get("code_challenge_method") != "S256" or not re.fullmatch(r"[A-Za-z0-9_-]{43}", q.get("code_challenge") or ""):
                return refuse("invalid_request", "PKCE S256 is required (code_challenge of 43 base64url characters, code_challenge_method=S256)")
            fhir_base = f"http://127.0.0.1:{state.args.bound_port}/fhir"
            if (q.get("aud") or "").rstrip("/") != fhir_base:
                return refuse("invalid_request", f"aud {q.get('aud')!r} is not this server's FHIR base {fhir_base}")
            scope = q.get("scope") or ""
            if not scope.strip():
                return refuse("invalid_scope", "scope is missing")
            with state.lock:
                quirks = dict(state.quirks)
            if quirks["deny"]:
                return refuse("access_denied", "the person declined")
            code = secrets.token_urlsafe(24)
            with state.lock:
                state.codes[code] = {"client_id": q["client_id"], "redirect_uri": redirect, "challenge": q["code_challenge"], "scope": scope,
                                     "exp": time.time() + 120, "used": False}
            out_state = st + "-not-yours" if quirks["wrong_state"] else st
            return back({"code": code, "state": out_state})

        def client_of(self, form):
            auth = self.headers.get("Authorization", "")
            secret = None
            client = form.get("client_id")
            if auth.lower().startswith("basic "):
                try:
                    user, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
                    client = urllib.parse.unquote(user)
                    secret = urllib.parse.unquote(secret)
                except Exception:
                    return None, "unreadable Basic credentials"
            elif "client_secret" in form:
                secret = form["client_secret"]
            if client != state.args.client_id:
                return None, f"unknown client {client!r}"
            if state.args.client_secret and secret != state.args.client_secret:
                return None, "wrong or missing client secret"
            return client, None

        def token(self):
            _, form = self.body_form()
            grant = form.get("grant_type")
            self.entry["grant_type"] = grant
            headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}

            def error(status, code, text):
                self.entry["error"] = code
                return self.send(status, {"error": code, "error_description": text}, "application/json", headers)
            client, problem = self.client_of(form)
            if not client:
                return error(401, "invalid_client", problem)
            with state.lock:
                quirks = dict(state.quirks)
            if grant == "authorization_code":
                with state.lock:
                    c = state.codes.get(form.get("code") or "")
                    if c and not c["used"]:
                        c["used"] = True
                    else:
                        c = None if not c else dict(c, reused=True)
                if not c or c.get("reused") or c["exp"] < time.time():
                    return error(400, "invalid_grant", "unknown, used or expired code")
                if c["client_id"] != client:
                    return error(400, "invalid_grant", "the code belongs to another client")
                if form.get("redirect_uri") != c["redirect_uri"]:
                    return error(400, "invalid_grant", f"redirect_uri {form.get('redirect_uri')!r} differs from the authorized {c['redirect_uri']!r}")
                verifier = form.get("code_verifier") or ""
                if not re.fullmatch(r"[A-Za-z0-9._~-]{43,128}", verifier):
                    return error(400, "invalid_grant", "code_verifier missing or malformed")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
                if challenge != c["challenge"]:
                    return error(400, "invalid_grant", "code_verifier does not match the code_challenge")
                return self.issue(client, c["scope"], quirks, headers)
            if grant == "refresh_token":
                if quirks["refresh_invalid_grant"]:
                    return error(400, "invalid_grant", "the refresh token was revoked (quirk)")
                with state.lock:
                    r = state.refresh.get(form.get("refresh_token") or "")
                    if r and quirks["rotate_refresh"]:
                        del state.refresh[form["refresh_token"]]
                if not r or r["client_id"] != client:
                    return error(400, "invalid_grant", "unknown refresh token")
                return self.issue(client, r["scope"], quirks, headers, refreshing=form.get("refresh_token"))
            return error(400, "unsupported_grant_type", f"grant_type {grant!r}")

        def issue(self, client, scope, quirks, headers, refreshing=None):
            token = "at-" + secrets.token_urlsafe(24)
            lifetime = int(quirks["token_lifetime"])
            answer = {"access_token": token, "token_type": "Bearer", "expires_in": lifetime, "scope": scope, "patient": data.patient_id}
            with state.lock:
                state.access[token] = {"client_id": client, "scope": scope, "exp": time.time() + lifetime}
                words = scope.split()
                if not quirks["no_refresh_token"] and ("offline_access" in words or "online_access" in words):
                    if refreshing and not quirks["rotate_refresh"]:
                        answer["refresh_token"] = refreshing
                    else:
                        rt = "rt-" + secrets.token_urlsafe(24)
                        state.refresh[rt] = {"client_id": client, "scope": scope}
                        answer["refresh_token"] = rt
            self.entry["issued"] = {"access_token": token, "refresh_token": answer.get("refresh_token"), "expires_in": lifetime}
            return self.send(200, answer, "application/json", headers)

        # MARK: FHIR

        def fhir(self):
            p = self.req_path
            with state.lock:
                quirks = copy.deepcopy(state.quirks)
            if listener == "main":
                n = state.count(p)
                self.entry["nth"] = n
                if n <= int(quirks["throttle"].get(p, 0)):
                    return self.send(429, operation_outcome("throttled", "too many requests"), headers={"Retry-After": "1"})
                fails = quirks["fail"].get(p) or []
                if n <= len(fails):
                    status = int(fails[n - 1])
                    return self.send(status, operation_outcome("exception", f"scripted {status}"))
            tok = self.entry["token"]
            with state.lock:
                t = state.access.get(tok or "")
                valid = bool(t and t["exp"] > time.time())
            if not valid:
                why = "no token" if not tok else ("expired token" if t else "unknown token")
                return self.send(401, operation_outcome("login", why), headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
            parts = p[len("/fhir/"):].split("/")
            if len(parts) == 3 and parts[0] == "Patient" and parts[2] == "$everything":
                if not quirks["everything"]:
                    return self.send(404, operation_outcome("not-supported", "Patient/$everything is not supported here"))
                if parts[1] != data.patient_id:
                    return self.send(403, operation_outcome("forbidden", "another patient"))
                return self.search(None, quirks, everything=True)
            if len(parts) == 2:
                r = data.resources.get((parts[0], parts[1]))
                if not r:
                    return self.send(404, operation_outcome("not-found", f"{parts[0]}/{parts[1]} is not known"))
                if r["resourceType"] != "Patient" and not data.in_compartment(r) and r["resourceType"] not in ("Organization", "Practitioner", "Location", "Medication"):
                    return self.send(403, operation_outcome("forbidden", "outside the patient's compartment"))
                if r["resourceType"] == "Patient" and r["id"] != data.patient_id:
                    return self.send(403, operation_outcome("forbidden", "another patient"))
                return self.send(200, r)
            if len(parts) == 1 and parts[0] and parts[0][0].isupper():
                return self.search(parts[0], quirks)
            return self.send(404, operation_outcome("not-found", f"{p} is not known"))

        def search(self, kind, quirks, everything=False):
            params = self.params
            one = {k: v[-1] for k, v in params.items()}
            if not everything:
                who = one.get("patient") or one.get("subject") or one.get("_id") if kind == "Patient" else one.get("patient") or one.get("subject")
                if not who:
                    return self.send(400, operation_outcome("required", f"a {kind} search needs patient="))
                who = who.split("/")[-1]
                if who != data.patient_id:
                    return self.send(403, operation_outcome("forbidden", "another patient"))
                if kind == "Observation" and quirks["require_category"] and not one.get("category"):
                    return self.send(400, operation_outcome("required", "Observation searches require a category parameter"))
                if kind == "Patient":
                    matches = [data.resources[("Patient", data.patient_id)]]
                else:
                    matches = data.compartment(kind)
            else:
                matches = [data.resources[("Patient", data.patient_id)]] + data.compartment()
            # _lastUpdated on searches; $everything's _since means "changed at or after"
            specs = list(params.get("_lastUpdated", []))
            if everything:
                specs = ["ge" + v for v in params.get("_since", [])]
            for spec in specs:
                m = re.fullmatch(r"(gt|ge|lt|le|eq)?(.+)", spec)
                op, when = m.group(1) or "eq", parse_instant(m.group(2))

                def keep(r, op=op, when=when):
                    lu = parse_instant(r["meta"]["lastUpdated"])
                    return {"gt": lu > when, "ge": lu >= when, "lt": lu < when, "le": lu <= when, "eq": lu == when}[op]
                matches = [r for r in matches if keep(r)]
            if one.get("category"):
                wanted = set()
                for token in one["category"].split(","):
                    wanted.add(token.split("|")[-1])
                matches = [r for r in matches if any(c.get("code") in wanted for cat in r.get("category") or [] for c in cat.get("coding") or [])]
            try:
                count = int(one.get("_count") or quirks["max_count"])
                offset = int(one.get("_offset") or 0)
            except ValueError:
                return self.send(400, operation_outcome("invalid", "_count and _offset must be integers"))
            count = max(1, min(count, int(quirks["max_count"])))
            page = matches[offset:offset + count]
            here = self.base() + self.req_path
            rest = [(k, v) for k, vs in params.items() if k not in ("_offset", "_count") for v in vs]

            def link_to(off):
                query = urllib.parse.urlencode(rest + [("_count", str(count)), ("_offset", str(off))])
                path = self.req_path
                if quirks["foreign_next"]:
                    return f"http://localhost:{state.args.other_port}{path}?{query}"
                if quirks["relative_next"]:
                    return f"{path[len('/fhir/'):]}?{query}"
                return f"http://127.0.0.1:{state.args.bound_port}{path}?{query}"
            links = [{"relation": "self", "url": here + ("?" + self.req_query if self.req_query else "")}]
            if offset + count < len(matches):
                nxt = offset + count
                if quirks["loop_next"] and offset >= 2 * count:
                    nxt = count
                links.append({"relation": "next", "url": link_to(nxt)})
            base = f"http://127.0.0.1:{state.args.bound_port}/fhir"
            bundle = {"resourceType": "Bundle", "id": secrets.token_hex(8), "meta": {"lastUpdated": now_instant()}, "type": "searchset",
                      "total": len(matches), "link": links,
                      "entry": [{"fullUrl": f"{base}/{r['resourceType']}/{r['id']}", "resource": r, "search": {"mode": "match"}} for r in page]}
            if quirks["hostile"] and offset == 0:
                bundle["entry"] += hostile_entries(base)
            if not bundle["entry"]:
                del bundle["entry"]
            self.entry["entries"] = [f"{e['resource']['resourceType']}/{e['resource']['id']}" for e in bundle.get("entry", [])]
            self.entry["next"] = next((l["url"] for l in links if l["relation"] == "next"), None)
            return self.send(200, bundle)

    def path_logged(path):
        return path not in ("/_quirks", "/_resources")

    def smart_configuration():
        base = f"http://127.0.0.1:{state.args.bound_port}"
        return {
            "issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"] if state.args.client_secret else ["none"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "scopes_supported": ["openid", "fhirUser", "launch/patient", "offline_access", "online_access", "patient/*.read", "patient/*.rs"],
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
            "user_access_brand_bundle": base + "/brands.json",
            "capabilities": ["launch-standalone", "client-public", "client-confidential-symmetric", "context-standalone-patient",
                             "permission-patient", "permission-offline", "permission-v1", "permission-v2"],
        }

    def brands_bundle():
        # A SMART User-access Brands bundle (Organization + Endpoint) naming this server.
        base = f"http://127.0.0.1:{state.args.bound_port}"
        return {
            "resourceType": "Bundle", "type": "collection", "timestamp": "2026-01-01T00:00:00Z",
            "entry": [
                {"fullUrl": base + "/Organization/quirk-clinic", "resource": {
                    "resourceType": "Organization", "id": "quirk-clinic", "name": "Quirk Clinic", "alias": ["QC"],
                    "endpoint": [{"reference": "Endpoint/quirk-r4"}]}},
                {"fullUrl": base + "/Endpoint/quirk-r4", "resource": {
                    "resourceType": "Endpoint", "id": "quirk-r4", "status": "active", "name": "Quirk Clinic R4",
                    "connectionType": {"system": "http://terminology.hl7.org/CodeSystem/endpoint-connection-type", "code": "hl7-fhir-rest"},
                    "payloadType": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/endpoint-payload-type", "code": "none"}]}],
                    "address": base + "/fhir"}},
            ],
        }

    def capability_statement():
        base = f"http://127.0.0.1:{state.args.bound_port}"
        with state.lock:
            everything = state.quirks["everything"]
        kinds = sorted({k[0] for k in data.order})
        resources = []
        for k in kinds:
            res = {"type": k, "interaction": [{"code": "read"}, {"code": "search-type"}],
                   "searchParam": [{"name": "patient", "type": "reference"}, {"name": "_lastUpdated", "type": "date"}]}
            if k == "Observation":
                res["searchParam"].append({"name": "category", "type": "token"})
            if k == "Patient" and everything:
                res["operation"] = [{"name": "everything", "definition": "http://hl7.org/fhir/OperationDefinition/Patient-everything"}]
            resources.append(res)
        return {"resourceType": "CapabilityStatement", "status": "active", "date": "2024-03-01", "kind": "instance",
                "fhirVersion": "4.0.1", "format": ["json"],
                "rest": [{"mode": "server", "security": {
                    "service": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/restful-security-service", "code": "SMART-on-FHIR"}]}],
                    "extension": [{"url": OAUTH_URIS, "extension": [{"url": "authorize", "valueUri": base + "/authorize"},
                                                                     {"url": "token", "valueUri": base + "/token"}]}]},
                    "resource": resources}]}
    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bundle", default=os.path.join(os.path.dirname(os.path.dirname(here)), "shared", "data", "fhir", "synthea", DEFAULT_BUNDLE))
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--other-port", type=int, default=0)
    ap.add_argument("--log", help="JSON-lines request log")
    ap.add_argument("--client-id", default="quirk-app")
    ap.add_argument("--client-secret", help="makes the client confidential (Basic or client_secret_post)")
    ap.add_argument("--redirect-uri", action="append", default=[], help="a registered redirect URI besides loopback ones")
    ap.add_argument("--token-lifetime", type=int, default=3600)
    ap.add_argument("--max-count", type=int, default=10, help="largest page size served")
    ap.add_argument("--no-rotate", action="store_true", help="keep the refresh token on refresh (default: rotate)")
    ap.add_argument("--relative-next", action="store_true")
    ap.add_argument("--loop-next", action="store_true")
    ap.add_argument("--require-category", action="store_true")
    ap.add_argument("--throttle", action="append", default=[])
    ap.add_argument("--fail", action="append", default=[])
    ap.add_argument("--no-refresh-token", action="store_true")
    ap.add_argument("--refresh-invalid-grant", action="store_true")
    ap.add_argument("--foreign-next", action="store_true")
    ap.add_argument("--deny", action="store_true")
    ap.add_argument("--wrong-state", action="store_true")
    ap.add_argument("--everything", action="store_true")
    ap.add_argument("--hostile", action="store_true")
    args = ap.parse_args()
    args.throttle = parse_pairs(args.throttle, "throttle")
    args.fail = parse_pairs(args.fail, "fail")
    data = Data(args.bundle)
    state = State(args)

    main_server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state, data, "main"))
    main_server.daemon_threads = True
    args.bound_port = main_server.server_address[1]
    other_servers = [ThreadingHTTPServer(("127.0.0.1", args.other_port), make_handler(state, data, "other"))]
    args.other_port = other_servers[0].server_address[1]
    # "localhost" may resolve to ::1 first: listen there too when the machine has IPv6 loopback.
    try:
        class V6(ThreadingHTTPServer):
            address_family = socket.AF_INET6
        other_servers.append(V6(("::1", args.other_port), make_handler(state, data, "other")))
    except OSError:
        pass
    for s in [main_server, *other_servers]:
        s.daemon_threads = True
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print(json.dumps({"base": f"http://127.0.0.1:{args.bound_port}", "fhir": f"http://127.0.0.1:{args.bound_port}/fhir",
                      "other": f"http://localhost:{args.other_port}/fhir", "patient": data.patient_id, "counts": data.counts()}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
