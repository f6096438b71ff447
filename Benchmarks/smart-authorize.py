#!/usr/bin/env python3
"""Gets a SMART access token the way an app and a person would, without a browser.

Signs the person in at the printed `/login?token=…` link (keeping the session cookie), opens the
app's authorization URL (response_type=code, PKCE S256, aud = the FHIR base), answers the consent
sheet's form as the person would (the listed categories on, the rest off, new data shared), reads
the code from the redirect to the app, and exchanges it at /token as a public client. Prints the
token response as JSON. Standard library only.

Usage: smart-authorize.py --base URL --sign-in URL --client-id ID --redirect-uri URL
                          --scope "launch/patient patient/Observation.rs" --allow lab-result[,…]
"""
import argparse, base64, hashlib, html.parser, http.cookiejar, json, secrets, sys, urllib.error, urllib.parse, urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class ConsentForm(html.parser.HTMLParser):
    """The first POST form holding `allow` switches: its action and fields."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.inside = False
        self.done = False
        self.hidden = []
        self.switches = []
        self.buttons = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and not self.done and (a.get("method") or "").lower() == "post":
            self.inside, self.action, self.hidden, self.switches, self.buttons = True, a.get("action"), [], [], []
        elif self.inside and tag == "input":
            kind = (a.get("type") or "text").lower()
            if kind == "hidden":
                self.hidden.append((a.get("name"), a.get("value") or ""))
            elif kind == "checkbox" and a.get("name") == "allow":
                self.switches.append(a.get("value"))
        elif self.inside and tag == "button":
            self.buttons.append((a.get("id"), a.get("name"), a.get("value")))

    def handle_endtag(self, tag):
        if tag == "form" and self.inside:
            self.inside = False
            self.done = bool(self.switches)


def fail(message):
    print(f"smart-authorize: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--sign-in", required=True)
    ap.add_argument("--client-id", required=True)
    ap.add_argument("--redirect-uri", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--allow", required=True, help="consent categories to turn on, comma-separated")
    a = ap.parse_args()
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())

    def get(url, data=None):
        """One request without following redirects: (status, Location, body)."""
        try:
            with opener.open(urllib.request.Request(url, data=data), timeout=30) as r:
                return r.status, r.headers.get("Location"), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Location"), e.read().decode(errors="replace")

    status, location, _ = get(a.sign_in)
    if status not in (302, 303) or not any(c.name.endswith("hr_session") for c in jar):
        fail(f"signing in at {a.sign_in} gave {status} and no session cookie")

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    state = secrets.token_urlsafe(12)
    url = a.base + "/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": a.client_id, "redirect_uri": a.redirect_uri, "scope": a.scope, "state": state,
        "aud": a.base + "/fhir", "code_challenge": challenge, "code_challenge_method": "S256"})
    data = None
    for _ in range(6):
        status, location, body = get(url, data)
        data = None
        if status in (301, 302, 303, 307) and location:
            if location.startswith(a.redirect_uri):
                break
            url = urllib.parse.urljoin(url, location)
            continue
        if status != 200:
            fail(f"{url} answered {status}: {body[:300]}")
        form = ConsentForm()
        form.feed(body)
        if not form.done:
            fail(f"no consent form at {url}")
        allow = [c for c in a.allow.split(",") if c]
        missing = set(allow) - set(form.switches)
        if missing:
            fail(f"the consent sheet does not offer {sorted(missing)} (offered: {form.switches})")
        fields = list(form.hidden) + [("allow", c) for c in allow] + [("newData", "share")]
        submit = next((b for b in form.buttons if b[0] == "submit"), None)
        if submit and submit[1]:
            fields.append((submit[1], submit[2] or ""))
        url, data = urllib.parse.urljoin(url, form.action or url), urllib.parse.urlencode(fields).encode()
    else:
        fail("too many redirects before the app's redirect URI")
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    if q.get("state") != state or "code" not in q:
        fail(f"the redirect to the app has no code for this state: {location}")
    token = urllib.parse.urlencode({"grant_type": "authorization_code", "code": q["code"], "redirect_uri": a.redirect_uri,
                                    "client_id": a.client_id, "code_verifier": verifier}).encode()
    status, _, body = get(a.base + "/token", token)
    if status != 200:
        fail(f"/token answered {status}: {body}")
    print(json.dumps(json.loads(body)))


if __name__ == "__main__":
    main()
