#!/usr/bin/env python3
"""Runs pyfhircheck's built-in read-only `base-r4` pack against a live FHIR base with a bearer
token: metadata, read (ETag W/"…" and Last-Modified), vread, _id search, paging, instance history,
not-found and JSON negotiation, on one resource the token may read. Every scenario must PASS (a
SKIP is a failure: the inputs were given). Prints one line per scenario; exit 0 when all pass, 1
otherwise, 2 on usage errors. Run with the python of Scripts/fhircheck-venv.sh.

Usage: fhir-conformance.py --fhir BASE --token TOKEN --type Observation --id ID
"""
import argparse, json, sys, urllib.request

from pyfhircheck import ApiTestOptions, load_builtin_api_test_plan, run_api_tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fhir", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--type", required=True)
    ap.add_argument("--id", required=True)
    a = ap.parse_args()
    headers = {"Authorization": "Bearer " + a.token, "Accept": "application/fhir+json"}
    with urllib.request.urlopen(urllib.request.Request(f"{a.fhir}/{a.type}/{a.id}", headers=headers), timeout=30) as r:
        version = json.load(r)["meta"]["versionId"]
    report = run_api_tests(a.fhir, load_builtin_api_test_plan("base-r4"), options=ApiTestOptions(
        headers={"Authorization": "Bearer " + a.token}, inputs={"resourceType": a.type, "resourceId": a.id, "versionId": version}))
    ok = True
    for s in report.scenarios:
        status = s.status.value if hasattr(s.status, "value") else str(s.status)
        ok = ok and status == "PASS"
        print(f"{status:5} {s.id}: {s.name}" + (f" ({s.skip_reason})" if s.skip_reason else ""))
    print(f"pyfhircheck base-r4: {report.passed} passed, {report.failed} failed, {report.skipped} skipped")
    sys.exit(0 if ok and report.failed == 0 and report.skipped == 0 else 1)


if __name__ == "__main__":
    main()
