import HealthImport
import SmartHealthCards
import VerifiableRecords

/// "Add records" (`/upload`): a file or pasted text.
struct UploadPage: PageContent {
    static let template = "upload"
    let title = "Add records"
    /// The largest upload, in MiB.
    let limit: Int
    let error: String?
}

/// What became of each thing uploaded.
struct UploadedPage: PageContent {
    static let template = "uploaded"

    /// A verification issue as listed.
    struct Issue: Sendable {
        let code: String
        let message: String
    }

    /// One card, certificate or FHIR file.
    struct Result: Sendable {
        let name: String
        let kind: String
        let ok: Bool
        let verdict: String
        let summary: String
        let issuer: String
        let hasSummary: Bool
        let hasIssuer: Bool
        let errors: [Issue]
        let warnings: [Issue]
        let hasErrors: Bool
        let hasWarnings: Bool

        init(name: String, kind: String, ok: Bool, verdict: String, summary: String, issuer: String, errors: [VerificationIssue], warnings: [VerificationIssue]) {
            self.name = name
            self.kind = kind
            self.ok = ok
            self.verdict = verdict
            self.summary = summary
            self.issuer = issuer
            hasSummary = !summary.isEmpty
            hasIssuer = !issuer.isEmpty
            self.errors = errors.map { Issue(code: $0.code.rawValue, message: $0.message) }
            self.warnings = warnings.map { Issue(code: $0.code.rawValue, message: $0.message) }
            hasErrors = !errors.isEmpty
            hasWarnings = !warnings.isEmpty
        }

        /// A card or certificate as the importer checked and stored it.
        init(_ imported: CardImportResult) {
            let card = imported.card
            let verdict: String
            if card.isValid {
                verdict = (imported.stored ? "Verified and added" : "Verified; already stored") + (card.isTrusted ? "" : " (issuer not on a trust list)")
            } else {
                verdict = "Not valid; not added"
            }
            self.init(
                name: card.origin, kind: card.format == .euDigitalCOVIDCertificate ? "EU Digital COVID Certificate" : "SMART Health Card", ok: card.isValid,
                verdict: verdict, summary: card.record?.itemNames.joined(separator: "; ") ?? "", issuer: card.issuer, errors: card.errors, warnings: card.warnings)
        }
    }

    let title = "Added records"
    let results: [Result]
}
