#!/usr/bin/env python3
"""Copies the curated subset of the shared test corpus that `swift test` needs into Tests/Fixtures.

    Scripts/make-test-fixtures.py [SHARED]      (default: ../shared beside the repository)

The subset keeps the corpus's layout (`vectors/…`, `data/…`), so a test names a file the same way
in both places. Files are copied byte for byte, except the NDJSON export, whose files are cut to
their first lines (whole lines: every line is still one resource). Each folder's README (written
by hand, kept when the script runs again) names the source, its version and its licence.

What is taken, and why:
- every official SMART Health Card, SMART Health Link, JOSE and Wycheproof vector (small), and
  every International Patient Summary example (the IG's, national programmes', real EHRs': 1.1 MB);
- three Synthea R4 people (an infant, a young adult with a condition, a child of about 1 MB with a
  long immunization series), all the DSTU2 bundles, every HL7 R4 example;
- the NDJSON bulk export cut to NDJSON_LINES lines per file;
- every member state's EU DCC test case (the raw JSON files: 2.5 MB of the folder's 12), the
  harness's licence, notice and known issues, and two phone screenshots (JPEG) of DCC QR codes.
"""

import glob
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, "Tests", "Fixtures")

WHOLE_FOLDERS = [
    "vectors/shc-spec",
    "vectors/shc-hl7-ig",
    "vectors/shc",
    "vectors/jose",
    "vectors/wycheproof",
    "vectors/shl",
    "vectors/ips",
    "data/fhir/r4-examples",
    "data/fhir/dstu2",
]
FILES = [
    "data/fhir/synthea/Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json",
    "data/fhir/synthea/Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json",
    "data/fhir/synthea/Hernan_Heredia_e254b2a8-2545-4507-8424-f99197587031.json",
    "vectors/eu-dcc/CY/Test/Validation/png/DK/DK_5_Vac_Valid.jpg",
    "vectors/eu-dcc/CY/Test/Validation/png/DK/DK_7_Rec_Valid.jpg",
    "vectors/eu-dcc/LICENSE",
    "vectors/eu-dcc/NOTICE",
    "vectors/eu-dcc/tests/known_issues.csv",
]
NDJSON_LINES = 40
# Folders whose README is ours: never overwritten by a copied file of the same name.
OUR_READMES = {"vectors/eu-dcc", "data/fhir", "data/fhir/ndjson"}


def copy(rel):
    src, dst = os.path.join(SHARED, rel), os.path.join(OUT, rel)
    if os.path.basename(rel) == "README.md" and os.path.dirname(rel) in OUR_READMES:
        return
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


def copy_folder(rel):
    base = os.path.join(SHARED, rel)
    for dirpath, _, names in os.walk(base):
        for name in names:
            copy(os.path.relpath(os.path.join(dirpath, name), SHARED))


def cut_ndjson():
    for src in sorted(glob.glob(os.path.join(SHARED, "data/fhir/ndjson/*.ndjson"))):
        rel = os.path.relpath(src, SHARED)
        dst = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as f:
            lines = f.read().split(b"\n")
        kept = [l for l in lines if l.strip()][:NDJSON_LINES]
        with open(dst, "wb") as f:
            f.write(b"".join(l + b"\n" for l in kept))


def copy_dcc_cases():
    cases = sorted(glob.glob(os.path.join(SHARED, "vectors/eu-dcc/*/2DCode/raw/*.json")))
    for path in cases:
        copy(os.path.relpath(path, SHARED))
    return len(cases)


def main():
    if not os.path.isdir(os.path.join(SHARED, "vectors")):
        sys.exit(f"error: {SHARED} holds no vectors/ (the shared corpus)")
    for rel in WHOLE_FOLDERS:
        copy_folder(rel)
    for rel in FILES:
        copy(rel)
    cut_ndjson()
    dcc = copy_dcc_cases()
    total = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(OUT) for n in ns)
    print(f"{dcc} DCC cases; Tests/Fixtures holds {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
