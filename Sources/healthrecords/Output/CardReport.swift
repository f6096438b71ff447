import FHIR
import Foundation
import SmartHealthCards
import VerifiableRecords

/// The `--json` form of a card's verification report.
enum CardReportJSON {
    static func card(_ r: CardVerification) -> JSONValue {
        let record = r.record
        func issues(_ list: [VerificationIssue]) -> JSONValue {
            .array(list.map { .object(JSONObject(["code": .string($0.code.rawValue), "message": .string($0.message)])) })
        }
        let subject: JSONValue = record.map { rec in
            .object(JSONObject([
                "fullName": .string(rec.subject.fullName),
                "dateOfBirth": JSONOutput.string(rec.subject.dateOfBirth?.text),
            ]))
        } ?? .null
        return .object(JSONObject([
            "format": .string("smart-health-card"),
            "origin": .string(r.origin),
            "valid": .bool(r.isValid),
            "issuer": JSONOutput.string(r.payload?.issuer),
            "trusted": .bool(r.isTrusted),
            "subject": subject,
            "recordTypes": .array((record?.recordTypes ?? []).map(JSONValue.string)),
            "itemNames": .array((record?.itemNames ?? []).map(JSONValue.string)),
            "issuedDate": JSONOutput.date(record?.issuedDate),
            "relevantDate": JSONOutput.date(record?.relevantDate),
            "expirationDate": JSONOutput.date(record?.expirationDate),
            "errors": issues(r.errors),
            "warnings": issues(r.warnings),
        ]))
    }
}

/// The report people read.
enum CardReportText {
    static func render(_ r: CardVerification, number: Int) -> String {
        var lines: [String] = []
        let verdict: String
        switch (r.isValid, r.isTrusted) {
        case (true, true): verdict = "✓ VALID"
        case (true, false): verdict = "✓ valid signature, but the issuer is NOT TRUSTED"
        default: verdict = "✗ INVALID"
        }
        lines.append("Card \(number) (\(r.origin)): \(verdict)")
        if let p = r.payload {
            var trust = ""
            switch r.trust {
            case .trusted(let name)?: trust = " — trusted" + (name.map { " (\($0))" } ?? "")
            case .untrusted?: trust = " — not in the trusted issuers"
            case .open?: trust = r.isTrusted ? " — trusted (no trust policy; its keys resolved)" : " — keys did not resolve"
            case nil: break
            }
            lines.append("  Issuer:   \(p.issuer)\(trust)")
        }
        if let rec = r.record {
            let born = rec.subject.dateOfBirth.map { " (born \($0.text))" } ?? ""
            lines.append("  Subject:  \(rec.subject.fullName)\(born)")
            for (k, item) in rec.itemNames.enumerated() { lines.append(k == 0 ? "  Items:    \(item)" : "            \(item)") }
            let issued = JSONOutput.iso8601(rec.issuedDate)
            let relevant = rec.relevantDate.map(JSONOutput.iso8601) ?? "-"
            let expires = rec.expirationDate.map(JSONOutput.iso8601) ?? "never"
            lines.append("  Issued:   \(issued)   Relevant: \(relevant)   Expires: \(expires)")
        }
        lines.append("  Checks:")
        for c in r.checks {
            let mark = c.passed == true ? "✓" : c.passed == false ? "✗" : "-"
            lines.append("    \(mark) \(c.name)" + (c.detail.map { ": \($0)" } ?? ""))
        }
        if !r.warnings.isEmpty {
            lines.append("  Warnings:")
            for w in r.warnings { lines.append("    ! \(w.code): \(w.message)") }
        }
        return lines.joined(separator: "\n")
    }
}
