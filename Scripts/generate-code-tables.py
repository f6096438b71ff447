#!/usr/bin/env python3
"""Generates the code tables ClinicalRecords ships, from ../shared/data/codes.

Run from the repository root: python3 Scripts/generate-code-tables.py
Writes Sources/ClinicalRecords/Resources/*.tsv and the LOINC notice. The output is committed;
re-run this script when the source tables change.
"""
import csv, os, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
codes = os.path.join(os.path.dirname(root), "shared", "data", "codes")
out = os.path.join(root, "Sources", "ClinicalRecords", "Resources")
os.makedirs(out, exist_ok=True)

def rows(name):
    with open(os.path.join(codes, name), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))

def clean(s):
    return " ".join((s or "").replace("\t", " ").split())

def write(name, header, data):
    with open(os.path.join(out, name), "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(header) + "\n")
        for r in data:
            f.write("\t".join(clean(x) for x in r) + "\n")

# CDC CVX: code, short description, full name, status.
write("cvx.tsv", ["cvx", "short", "full", "status"],
      [(r["cvx_code"], r["short_description"], r["full_vaccine_name"], r["status"]) for r in rows("cvx.tsv")])

# CDC CVX -> vaccine group (vax2vg).
write("cvx-vaccine-groups.tsv", ["cvx", "group"],
      [(r["cvx_code"], r["vaccine_group_name"]) for r in rows("cvx_vaccine_group.tsv")])

# CDC CDSi CVX -> antigen, with the age window of the association.
write("cvx-antigens.tsv", ["cvx", "antigen", "begin_age", "end_age"],
      [(r["cvx_code"], r["antigen"], r["association_begin_age"], r["association_end_age"]) for r in rows("cdsi_cvx_to_antigen.tsv")])

# LOINC names. Official Long Common Names where we have Regenstrief's own export; the
# vital-sign codes of the FHIR R4 vital-signs value set with their LOINC Long Common Names;
# otherwise the display most often written for the code in real-world exports (marked "observed").
loinc = {}
with open(os.path.join(codes, "loinc", "Loinc_Sarscov2_Export_20200529.csv"), encoding="utf-8", newline="") as f:
    for r in csv.DictReader(f):
        loinc[r["LOINC_NUM"]] = (r["Long Common Name"], "official")
VITALS = {
    "85353-1": "Vital signs, weight, height, head circumference, oxygen saturation and BMI panel",
    "9279-1": "Respiratory rate",
    "8867-4": "Heart rate",
    "2708-6": "Oxygen saturation in Arterial blood",
    "59408-5": "Oxygen saturation in Arterial blood by Pulse oximetry",
    "8310-5": "Body temperature",
    "8302-2": "Body height",
    "9843-4": "Head Occipital-frontal circumference",
    "29463-7": "Body weight",
    "39156-5": "Body mass index (BMI) [Ratio]",
    "85354-9": "Blood pressure panel with all children optional",
    "8480-6": "Systolic blood pressure",
    "8462-4": "Diastolic blood pressure",
    "8478-0": "Mean blood pressure",
}
for code, name in VITALS.items():
    loinc.setdefault(code, (name, "official"))
for r in rows(os.path.join("loinc", "loinc_codes_observed_in_test_data.tsv")):
    if r["most_common_display_in_data"]:
        loinc.setdefault(r["loinc_code"], (r["most_common_display_in_data"], "observed"))
write("loinc-names.tsv", ["loinc", "name", "origin"], sorted((k, v[0], v[1]) for k, v in loinc.items()))
write("loinc-vital-signs.tsv", ["loinc"], sorted((k,) for k in VITALS))

with open(os.path.join(codes, "loinc", "LOINC_LICENSE_2.68.txt"), encoding="utf-8") as f:
    notice = f.read()
with open(os.path.join(out, "LOINC_NOTICE.txt"), "w", encoding="utf-8") as f:
    f.write("This material contains content from LOINC (http://loinc.org). LOINC is copyright \u00a9 "
            "Regenstrief Institute, Inc. and the Logical Observation Identifiers Names and Codes (LOINC) "
            "Committee and is available at no cost under the license at http://loinc.org/license.\n\n")
    f.write(notice)
print("wrote", sorted(os.listdir(out)))
