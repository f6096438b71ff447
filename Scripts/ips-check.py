#!/usr/bin/env python3
"""Checks FHIR R4 document Bundles against the document-level rules of the International Patient
Summary (HL7 FHIR IPS 2.0.1, STU2): the Bundle-uv-ips and Composition-uv-ips profiles, their
invariants (bdl-ips-1, ips-comp-1, ips-pat-1, ips-2) and the base R4 document rules they build on
(bdl-7, bdl-8, bdl-9, bdl-10, bdl-11, cmp-2, reference resolution in Bundles, documents.html).

Python standard library only. With --parse every resource is also parsed with the fhir.resources
R4 (4.0.1) models: run that with the python that Scripts/ips-check-venv.sh prints.

Usage: ips-check.py [--json] [--parse] [--allow-external] [--allow-type-id] [--strict] [--all] FILE...
       ips-check.py --rules            (lists the rule ids)
Prints PASS or FAIL per file and one line per finding: rule id, where (a FHIRPath-like path), message
(at most 5 lines per rule and file unless --all; --json reports everything). Exit 0 when every file
passes, 1 when any fails, 2 on usage errors (a file that cannot be read, --parse without fhir.resources
R4). Warnings (recommended sections missing, entries the Composition does not reach, ...) never fail a
file unless --strict. --allow-external and --allow-type-id turn two kinds of reference failures that
real EHR documents show into warnings (see RULES).
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

LOINC = "http://loinc.org"
XHTML = "http://www.w3.org/1999/xhtml"

# Composition.section codes of IPS 2.0.1 (Composition-uv-ips slices), by LOINC code.
REQUIRED_SECTIONS = {
    "11450-4": "Problems",
    "48765-2": "Allergies and intolerances",
    "10160-0": "Medication summary",
}
RECOMMENDED_SECTIONS = {
    "11369-6": "Immunizations",
    "30954-2": "Results",
    "47519-4": "History of procedures",
    "46264-8": "Medical devices",
}
OPTIONAL_SECTIONS = {
    "8716-3": "Vital signs",
    "11348-0": "Past illness",
    "47420-5": "Functional status",
    "18776-5": "Plan of care",
    "29762-2": "Social history",
    "10162-6": "Pregnancy",
    "42348-3": "Advance directives",
    "104605-1": "Alerts",
    "81338-6": "Patient story",
}
IPS_SECTIONS = {**REQUIRED_SECTIONS, **RECOMMENDED_SECTIONS, **OPTIONAL_SECTIONS}

RULES = {
    "ips.json": "the file is a JSON object with resourceType Bundle",
    "ips.bundle.type": "Bundle.type is 'document'",
    "ips.identifier": "Bundle.identifier is present with a system and a value (bdl-9)",
    "ips.timestamp": "Bundle.timestamp is present and a valid instant (bdl-10)",
    "ips.entry.resource": "every entry carries a resource",
    "ips.entry.forbidden": "no entry has search, request or response (Bundle-uv-ips)",
    "ips.fullUrl": "every entry has an absolute, version-independent fullUrl that agrees with the "
                   "resource's type and id; fullUrls are unique (bdl-7, bdl-8)",
    "ips.entry.unreachable": "(warning) every entry is reached by following references from the Composition "
                             "(or is a Provenance or Binary)",
    "ips.composition.first": "the first entry is a Composition (bdl-11)",
    "ips.composition.single": "no Composition besides the first (bdl-ips-1)",
    "ips.composition.type": "Composition.type has the LOINC coding 60591-5 (Patient summary Document)",
    "ips.composition.status": "Composition.status is one of preliminary, final, amended, entered-in-error",
    "ips.composition.subject": "Composition.subject.reference resolves to the Bundle's Patient",
    "ips.composition.author": "Composition.author is present (a reference, identifier or display)",
    "ips.composition.title": "Composition.title is present",
    "ips.composition.date": "Composition.date is present and a valid dateTime",
    "ips.patient": "the Bundle holds exactly one Patient",
    "ips.patient.name": "the Patient has a name with family, given or text (ips-pat-1)",
    "ips.section.required": "the Problems (11450-4), Allergies (48765-2) and Medication summary "
                            "(10160-0) sections are present",
    "ips.section.duplicate": "no IPS section code appears on more than one section",
    "ips.section.code": "every section has a code; the IPS sections' codes are LOINC codes",
    "ips.section.title": "every section has a title",
    "ips.section.narrative": "every section has text: status and a well-formed XHTML div with content "
                             "and only the elements narrative allows (txt-1, txt-2)",
    "ips.section.nested": "no section has sub-sections",
    "ips.section.emptyReason": "a required section has entries or an emptyReason (ips-comp-1); "
                               "a section with entries has no emptyReason (cmp-2)",
    "ips.section.recommended": "(warning) the recommended sections are present",
    "ips.reference.unresolved": "a reference that can only mean something inside the Bundle resolves there by "
                                "FHIR's rules (bundle.html#references): the Composition's references "
                                "(documents.html: the document SHALL include them), every urn: reference, "
                                "every #id (against contained resources), every relative reference from an "
                                "entry whose fullUrl is not a RESTful URL, every section.entry",
    "ips.reference.apparent": "a relative Type/id reference that matches an entry only by type and id: its own "
                              "entry's fullUrl is not RESTful, so FHIR gives it no meaning in a Bundle",
    "ips.reference.external": "any other reference (absolute URL, or Type/id against a RESTful fullUrl's base) "
                              "resolves inside the Bundle too: a self-contained document (FHIR R4 allows these "
                              "outside the Composition; --allow-external makes them warnings)",
    "ips.reference.ambiguous": "a reference matches more than one entry",
    "ips.observation.value": "an Observation has value[x], dataAbsentReason, hasMember or component (ips-2)",
    "ips.resource.parse": "(with --parse) the resource parses with the fhir.resources R4 models",
}

INSTANT = re.compile(
    r"([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))")
DATETIME = re.compile(
    r"([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1])"
    r"(T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00)))?)?)?")
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# Type/id[/_history/vid]. FHIR ids are at most 64 characters, but some EHRs send longer ones: the
# length is left to --parse, resolution takes any length.
RELATIVE = re.compile(r"([A-Z][A-Za-z]+)/([A-Za-z0-9\-.]+)(/_history/([A-Za-z0-9\-.]+))?")
# references.html's RESTful URL regex, with any resource type name (and id length).
RESTFUL = re.compile(r"((https?)://([A-Za-z0-9\-\\.:%$]*/)+)([A-Z][A-Za-z]+)/([A-Za-z0-9\-.]+)"
                     r"(/_history/([A-Za-z0-9\-.]+))?")
# Elements that narrative may hold (R4 txt-1).
NARRATIVE_ELEMENTS = set(
    "a abbr acronym b big blockquote br caption cite code col colgroup dd dfn div dl dt em h1 h2 h3 h4 h5 h6 "
    "hr i img li ol p pre q samp small span strong sub sup table tbody td tfoot th thead tr tt ul var".split())
# The references a document SHALL carry the targets of (R4 documents.html), from the Composition.
COMPOSITION_SHALL = re.compile(
    r"(subject|encounter|author\[\d+\]|attester\[\d+\]\.party|custodian|event\[\d+\]\.detail\[\d+\]|"
    r"(section\[\d+\]\.)+(author\[\d+\]|focus|entry\[\d+\]))\.reference")


class Report:
    def __init__(self, file):
        self.file = file
        self.failures = []
        self.warnings = []

    def fail(self, rule, path, message):
        assert rule in RULES, rule
        self.failures.append({"rule": rule, "path": path, "message": message})

    def warn(self, rule, path, message):
        assert rule in RULES, rule
        self.warnings.append({"rule": rule, "path": path, "message": message})


def codings(concept):
    if not isinstance(concept, dict) or not isinstance(concept.get("coding"), list):
        return []
    return [c for c in concept["coding"] if isinstance(c, dict)]


def has_coding(concept, system, code):
    return any(c.get("system") == system and c.get("code") == code for c in codings(concept))


def loinc_codes(concept):
    return [c["code"] for c in codings(concept) if c.get("system") == LOINC and isinstance(c.get("code"), str) and c["code"]]


def section_label(section):
    codes = loinc_codes(section.get("code"))
    title = section.get("title")
    name = next((IPS_SECTIONS[c] for c in codes if c in IPS_SECTIONS), None)
    bits = [b for b in (repr(title) if title else None, name and f"{name} {codes[0]}") if b]
    return " (" + ", ".join(bits) + ")" if bits else ""


def walk_references(node, path):
    """Yields (path, reference string) for every Reference.reference under node, contained included."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "reference" and isinstance(value, str):
                yield f"{path}.reference", value
            elif key != "div":
                yield from walk_references(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk_references(value, f"{path}[{i}]")


class Resolver:
    """FHIR R4 reference resolution inside a Bundle (bundle.html#references)."""

    def __init__(self, entries):
        self.by_full_url = {}
        self.by_type_id = {}
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            resource = entry.get("resource") if isinstance(entry.get("resource"), dict) else None
            full_url = entry.get("fullUrl")
            if isinstance(full_url, str):
                self.by_full_url.setdefault(full_url, []).append(i)
            if resource and resource.get("resourceType") and resource.get("id"):
                self.by_type_id.setdefault(f"{resource['resourceType']}/{resource['id']}", []).append(i)
        self.entries = entries

    def version_of(self, i):
        resource = self.entries[i].get("resource")
        meta = resource.get("meta") if isinstance(resource, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        return meta.get("versionId")

    def match(self, url, version):
        hits = self.by_full_url.get(url, [])
        if version is not None:
            hits = [i for i in hits if self.version_of(i) == version]
        return hits

    def resolve(self, ref, full_url, container):
        """Returns (kind, entries, detail). kind: ok; unresolved (can only mean something inside the
        Bundle, and does not resolve); external (an absolute URL or a Type/id against a RESTful base
        that no entry has: it may resolve outside); apparent; ambiguous."""
        if ref.startswith("#"):
            if ref == "#":
                return "ok", [], "the containing resource"
            ids = [c.get("id") for c in (container.get("contained") or []) if isinstance(c, dict)]
            if ref[1:] in ids:
                return "ok", [], "contained"
            return "unresolved", [], f"no contained resource has the id {ref[1:]!r}"
        base = ref.partition("#")[0]
        version = None
        if SCHEME.match(base):
            if "/_history/" in base:
                base, _, version = base.partition("/_history/")
            hits = self.match(base, version)
            if not hits:
                missing = "no entry has this fullUrl" + (f" and versionId {version}" if version else "")
                return ("external" if re.match(r"https?://", base) else "unresolved"), [], missing
        else:
            m = RELATIVE.fullmatch(base)
            if not m:
                return "unresolved", [], "neither an absolute URI nor a relative Type/id reference"
            restful = RESTFUL.fullmatch(full_url) if isinstance(full_url, str) else None
            if restful:
                absolute = restful.group(1) + f"{m.group(1)}/{m.group(2)}"
                hits = self.match(absolute, m.group(4))
                if not hits:
                    return "external", [], f"no entry has the fullUrl {absolute}"
            else:
                same = self.by_type_id.get(f"{m.group(1)}/{m.group(2)}", [])
                if same:
                    return "apparent", same, (f"matches entry {same[0]} only by type and id; this entry's fullUrl "
                                              f"{full_url} is not a RESTful URL, so a relative reference has no meaning "
                                              f"(reference {self.entries[same[0]].get('fullUrl')} instead)")
                return "unresolved", [], (f"this entry's fullUrl {full_url} is not a RESTful URL, so a relative "
                                          f"reference has no meaning, and no entry is {m.group(1)}/{m.group(2)} anyway")
        if len(hits) > 1:
            return "ambiguous", hits, f"matches entries {hits}"
        return "ok", hits, ""


def check_narrative(report, path, text):
    if not isinstance(text, dict):
        report.fail("ips.section.narrative", path, "no text (the IPS requires a narrative on every section)")
        return
    if text.get("status") not in ("generated", "extensions", "additional", "empty"):
        report.fail("ips.section.narrative", path + ".text.status", f"text.status is {text.get('status')!r}")
    div = text.get("div")
    if not isinstance(div, str) or not div.strip():
        report.fail("ips.section.narrative", path + ".text.div", "no text.div")
        return
    if "<!" in div.replace("<!--", ""):
        report.fail("ips.section.narrative", path + ".text.div", "a DOCTYPE, ENTITY or CDATA declaration in narrative")
        return
    try:
        root = ET.fromstring(div)
    except ET.ParseError as e:
        hint = "; HTML entities such as &nbsp; are not XML" if "entity" in str(e) else ""
        hint = "; more than one root element" if "junk after document element" in str(e) else hint
        hint = "; a bare & must be written &amp;" if "invalid token" in str(e) and "&" in div else hint
        report.fail("ips.section.narrative", path + ".text.div", f"not well-formed XHTML ({e}{hint})")
        return
    if root.tag != f"{{{XHTML}}}div":
        report.fail("ips.section.narrative", path + ".text.div", f"the root element is {root.tag}, not an XHTML div")
        return
    for el in root.iter():
        ns, _, local = el.tag.rpartition("}")
        if ns.lstrip("{") != XHTML or local not in NARRATIVE_ELEMENTS:
            report.fail("ips.section.narrative", path + ".text.div", f"element <{local}> is not allowed in narrative (txt-1)")
            return
        for attr in el.attrib:
            if attr.lower().startswith("on"):
                report.fail("ips.section.narrative", path + ".text.div", f"event attribute {attr} is not allowed in narrative (txt-1)")
                return
    if not "".join(root.itertext()).strip() and root.find(f".//{{{XHTML}}}img") is None:
        report.fail("ips.section.narrative", path + ".text.div", "the narrative has no content (txt-2)")


def check_sections(report, composition, cpath, resolver):
    sections = composition.get("section")
    if not isinstance(sections, list) or not sections:
        for code, name in REQUIRED_SECTIONS.items():
            report.fail("ips.section.required", f"{cpath}.section", f"no {name} section (LOINC {code}): the Composition has no sections")
        return
    found = {}
    for i, section in enumerate(sections):
        spath = f"{cpath}.section[{i}]"
        if not isinstance(section, dict):
            report.fail("ips.section.code", spath, "the section is not an object")
            continue
        label = section_label(section)
        if not isinstance(section.get("title"), str) or not section["title"].strip():
            report.fail("ips.section.title", spath, "no title" + label)
        code = section.get("code")
        cs = codings(code)
        if not cs or not any(c.get("code") for c in cs):
            report.fail("ips.section.code", spath, "no code" + label)
        else:
            for c in cs:
                if isinstance(c.get("code"), str) and c["code"] in IPS_SECTIONS and c.get("system") != LOINC:
                    report.fail("ips.section.code", spath + ".code", f"code {c.get('code')} ({IPS_SECTIONS[c['code']]}) has system "
                                f"{c.get('system')!r}, not {LOINC}" + label)
        for c in set(loinc_codes(code)):
            if c in IPS_SECTIONS:
                found.setdefault(c, []).append(i)
        check_narrative(report, spath, section.get("text"))
        if section.get("section"):
            report.fail("ips.section.nested", spath + ".section", "sub-sections are not allowed in the IPS" + label)
        entries = section.get("entry") if isinstance(section.get("entry"), list) else []
        with_reference = [e for e in entries if isinstance(e, dict) and isinstance(e.get("reference"), str)]
        for j, e in enumerate(entries):
            if not (isinstance(e, dict) and isinstance(e.get("reference"), str)):
                report.fail("ips.reference.unresolved", f"{spath}.entry[{j}]", "a section entry without a literal reference cannot resolve inside the Bundle" + label)
        if entries and section.get("emptyReason"):
            report.fail("ips.section.emptyReason", spath + ".emptyReason", "a section with entries has an emptyReason (cmp-2)" + label)
        if any(c in REQUIRED_SECTIONS for c in loinc_codes(code)) and not with_reference and not section.get("emptyReason"):
            report.fail("ips.section.emptyReason", spath, "a required section with no entry references has no emptyReason (ips-comp-1)" + label)
    for code, name in REQUIRED_SECTIONS.items():
        if code not in found:
            report.fail("ips.section.required", f"{cpath}.section", f"no {name} section (LOINC {code})")
    missing = [f"{name} ({code})" for code, name in RECOMMENDED_SECTIONS.items() if code not in found]
    if missing:
        report.warn("ips.section.recommended", f"{cpath}.section", "recommended sections missing: " + ", ".join(missing))
    for code, idx in found.items():
        if len(idx) > 1:
            report.fail("ips.section.duplicate", f"{cpath}.section", f"{IPS_SECTIONS[code]} ({code}) appears in sections {idx}; the IPS allows one")


def check_composition(report, bundle, entries, ci, resolver, patients, allow_type_id):
    entry = entries[ci]
    composition = entry["resource"]
    cpath = f"Bundle.entry[{ci}].resource"
    if not has_coding(composition.get("type"), LOINC, "60591-5"):
        got = ", ".join(f"{c.get('system')}|{c.get('code')}" for c in codings(composition.get("type"))) or "nothing"
        report.fail("ips.composition.type", cpath + ".type", f"not LOINC 60591-5 (Patient summary Document): {got}")
    if composition.get("status") not in ("preliminary", "final", "amended", "entered-in-error"):
        report.fail("ips.composition.status", cpath + ".status", f"status is {composition.get('status')!r}")
    if not isinstance(composition.get("title"), str) or not composition["title"].strip():
        report.fail("ips.composition.title", cpath + ".title", "no title")
    date = composition.get("date")
    if not isinstance(date, str):
        report.fail("ips.composition.date", cpath + ".date", "no date")
    elif not DATETIME.fullmatch(date):
        report.fail("ips.composition.date", cpath + ".date", f"{date!r} is not a FHIR dateTime")
    authors = composition.get("author")
    if not isinstance(authors, list) or not any(isinstance(a, dict) and (a.get("reference") or a.get("identifier") or a.get("display")) for a in authors):
        report.fail("ips.composition.author", cpath + ".author", "no author")
    subject = composition.get("subject")
    ref = subject.get("reference") if isinstance(subject, dict) else None
    if not isinstance(ref, str):
        report.fail("ips.composition.subject", cpath + ".subject", "no subject.reference (the IPS requires a reference to the Patient)")
    else:
        kind, hits, detail = resolver.resolve(ref, entry.get("fullUrl"), composition)
        if kind == "apparent" and allow_type_id:
            report.warn("ips.reference.apparent", cpath + ".subject.reference", f"{ref}: {detail}")
            kind = "ok"
        if kind == "ok" and hits:
            target = entries[hits[0]].get("resource")
            target = target if isinstance(target, dict) else {}
            if target.get("resourceType") != "Patient":
                report.fail("ips.composition.subject", cpath + ".subject", f"{ref} resolves to a {target.get('resourceType')}, not a Patient")
        elif kind != "ok":
            report.fail("ips.composition.subject", cpath + ".subject.reference", f"{ref} does not resolve to the Bundle's Patient: {detail}")
    check_sections(report, composition, cpath, resolver)


def check_bundle(bundle, report, allow_external=False, allow_type_id=False):
    if not isinstance(bundle, dict) or bundle.get("resourceType") != "Bundle":
        what = f"resourceType {bundle.get('resourceType')!r}" if isinstance(bundle, dict) else f"a JSON {type(bundle).__name__}"
        report.fail("ips.json", "Bundle", f"not a Bundle ({what})")
        return
    if bundle.get("type") != "document":
        report.fail("ips.bundle.type", "Bundle.type", f"type is {bundle.get('type')!r}, not 'document'")
    ident = bundle.get("identifier")
    if not isinstance(ident, dict):
        report.fail("ips.identifier", "Bundle.identifier", "no identifier")
    elif not ident.get("system") or not ident.get("value"):
        report.fail("ips.identifier", "Bundle.identifier", "a document's identifier needs both system and value (bdl-9)")
    ts = bundle.get("timestamp")
    if not isinstance(ts, str):
        report.fail("ips.timestamp", "Bundle.timestamp", "no timestamp")
    elif not INSTANT.fullmatch(ts):
        report.fail("ips.timestamp", "Bundle.timestamp", f"{ts!r} is not a FHIR instant (date, time to the second and zone)")
    entries = bundle.get("entry")
    if not isinstance(entries, list) or not entries:
        report.fail("ips.composition.first", "Bundle.entry", "the Bundle has no entries")
        return
    resolver = Resolver(entries)

    # Entries: resource, fullUrl, forbidden elements.
    seen = {}
    for i, entry in enumerate(entries):
        epath = f"Bundle.entry[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("resource"), dict):
            report.fail("ips.entry.resource", epath, "the entry has no resource")
            continue
        resource = entry["resource"]
        for key in ("search", "request", "response"):
            if key in entry:
                report.fail("ips.entry.forbidden", f"{epath}.{key}", f"entry.{key} is not allowed in an IPS document")
        url = entry.get("fullUrl")
        rtype, rid = resource.get("resourceType"), resource.get("id")
        if not isinstance(url, str) or not url:
            report.fail("ips.fullUrl", epath, f"no fullUrl ({rtype})")
            continue
        if not SCHEME.match(url):
            report.fail("ips.fullUrl", f"{epath}.fullUrl", f"{url!r} is not an absolute URI (use urn:uuid: or the resource's full URL)")
        if "/_history/" in url:
            report.fail("ips.fullUrl", f"{epath}.fullUrl", f"{url!r} is version specific (bdl-8)")
        restful = RESTFUL.fullmatch(url)
        if restful and (restful.group(4) != rtype or (rid is not None and restful.group(5) != rid)):
            report.fail("ips.fullUrl", f"{epath}.fullUrl", f"{url!r} disagrees with the resource ({rtype}/{rid})")
        if url.startswith("urn:uuid:") and not re.fullmatch(r"urn:uuid:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", url):
            report.fail("ips.fullUrl", f"{epath}.fullUrl", f"{url!r} is not a valid urn:uuid")
        version = (resource.get("meta") or {}).get("versionId") if isinstance(resource.get("meta"), dict) else None
        if url in seen and (seen[url][1] is None or version is None or seen[url][1] == version):
            report.fail("ips.fullUrl", f"{epath}.fullUrl", f"{url!r} is also the fullUrl of entry {seen[url][0]} (bdl-7)")
        else:
            seen.setdefault(url, (i, version))

    # The Composition: first, and only one.
    compositions = [i for i, e in enumerate(entries) if isinstance(e, dict) and isinstance(e.get("resource"), dict)
                    and e["resource"].get("resourceType") == "Composition"]
    if 0 not in compositions:
        first = entries[0].get("resource", {}).get("resourceType") if isinstance(entries[0], dict) and isinstance(entries[0].get("resource"), dict) else None
        report.fail("ips.composition.first", "Bundle.entry[0]", f"the first entry is {first or 'not a resource'}, not a Composition (bdl-11)")
    if len(compositions) > 1:
        for i in compositions:
            if i != 0:
                report.fail("ips.composition.single", f"Bundle.entry[{i}]", "a Composition besides the first entry (bdl-ips-1)")

    # The Patient.
    patients = [i for i, e in enumerate(entries) if isinstance(e, dict) and isinstance(e.get("resource"), dict)
                and e["resource"].get("resourceType") == "Patient"]
    if len(patients) != 1:
        report.fail("ips.patient", "Bundle.entry", f"{len(patients)} Patient entries (the IPS requires exactly one)"
                    + (f": entries {patients}" if patients else ""))
    for i in patients:
        names = entries[i]["resource"].get("name")
        if not isinstance(names, list) or not names:
            report.fail("ips.patient.name", f"Bundle.entry[{i}].resource.name", "the Patient has no name")
        else:
            for j, n in enumerate(names):
                if not isinstance(n, dict) or not (n.get("family") or n.get("given") or n.get("text")):
                    report.fail("ips.patient.name", f"Bundle.entry[{i}].resource.name[{j}]", "a name without family, given or text (ips-pat-1)")

    if compositions:
        check_composition(report, bundle, entries, compositions[0], resolver, patients, allow_type_id)

    # Observations (ips-2).
    for i, e in enumerate(entries):
        r = e.get("resource") if isinstance(e, dict) else None
        if isinstance(r, dict) and r.get("resourceType") == "Observation":
            if not (any(k.startswith("value") for k in r) or r.get("dataAbsentReason") or r.get("hasMember") or r.get("component")):
                report.fail("ips.observation.value", f"Bundle.entry[{i}].resource", "an Observation with no value[x], dataAbsentReason, hasMember or component (ips-2)")

    # Every literal reference in every resource.
    edges = {}
    for i, e in enumerate(entries):
        r = e.get("resource") if isinstance(e, dict) else None
        if not isinstance(r, dict):
            continue
        rpath = f"Bundle.entry[{i}].resource"
        for path, ref in walk_references(r, rpath):
            kind, hits, detail = resolver.resolve(ref, e.get("fullUrl"), r)
            edges.setdefault(i, set()).update(hits)  # ok, ambiguous and apparent matches: what the author meant
            if i in compositions[:1] and path == f"{rpath}.subject.reference":
                continue  # ips.composition.subject
            if kind == "ok":
                continue
            where = ""
            if i in compositions[:1] and COMPOSITION_SHALL.fullmatch(path[len(rpath) + 1:]):
                where = " (a document SHALL include what its Composition references)"
                if kind == "external":
                    kind = "unresolved"
            if kind == "external":
                (report.warn if allow_external else report.fail)("ips.reference.external", path, f"{ref}: {detail}")
            elif kind == "apparent":
                (report.warn if allow_type_id else report.fail)("ips.reference.apparent", path, f"{ref}: {detail}{where}")
            else:
                report.fail("ips.reference." + kind, path, f"{ref}: {detail}{where}")

    # R4 documents.html: the Bundle holds only what the Composition reaches (directly or through other
    # entries), a Binary stylesheet and Provenance. The HL7 validator warns here too.
    if compositions:
        reached, todo = {compositions[0]}, [compositions[0]]
        while todo:
            for j in edges.get(todo.pop(), ()):
                if j not in reached:
                    reached.add(j)
                    todo.append(j)
        for i, e in enumerate(entries):
            r = e.get("resource") if isinstance(e, dict) else None
            if isinstance(r, dict) and i not in reached and r.get("resourceType") not in ("Provenance", "Binary"):
                report.warn("ips.entry.unreachable", f"Bundle.entry[{i}]", f"no chain of references from the Composition "
                            f"reaches this {r.get('resourceType')} (R4 documents.html)")


def check_parse(bundle, report, construct):
    """Parses each entry's resource, and the Bundle without them, with the fhir.resources R4 models."""
    entries = bundle.get("entry") if isinstance(bundle.get("entry"), list) else []
    for i, e in enumerate(entries):
        r = e.get("resource") if isinstance(e, dict) else None
        if not isinstance(r, dict):
            continue
        try:
            construct(r.get("resourceType"), r)
        except Exception as ex:  # pydantic.ValidationError, KeyError/ValueError for unknown types
            where = f"Bundle.entry[{i}].resource"
            if url_format_only(ex):
                report.warn("ips.resource.parse", where, f"{r.get('resourceType')}: {one_line(ex)} (fhir.resources' url type "
                            "wants scheme://host or /path; FHIR R4's url is any non-blank string, so not a failure)")
            else:
                report.fail("ips.resource.parse", where, f"{r.get('resourceType')}: {one_line(ex)}")
    shell = dict(bundle)
    shell["entry"] = [{k: v for k, v in e.items() if k != "resource"} for e in entries if isinstance(e, dict)]
    try:
        construct("Bundle", shell)
    except Exception as ex:
        report.fail("ips.resource.parse", "Bundle", f"Bundle (entries' resources left out): {one_line(ex)}")


def url_format_only(ex):
    """True when every error pydantic reports is about the format of a url-typed value."""
    try:
        errors = ex.errors()
    except Exception:
        return False
    return bool(errors) and all(str(e.get("type", "")).startswith("value_error.url") for e in errors)


def one_line(ex, limit=600):
    text = " ".join(str(ex).split())
    return text if len(text) <= limit else text[:limit] + "…"


def load_construct():
    try:
        import fhir.resources as fr
    except ImportError:
        return None, "fhir.resources is not installed in this python: run with the python that Scripts/ips-check-venv.sh prints"
    if getattr(fr, "__fhir_version__", None) != "4.0.1":
        return None, (f"fhir.resources {getattr(fr, '__version__', '?')} models FHIR {getattr(fr, '__fhir_version__', '?')}, "
                      "not R4 4.0.1: use fhir.resources 6.4.0, the python that Scripts/ips-check-venv.sh prints")
    from fhir.resources import construct_fhir_element
    return construct_fhir_element, f"fhir.resources {fr.__version__} (FHIR {fr.__fhir_version__})"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Checks FHIR R4 document Bundles against the IPS 2.0.1 document-level rules.")
    ap.add_argument("files", nargs="*", metavar="FILE")
    ap.add_argument("--json", action="store_true", help="print a machine-readable JSON report")
    ap.add_argument("--parse", action="store_true", help="also parse every resource with the fhir.resources R4 models")
    ap.add_argument("--allow-external", action="store_true",
                    help="references outside the Composition that point outside the Bundle are warnings (FHIR R4 allows them)")
    ap.add_argument("--allow-type-id", action="store_true",
                    help="relative references that match an entry only by type and id (urn: fullUrls) are warnings and "
                         "resolve to that entry (what lenient readers do; FHIR gives them no meaning)")
    ap.add_argument("--strict", action="store_true", help="warnings fail the file too")
    ap.add_argument("--all", action="store_true", help="print every finding (by default at most 5 per rule and file)")
    ap.add_argument("--rules", action="store_true", help="list the rule ids and exit")
    a = ap.parse_args(argv)
    if a.rules:
        for rule, text in RULES.items():
            print(f"{rule:26} {text}")
        return 0
    if not a.files:
        ap.print_usage(sys.stderr)
        print("ips-check: no FILE given", file=sys.stderr)
        return 2
    construct = None
    if a.parse:
        construct, info = load_construct()
        if construct is None:
            print("ips-check: --parse: " + info, file=sys.stderr)
            return 2
    docs = []
    for path in a.files:
        try:
            with open(path, "rb") as f:
                docs.append((path, f.read()))
        except OSError as e:
            print(f"ips-check: cannot read {path}: {e.strerror}", file=sys.stderr)
            return 2

    reports = []
    for path, data in docs:
        report = Report(path)
        try:
            bundle = json.loads(data)
        except (UnicodeDecodeError, ValueError) as e:
            report.fail("ips.json", "(file)", f"not JSON: {e}")
        else:
            check_bundle(bundle, report, a.allow_external, a.allow_type_id)
            if construct is not None and isinstance(bundle, dict):
                check_parse(bundle, report, construct)
        reports.append(report)

    def passed(r):
        return not r.failures and not (a.strict and r.warnings)

    n_pass = sum(1 for r in reports if passed(r))
    if a.json:
        json.dump({"files": [{"file": r.file, "pass": passed(r), "failures": r.failures, "warnings": r.warnings} for r in reports],
                   "pass": n_pass, "fail": len(reports) - n_pass}, sys.stdout, indent=2)
        print()
    else:
        for r in reports:
            print(f"{'PASS' if passed(r) else 'FAIL'} {r.file}")
            for kind, findings in (("", r.failures), ("warning ", r.warnings)):
                shown = {}
                for f in findings:
                    shown[f["rule"]] = shown.get(f["rule"], 0) + 1
                    if a.all or shown[f["rule"]] <= 5:
                        print(f"  {kind}{f['rule']:26} {f['path']}: {f['message']}")
                for rule, n in shown.items():
                    if not a.all and n > 5:
                        print(f"  {kind}{rule:26} … {n - 5} more (--all shows them)")
        print(f"ips-check: {len(reports)} file(s), {n_pass} PASS, {len(reports) - n_pass} FAIL")
    return 0 if n_pass == len(reports) else 1


if __name__ == "__main__":
    sys.exit(main())
