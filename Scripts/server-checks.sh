#!/usr/bin/env bash
# The HTTP server's checks outside `swift test` (run by .ci/run after it):
#   1. the OpenAPI document validates (openapi-spec-validator, PyPI);
#   2. the browser test (Debian chromium + chromium-driver, selenium from PyPI; Scripts/browser-test.py),
#      on SQLite and, when HEALTHRECORDS_POSTGRES_URL names a server, on PostgreSQL too;
#   2b. the sharing browser test (Scripts/browser-share-test.py): the Share pages with JavaScript off, the
#      link viewer with it on;
#   2c. passkeys: Chromium's virtual authenticator enrols, signs in and uses a recovery code, then on
#      a server for many people enrols two people, signs in at the front and acts as a proxy
#      (Scripts/browser-passkey-test.py), and soft-webauthn (PyPI, its own venv) enrols and signs in
#      over HTTP with the negative cases (Scripts/passkey-peers-test.py); with PostgreSQL, two serve
#      processes on one store with every request of a SMART flow, a passkey enrolment and sign-in, a
#      link's passcode attempts and an app's authorization request alternating between them, then two
#      processes serving every person of the database (Scripts/two-process-test.py);
#   3. the SMART peers test (Python fhirclient, fhirpy and fhir.resources from PyPI with the same chromium;
#      Scripts/smart-peers-test.py), on SQLite and, like the browser test, on PostgreSQL;
#   4. provider connections (issue 16): the quirks test (Scripts/provider-quirks-test.py against the scripted
#      FHIR + OAuth server Scripts/provider-quirk-server.py: paging, retries, token refresh, sign-in errors),
#      the sign-in test (Scripts/provider-signin-test.py: one instance connects to another's SMART server,
#      consent in chromium; the CLI and the server's page) and the test against sekmet-fhir 0.1.1, an
#      independent FHIR server (PyPI, in its own venv .build/sekmet-venv made by Scripts/sekmet-venv.sh: it
#      needs pydantic 2, this venv pins pydantic 1; Scripts/provider-sekmet-test.py); the last two also on
#      PostgreSQL like the browser test;
#   5. the load test on loopback (Debian wrk; Scripts/load-test.sh), LOAD_TEST_SECONDS long (default 10;
#      the README's figures come from a 30 s run).
# Python packages go into a venv under .build, kept between runs.
# Usage: Scripts/server-checks.sh [--cli PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=.build/debug/healthrecords
if [ "${1:-}" = "--cli" ]; then CLI="$2"; fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (Debian)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
VENV=.build/server-venv
# fhirclient 4.4.0 is the first release that sends PKCE (S256); fhir.resources 6.4.0 is the last whose
# models are FHIR R4 4.0.1 (6.5 moved to R4B, 7 and 8 to R5 with R4B beside it) and it needs pydantic 1.
PYTHON_PACKAGES=("selenium>=4.15,<5" "Pillow>=10,<12" "openapi-spec-validator>=0.7,<1" "requests>=2.31,<3" "fhirclient==4.4.0" "fhirpy==2.3.1"
  "fhir.resources==6.4.0" "pydantic>=1.10.17,<2" "joserfc>=1.0,<2")
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "
import selenium, PIL, openapi_spec_validator, requests, fhirpy, joserfc, fhirclient.client as c, fhir.resources as r
assert c.__version__ == '4.4.0' and r.__version__ == '6.4.0' and r.__fhir_version__ == '4.0.1' and fhirpy.__version__ == '2.3.1'" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "${PYTHON_PACKAGES[@]}"
fi

echo "== OpenAPI document"
"$VENV/bin/python" - <<'PY'
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
doc, _ = read_from_filename("Sources/HealthServer/Resources/openapi.json")
validate(doc)
print(f"openapi.json is a valid OpenAPI {doc['openapi']} document with {len(doc['paths'])} paths")
PY

