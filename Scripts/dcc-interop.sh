#!/usr/bin/env bash
# Interop for EU Digital COVID Certificates (HCERT) against the Python libraries the member states'
# test harness (dgc-testdata tests/test_ehealth_certs.py) uses: cose 0.9.dev7, cbor2, base45,
# cryptography.
#  - Python signs (cose), `healthrecords verify --dsc` verifies: good certificates of each kind,
#    algorithm, tagging and kid placement, then one defect at a time with its exact error code;
#  - `healthrecords dcc issue` signs, Python verifies the way the harness does (kid, COSE signature
#    with a CoseKey made from the DSC, CWT claims, payload), and pyzbar reads the QR PNG.
# The Document Signer Certificates are made here with the openssl CLI (EC P-256 and RSA keys,
# with and without the DCC extended key usages, one expired, one not yet valid).
# Usage: Scripts/dcc-interop.sh [--python-only] [path/to/healthrecords]
#   --python-only: only the Python half against itself (for a binary without DCC support yet).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python_only=()
if [ "${1:-}" = "--python-only" ]; then python_only=(--python-only); shift; fi
bin="${1:-$root/.build/debug/healthrecords}"
if [ ${#python_only[@]} -eq 0 ] && [ ! -x "$bin" ]; then
  echo "no executable healthrecords at $bin (build it, pass its path, or use --python-only)" >&2
  exit 2
fi

venv="$root/.build/dcc-venv"
# cose 0.9.dev7 is the harness's pin. cbor2 6 decodes CBOR arrays as tuples, which cose
# 0.9.dev7's from_cose_obj cannot pop from, so cbor2 stays on 5.x (the harness's era).
requirements="cose==0.9.dev7 cbor2<6 base45 cryptography"
# Only for the QR parts, which are skipped (with a note) when these do not install or load.
qr_requirements="qrcode Pillow pyzbar"

make_venv() {
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$requirements" ]; then
    return
  fi
  echo "making $venv ($requirements)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q $requirements >&2
  "$venv/bin/pip" install -q $qr_requirements >&2 || echo "note: $qr_requirements did not install; QR checks will be skipped" >&2
  echo "$requirements" >"$venv/.requirements"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A minimal `openssl ca` setup: `req -x509` in OpenSSL 3.0 cannot set notBefore/notAfter, and the
# expired and not-yet-valid DSCs need both; `ca -selfsign` takes -startdate/-enddate.
write_ca_config() {
  mkdir -p "$work/ca/new"
  : >"$work/ca/index.txt"
  echo 1000 >"$work/ca/serial"
  cat >"$work/ca/openssl.cnf" <<EOF
[ca]
default_ca = dsc
[dsc]
database = $work/ca/index.txt
new_certs_dir = $work/ca/new
serial = $work/ca/serial
default_md = sha256
policy = any
unique_subject = no
email_in_dn = no
[any]
countryName = optional
organizationName = optional
commonName = optional
[req]
distinguished_name = dn
[dn]
[ext_none]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
[ext_t]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
extendedKeyUsage = 1.3.6.1.4.1.1847.2021.1.1
[ext_r]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
extendedKeyUsage = 1.3.6.1.4.1.1847.2021.1.3
[ext_tvr]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
extendedKeyUsage = 1.3.6.1.4.1.1847.2021.1.1, 1.3.6.1.4.1.1847.2021.1.2, 1.3.6.1.4.1.1847.2021.1.3
EOF
}

# make_key NAME ec|rsa2048|rsa3072 sec1|pkcs8|pkcs1 — the key in the PEM form `dcc issue` is to read.
make_key() {
  local name="$1" type="$2" form="$3" key="$work/certs/$1.key.pem"
  case "$type" in
    ec) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$key.tmp" 2>/dev/null ;;
    rsa*) openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:${type#rsa}" -out "$key.tmp" 2>/dev/null ;;
  esac
  case "$form" in
    pkcs8) mv "$key.tmp" "$key" ;;
    sec1) openssl ec -in "$key.tmp" -out "$key" 2>/dev/null && rm "$key.tmp" ;;
    pkcs1) openssl rsa -traditional -in "$key.tmp" -out "$key" 2>/dev/null && rm "$key.tmp" ;;
  esac
}

# make_dsc NAME COUNTRY EXTENSIONS START END — a self-signed DSC for NAME's key.
make_dsc() {
  local name="$1" country="$2" ext="$3" start="$4" end="$5"
  openssl req -new -config "$work/ca/openssl.cnf" -key "$work/certs/$name.key.pem" \
    -subj "/C=$country/O=HealthRecords interop/CN=DSC $name" -out "$work/ca/$name.csr"
  openssl ca -batch -notext -selfsign -config "$work/ca/openssl.cnf" -keyfile "$work/certs/$name.key.pem" \
    -in "$work/ca/$name.csr" -out "$work/certs/$name.cert.pem" -extensions "$ext" \
    -startdate "$start" -enddate "$end" 2>/dev/null
}

make_dscs() {
  mkdir -p "$work/certs"
  write_ca_config
  # NAME          key type  key form   C    EKU       notBefore        notAfter
  while read -r name type form country ext start end; do
    make_key "$name" "$type" "$form"
    make_dsc "$name" "$country" "$ext" "$start" "$end"
  done <<'EOF'
ec-all         ec       sec1   AT   ext_none  20210101000000Z  20400101000000Z
ec-test        ec       pkcs8  DE   ext_t     20210101000000Z  20400101000000Z
rsa2048-r      rsa2048  pkcs8  FR   ext_r     20210101000000Z  20400101000000Z
rsa3072-tvr    rsa3072  pkcs1  BE   ext_tvr   20210101000000Z  20400101000000Z
ec-other       ec       pkcs8  NL   ext_none  20210101000000Z  20400101000000Z
ec-expired     ec       pkcs8  IT   ext_none  20210101000000Z  20220101000000Z
ec-future      ec       pkcs8  ES   ext_none  20300101000000Z  20400101000000Z
EOF
}

make_venv
make_dscs
"$venv/bin/python" "$root/Scripts/dcc-interop.py" --bin "$bin" --certs "$work/certs" --work "$work" \
  "${python_only[@]}"
