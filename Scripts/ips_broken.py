"""Broken IPS documents for Scripts/ips-check-selftest.py: copies of the IPS IG's minimal example
(IPS_IG_bundle-minimal.json, CC0) that each break exactly one IPS rule, the one the file is named
after. ips-check.py must fail each of them with that rule id and no other."""
import copy, json, os


def section(doc, code):
    return next(s for s in doc["entry"][0]["resource"]["section"] if any(c["code"] == code for c in s["code"]["coding"]))


def bundle_type(doc):            # a collection, not a document
    doc["type"] = "collection"


def composition_first(doc):      # the Patient before the Composition
    doc["entry"][0], doc["entry"][1] = doc["entry"][1], doc["entry"][0]


def section_required(doc):       # no Allergies and intolerances section; its AllergyIntolerance still referenced
    comp = doc["entry"][0]["resource"]
    allergies = section(doc, "48765-2")
    comp["section"].remove(allergies)
    # keep the AllergyIntolerance reachable (only a warning otherwise) through another section's entries
    section(doc, "11450-4")["entry"] += allergies["entry"]


def section_empty_reason(doc):   # Medication summary emptied without an emptyReason (ips-comp-1)
    meds = section(doc, "10160-0")
    moved = meds.pop("entry")
    section(doc, "11450-4")["entry"] += moved   # still reachable


def section_narrative(doc):      # the Problems section's narrative is HTML, not XHTML (&nbsp;, no namespace)
    section(doc, "11450-4")["text"]["div"] = "<div>Problems:&nbsp;none recorded</div>"


def reference_unresolved(doc):   # a section entry pointing at no entry
    section(doc, "11450-4")["entry"].append({"reference": "urn:uuid:00000000-0000-4000-8000-000000000000"})


def full_url(doc):               # a Provenance (allowed, unreferenced) whose fullUrl is relative, not absolute
    comp, author = doc["entry"][0], doc["entry"][0]["resource"]["author"][0]["reference"]
    doc["entry"].append({"fullUrl": "Provenance/ips-check-1", "resource": {
        "resourceType": "Provenance", "id": "ips-check-1", "target": [{"reference": comp["fullUrl"]}],
        "recorded": doc["timestamp"], "agent": [{"who": {"reference": author}}]}})


def composition_type(doc):       # a Composition of another kind (LOINC 34133-9, Summary of episode note)
    doc["entry"][0]["resource"]["type"]["coding"] = [{"system": "http://loinc.org", "code": "34133-9"}]


def resource_parse(doc):         # a Condition with a misspelt element: only --parse (fhir.resources R4) sees it
    cond = next(e for e in doc["entry"] if e["resource"]["resourceType"] == "Condition")
    cond["resource"]["onsetDateTme"] = "2015"


BROKEN = {
    "ips.bundle.type": bundle_type,
    "ips.composition.first": composition_first,
    "ips.section.required": section_required,
    "ips.section.emptyReason": section_empty_reason,
    "ips.section.narrative": section_narrative,
    "ips.reference.unresolved": reference_unresolved,
    "ips.fullUrl": full_url,
    "ips.composition.type": composition_type,
    "ips.resource.parse": resource_parse,   # fails with --parse only
}

def write(vectors, out):
    """Writes out/<rule id>.json for every rule; returns the folder."""
    with open(os.path.join(vectors, "ips", "IPS_IG_bundle-minimal.json")) as f:
        base = json.load(f)
    os.makedirs(out, exist_ok=True)
    for rule, breaker in BROKEN.items():
        doc = copy.deepcopy(base)
        breaker(doc)
        with open(os.path.join(out, rule + ".json"), "w") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
    return out