echo "== Browser test"
"$VENV/bin/python" Scripts/browser-test.py --cli "$CLI" --out .build/browser-test
if [ -n "${HEALTHRECORDS_POSTGRES_URL:-}" ]; then
  # The same flow on a new person's store in the PostgreSQL server the store tests use.
  "$VENV/bin/python" Scripts/browser-test.py --cli "$CLI" --out .build/browser-test-postgres --postgres "$HEALTHRECORDS_POSTGRES_URL"
fi

echo "== Browser test: passkeys (Chromium's virtual authenticator)"
"$VENV/bin/python" Scripts/browser-passkey-test.py --cli "$CLI" --out .build/browser-passkey-test

echo "== Passkeys against an independent client (soft-webauthn)"
# Its own venv: fido2 1.2 wants an older cryptography than the browser test's packages.
PASSKEY_VENV=.build/passkey-venv
if [ ! -x "$PASSKEY_VENV/bin/python" ] || ! "$PASSKEY_VENV/bin/python" -c "import soft_webauthn, fido2, requests; assert fido2.__version__ == '1.2.0'" 2>/dev/null; then
  python3 -m venv "$PASSKEY_VENV"
  "$PASSKEY_VENV/bin/pip" install -q "soft-webauthn==0.1.4" "fido2==1.2.0" "requests>=2.31,<3"
fi
"$PASSKEY_VENV/bin/python" Scripts/passkey-peers-test.py --cli "$CLI" --out .build/passkey-peers-test

if [ -n "${HEALTHRECORDS_POSTGRES_URL:-}" ]; then
  echo "== Two serve processes on one PostgreSQL store (SMART flow, passkeys, a link's passcode attempts alternating)"
  "$PASSKEY_VENV/bin/python" Scripts/two-process-test.py --cli "$CLI" --out .build/two-process-test --postgres "$HEALTHRECORDS_POSTGRES_URL"
fi

echo "== Browser test: sharing with a clinician (the Share pages without JavaScript, the link viewer with it)"
"$VENV/bin/python" Scripts/browser-share-test.py --cli "$CLI" --out .build/browser-share-test

echo "== SMART peers test"
FHIRCHECK="$(Scripts/fhircheck-venv.sh)"
"$VENV/bin/python" Scripts/smart-peers-test.py --cli "$CLI" --out .build/smart-peers-test --fhircheck "$FHIRCHECK"
if [ -n "${HEALTHRECORDS_POSTGRES_URL:-}" ]; then
  "$VENV/bin/python" Scripts/smart-peers-test.py --cli "$CLI" --out .build/smart-peers-test-postgres --postgres "$HEALTHRECORDS_POSTGRES_URL" --fhircheck "$FHIRCHECK"
fi

echo "== Provider quirks test"
"$VENV/bin/python" Scripts/provider-quirks-test.py --cli "$CLI" --out .build/provider-quirks-test

echo "== Provider sign-in test"
"$VENV/bin/python" Scripts/provider-signin-test.py --cli "$CLI" --out .build/provider-signin-test
if [ -n "${HEALTHRECORDS_POSTGRES_URL:-}" ]; then
  "$VENV/bin/python" Scripts/provider-signin-test.py --cli "$CLI" --out .build/provider-signin-test-postgres --postgres "$HEALTHRECORDS_POSTGRES_URL"
fi

echo "== Provider test (sekmet-fhir 0.1.1)"
SEKMET="$(Scripts/sekmet-venv.sh)"
"$VENV/bin/python" Scripts/provider-sekmet-test.py --cli "$CLI" --sekmet "$SEKMET" --out .build/provider-sekmet-test
if [ -n "${HEALTHRECORDS_POSTGRES_URL:-}" ]; then
  command -v psql >/dev/null 2>&1 || { $SUDO apt-get update -qq; DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql-client >/dev/null; }
  "$VENV/bin/python" Scripts/provider-sekmet-test.py --cli "$CLI" --sekmet "$SEKMET" --out .build/provider-sekmet-test-postgres --postgres "$HEALTHRECORDS_POSTGRES_URL"
fi

echo "== Load test"
Scripts/load-test.sh "${LOAD_TEST_SECONDS:-10}" --cli "$CLI"
