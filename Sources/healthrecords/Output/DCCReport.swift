import DigitalCovidCertificates
import FHIR
import Foundation
import SmartHealthCards
import VerifiableRecords

/// The `--json` form of an EU DCC's verification report.
enum DCCReportJSON {
    static func report(_ r: DCCVerification) -> JSONValue {
        func issues(_ list: [VerificationIssue]) -> JSONValue {
            .array(list.map { .object(JSONObject(["code": .string($0.code.rawValue), "message": .string($0.message)])) })
        }
        let c = r.certificate
        return .object(JSONObject([
            "format": .string("eu-dcc"),
            "origin": .string(r.origin),
            "valid": .bool(r.isValid),
            "trusted": .bool(r.isTrusted),
            "kind": JSONOutput.string(c?.kind?.rawValue),
            "algorithm": JSONOutput.string(r.algorithm?.name),
            "kid": JSONOutput.string(c?.message.keyIdentifier.map { Data($0).base64EncodedString() }),
            "issuer": JSONOutput.string(c?.claims.issuer),
            "issuedDate": JSONOutput.date(c?.claims.issuedAt),
            "expirationDate": JSONOutput.date(c?.claims.expiration),
            "signer": JSONOutput.string(r.signer?.subject),
            "payload": c?.payload.json ?? .null,
            "errors": issues(r.errors),
            "warnings": issues(r.warnings),
        ]))
    }
}

/// The DCC report people read.
enum DCCReportText {
    static func render(_ r: DCCVerification, number: Int) -> String {
        var lines = ["Certificate \(number) (\(r.origin)): EU DCC — \(r.isValid ? "✓ VALID" : "✗ INVALID")"]
        if let c = r.certificate {
            if let signer = r.signer { lines.append("  Signer:   \(signer.subject)") }
            lines.append("  Issuer:   \(c.claims.issuer ?? "-")   Algorithm: \(r.algorithm?.name ?? "-")")
            if let record = r.record {
                let born = record.subject.dateOfBirth.map { " (born \($0.text))" } ?? ""
                lines.append("  Subject:  \(record.subject.fullName)\(born)")
                for item in record.itemNames { lines.append("  Item:     \(item)") }
            }
            lines.append("  Issued:   \(JSONOutput.iso8601(c.claims.issuedAt))   Expires: \(JSONOutput.iso8601(c.claims.expiration))")
        }
        if !r.errors.isEmpty {
            lines.append("  Errors:")
            for e in r.errors { lines.append("    ✗ \(e.code): \(e.message)") }
        }
        if !r.warnings.isEmpty {
            lines.append("  Warnings:")
            for w in r.warnings { lines.append("    ! \(w.code): \(w.message)") }
        }
        return lines.joined(separator: "\n")
    }
}
