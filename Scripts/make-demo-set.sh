#!/usr/bin/env bash
# Builds Demo/ (committed) from ../shared: one person's records from three providers (FHIR R4
# and DSTU2), a SMART Health Card issued over her immunizations with its issuer's public keys,
# and signed glucose samples. Run from the package root after `swift build`:
#
#   Scripts/make-demo-set.sh [SHARED_DIR]
#
# HEALTHRECORDS names the binary (default: the debug build's). New keys are made on every run,
# so the card and the samples' signatures change; the records do not. Private keys are not kept.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${1:-../shared}
HR=${HEALTHRECORDS:-$(swift build --show-bin-path)/healthrecords}
[ -x "$HR" ] || { echo "build first: swift build (no $HR)" >&2; exit 2; }
[ -d "$SHARED/data/fhir" ] || { echo "no $SHARED/data/fhir" >&2; exit 2; }
command -v openssl >/dev/null || { echo "openssl is needed for the device key" >&2; exit 2; }

R4="$SHARED/data/fhir/synthea/Karena_Pfeffer_1f99a0cb-594b-476a-b9cb-502594c1ee6b.json"
DSTU2="$SHARED/data/fhir/dstu2/synthea/Champlin_Gigi_46.json"
ISS=https://demo.healthrecords.example/issuer
DEVICE=DEMO-GLUCOSE-0001
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT

rm -rf Demo/providers Demo/card Demo/samples Demo/demo.json
mkdir -p Demo/providers Demo/card/issuer/.well-known Demo/samples

python3 - "$R4" "$DSTU2" "$WORK/card-bundle.json" <<'PY'
import json, re, sys, collections
r4_path, dstu2_path, card_path = sys.argv[1:4]

def write(bundle, name):
    path = "Demo/providers/" + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(bundle, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    return path

# R4: one Synthea patient whose encounters took place at two hospitals; each hospital's file
# holds its encounters and what was recorded in them. Billing (Claim, ExplanationOfBenefit) is
# left out for size; the Patient and the practitioners are in both, as real exports have them.
b = json.load(open(r4_path, encoding="utf-8"))
entries = [e for e in b["entry"] if e["resource"]["resourceType"] not in ("Claim", "ExplanationOfBenefit")]
orgs = {e["fullUrl"]: e for e in entries if e["resource"]["resourceType"] == "Organization"}
enc_org = {e["fullUrl"]: e["resource"]["serviceProvider"]["reference"] for e in entries if e["resource"]["resourceType"] == "Encounter"}
busiest = collections.Counter(enc_org.values()).most_common(1)[0][0]
files = {url: [] for url in orgs}
for e in entries:
    r = e["resource"]
    t = r["resourceType"]
    if t in ("Patient", "Practitioner"):
        for url in files: files[url].append(e)
    elif t == "Organization":
        files[e["fullUrl"]].append(e)
    elif t == "Encounter":
        files[enc_org[e["fullUrl"]]].append(e)
    else:
        ref = (r.get("encounter") or r.get("context") or {}).get("reference")
        files[enc_org.get(ref, busiest)].append(e)
person = next(e["resource"] for e in entries if e["resource"]["resourceType"] == "Patient")
providers = []
for url, items in files.items():
    name = orgs[url]["resource"]["name"].title().replace("'S", "'s").rstrip(" -")
    orgs[url]["resource"]["name"] = name
    path = write({"resourceType": "Bundle", "type": "collection", "entry": items}, name)
    providers.append({"file": path[len("Demo/"):], "name": name})

# DSTU2: another Synthea patient's record, given this person's name, sex and birth date, at a
# clinic (the source's "Synthetic Provider", renamed).
d = json.load(open(dstu2_path, encoding="utf-8"))
clinic = "Harbor Community Clinic"
for e in d["entry"]:
    r = e["resource"]
    if r["resourceType"] == "Patient":
        r["name"] = person["name"]
        r["birthDate"] = person["birthDate"]
        r["gender"] = person["gender"]
    if r["resourceType"] == "Organization":
        r["name"] = clinic
path = write(d, clinic)
providers.append({"file": path[len("Demo/"):], "name": clinic})

# The card: the person and her immunizations, minimized by `healthrecords issue`.
imms = [e["resource"] for e in entries if e["resource"]["resourceType"] == "Immunization"]
card = {"resourceType": "Bundle", "type": "collection", "entry": [
    {"fullUrl": "resource:0", "resource": {"resourceType": "Patient", "name": [{"family": person["name"][0]["family"], "given": person["name"][0]["given"]}], "birthDate": person["birthDate"]}}]}
for i, imm in enumerate(imms):
    card["entry"].append({"fullUrl": "resource:%d" % (i + 1), "resource": {
        "resourceType": "Immunization", "status": imm["status"], "vaccineCode": imm["vaccineCode"],
        "patient": {"reference": "resource:0"}, "occurrenceDateTime": imm["occurrenceDateTime"],
        "performer": [{"actor": {"display": providers[0]["name"]}}]}})
json.dump(card, open(card_path, "w"), indent=1)
json.dump({"person": {"name": " ".join(person["name"][0]["given"] + [person["name"][0]["family"]]), "birthDate": person["birthDate"]},
           "providers": providers}, open("Demo/demo.json", "w"), indent=2)
PY

# The card and its issuer's public key set (the private key is thrown away).
"$HR" keys generate --private "$WORK/issuer.private.jwks" --public Demo/card/issuer/.well-known/jwks.json
"$HR" issue "$WORK/card-bundle.json" --key "$WORK/issuer.private.jwks" --iss "$ISS" --out Demo/card/immunizations.smart-health-card

# Glucose samples signed by a demo meter's key, with its self-signed certificate; the samples
# are written in the export's sample-line form by saving them and exporting.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/device.key" 2>/dev/null
openssl req -x509 -new -key "$WORK/device.key" -subj "/CN=Demo Glucose Meter $DEVICE" -days 3650 -out Demo/samples/device-certificate.pem 2>/dev/null
S="$WORK/samples.sqlite"
i=0
for reading in "2024-03-04T07:30:00Z 5.4" "2024-03-05T07:35:00Z 6.1" "2024-03-06T07:20:00Z 5.8" "2024-03-07T07:40:00Z 7.2" "2024-03-08T07:25:00Z 5.6"; do
  set -- $reading
  i=$((i + 1))
  "$HR" samples add --store "$S" --type blood-glucose --value "$2" --unit mmol/L --start "$1" --device "$DEVICE" \
    --source "Demo Glucose Meter" --uuid "$(printf '00000000-0000-4000-8000-%012d' "$i")" \
    --sign-key "$WORK/device.key" --certificate Demo/samples/device-certificate.pem >/dev/null
done
"$HR" export --store "$S" --out "$WORK/samples.zip" >/dev/null
python3 - "$WORK/samples.zip" <<'PY'
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    open("Demo/samples/glucose.ndjson", "wb").write(z.read("samples/samples.ndjson"))
m = json.load(open("Demo/demo.json"))
m["cards"] = [{"file": "card/immunizations.smart-health-card", "issuer": "https://demo.healthrecords.example/issuer", "keys": "card/issuer"}]
m["samples"] = "samples/glucose.ndjson"
m["deviceCertificate"] = "samples/device-certificate.pem"
json.dump(m, open("Demo/demo.json", "w"), indent=2)
open("Demo/demo.json", "a").write("\n")
PY
du -sh Demo
