#!/usr/bin/env bash
# Copies seed inputs for each fuzz target from ../shared into fuzz/.seeds (git-ignored).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="$here/../../shared"
seeds="$here/.seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{FuzzJSON,FuzzFHIR,FuzzJWS,FuzzSHCVerify,FuzzQRText,FuzzInflate,FuzzCMS,FuzzSampleContent,FuzzPNG,FuzzJPEG,FuzzQRDecode,FuzzP256,FuzzBase45,FuzzCBOR,FuzzCOSE,FuzzSHL,FuzzWebAuthn}
n=0
for f in "$shared"/data/fhir/r4-examples/*.json; do
  [ $((n % 4)) -eq 0 ] && cp "$f" "$seeds/FuzzJSON/" && cp "$f" "$seeds/FuzzFHIR/"
  n=$((n + 1))
done
cp "$shared"/data/fhir/dstu2/custom/hspc-bilirubin-chart.json "$seeds/FuzzFHIR/"
sed -n 3p "$shared"/data/fhir/ndjson/Condition.000.ndjson > "$seeds/FuzzFHIR/ndjson-line.json"
for d in shc-spec shc-hl7-ig; do
  for f in "$shared"/vectors/$d/example-0*-d-jws.txt; do cp "$f" "$seeds/FuzzJWS/$d-$(basename "$f")"; cp "$f" "$seeds/FuzzSHCVerify/$d-$(basename "$f")"; done
  for f in "$shared"/vectors/$d/example-0*-e-file.smart-health-card; do cp "$f" "$seeds/FuzzSHCVerify/$d-$(basename "$f")"; done
  for f in "$shared"/vectors/$d/example-0*-f-qr-code-numeric-value-*.txt; do cp "$f" "$seeds/FuzzQRText/$d-$(basename "$f")"; done
done
cat "$shared"/vectors/shc-spec/example-02-f-qr-code-numeric-value-{0,1,2}.txt | sed 's/shc:/\nshc:/g' | tail -n +2 > "$seeds/FuzzQRText/chunks.txt"
for f in "$shared"/vectors/shc-spec/example-0*-d-jws.txt; do
  python3 -c "import sys,base64; p=open(sys.argv[1]).read().split('.')[1]; sys.stdout.buffer.write(base64.urlsafe_b64decode(p+'='*(-len(p)%4)))" "$f" > "$seeds/FuzzInflate/$(basename "$f" .txt).deflate"
done
# Sample content: the documented example from docs/signed-sample-content.md.
grep -E '^30[0-9a-f]{40,}$' "$here/../docs/signed-sample-content.md" | head -1 | python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))" > "$seeds/FuzzSampleContent/example.der"
# CMS: what openssl signs, with and without signed attributes and key ids, over that content.
tmp="$(mktemp -d)"
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/key.pem" 2>/dev/null
openssl req -new -x509 -key "$tmp/key.pem" -subj "/CN=Fuzz Device" -days 1 -out "$tmp/cert.pem" 2>/dev/null
for flags in "" "-noattr" "-keyid" "-noattr -keyid"; do
  name="openssl$(echo "$flags" | tr -d ' ')"
  openssl cms -sign -nodetach -binary -md sha256 -outform DER -signer "$tmp/cert.pem" -inkey "$tmp/key.pem" $flags \
    -in "$seeds/FuzzSampleContent/example.der" -out "$seeds/FuzzCMS/$name.der" 2>/dev/null
done
rm -rf "$tmp"
# P-256: a few key/mode/message triples (see Sources/FuzzP256).
for i in 0 1 2 3; do printf "\\x0$i\\x0$i" > "$seeds/FuzzP256/mode$i"; head -c 100 /dev/urandom >> "$seeds/FuzzP256/mode$i"; done
# EU DCC: every member-state test case, each layer for the target that reads it — the base45
# text; the COSE and payload CBOR; the zlib bytes, the COSE bytes and the QR text for the whole
# path. Fields that are missing or not hex (some cases are broken on purpose) are skipped.
python3 - "$shared/vectors/eu-dcc" "$seeds" <<'PY'
import glob, json, os, sys
root, seeds = sys.argv[1], sys.argv[2]
def put(target, name, data):
    with open(os.path.join(seeds, target, name), "wb") as f: f.write(data)
for path in sorted(glob.glob(os.path.join(root, "*", "2DCode", "raw", "*.json"))):
    name = path[len(root) + 1:].split(os.sep)[0] + "-" + os.path.basename(path)[:-5]
    try: case = json.load(open(path, encoding="utf-8"))
    except ValueError: continue
    def field(key, hexed):
        v = case.get(key)
        if not isinstance(v, str) or not v: return None
        if not hexed: return v.encode()
        try: return bytes.fromhex(v)
        except ValueError: return None
    for target, key, hexed, suffix in [("FuzzBase45", "BASE45", False, "b45"), ("FuzzCBOR", "COSE", True, "cose"),
                                       ("FuzzCBOR", "CBOR", True, "cbor"), ("FuzzCOSE", "COMPRESSED", True, "zlib"),
                                       ("FuzzCOSE", "COSE", True, "cose"), ("FuzzCOSE", "PREFIX", False, "txt")]:
        data = field(key, hexed)
        if data: put(target, name + "." + suffix, data)
PY
echo "seeds in $seeds"
# PNG and QR: small renderings of card QR codes made by our own encoder (the real spec PNGs are
# large; a downscaled copy keeps executions fast), plus the real images for the PNG decoder.
bin="$here/../.build/debug/healthrecords"
if [ -x "$bin" ]; then
  for n in 00 03; do
    "$bin" qr encode --shc "$shared/vectors/shc-spec/example-$n-d-jws.txt" --png "$seeds/FuzzPNG/card-$n.png" --module-size 1 2>/dev/null || true
  done
  "$bin" qr encode --text "HealthRecords" --level H --png "$seeds/FuzzQRDecode/small.png" --module-size 2 2>/dev/null || true
  cp "$seeds"/FuzzPNG/*.png "$seeds/FuzzQRDecode/" 2>/dev/null || true
fi
cp "$shared"/vectors/shc/spec-examples-2021/*.png "$seeds/FuzzPNG/" 2>/dev/null || true
# JPEG: the decoder's own fixtures (baseline, progressive, restart markers, subsampling, EXIF).
cp "$here"/../Tests/QRCodeTests/Fixtures/jpeg/*.jpg "$seeds/FuzzJPEG/" 2>/dev/null || true
# SMART Health Links: the first byte picks what the rest is (0 link text, 1 payload JSON, 2 JWE,
# 3 manifest); the IG's examples for each.
for f in "$shared"/vectors/shl/*-shl.txt; do { printf '\x00'; cat "$f"; } > "$seeds/FuzzSHL/link-$(basename "$f")"; done
for f in "$shared"/vectors/shl/shl-payload-*.json; do { printf '\x01'; cat "$f"; } > "$seeds/FuzzSHL/payload-$(basename "$f")"; done
for f in "$shared"/vectors/shl/*-enc.txt; do { printf '\x02'; cat "$f"; } > "$seeds/FuzzSHL/jwe-$(basename "$f")"; done
{ printf '\x03'; cat "$shared"/vectors/shl/shl-manifest-1.json; } > "$seeds/FuzzSHL/manifest-1.json"
# WebAuthn: the specification's test vectors (the repository's fixture), each byte string behind
# the selector byte of the layer that reads it.
python3 - "$here/../Tests/Fixtures/webauthn/w3c-test-vectors.json" "$seeds/FuzzWebAuthn" <<'PY'
import json, sys
vectors = json.load(open(sys.argv[1]))
for name, v in vectors.items():
    for selector, value in [(0, v["registration"]["attestationObject"]), (2, v["registration"]["clientDataJSON"]),
                            (1, v["authentication"]["authenticatorData"]), (4, v["authentication"]["authenticatorData"] + v["authentication"]["signature"])]:
        open(f"{sys.argv[2]}/{name}-{selector}", "wb").write(bytes([selector]) + bytes.fromhex(value))
PY

