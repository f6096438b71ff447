import CardScanning
import DigitalCovidCertificates
import Foundation
import HealthStoreCore
import SmartHealthCards
import VerifiableRecords

/// A card or certificate as read and checked: the one rule for "valid" that every way in
/// (files on the command line, uploads) applies, at the store's clock unless told otherwise.
public struct CheckedCard: Sendable {
    /// Where it was read from (a file, "pasted text", a QR in an image).
    public let origin: String
    /// A SMART Health Card or an EU DCC.
    public let format: VerifiableClinicalRecord.SourceType
    /// The record, when the content could be decoded at all.
    public let record: VerifiableClinicalRecord?
    /// Every check passed (signature, structure, dates); the issuer may still be untrusted.
    public let isValid: Bool
    /// The issuer passed the trust policy (a trusted directory, or a DSC on the trust list).
    public let isTrusted: Bool
    /// Who issued it, as it says (`iss`, or the DCC's issuer claim); empty when unknown.
    public let issuer: String
    /// What failed.
    public let errors: [VerificationIssue]
    /// What is worth knowing but did not fail.
    public let warnings: [VerificationIssue]

    /// How it is stored: verified (trusted or not), else unverified with what failed.
    public var status: CardStatus {
        isValid ? .verified(trusted: isTrusted) : .unverified(codes: errors.map(\.code.rawValue))
    }

    /// Checks one reading with the importer's verifiers at `time`.
    static func check(_ reading: CardReading, options: RecordImporter.Options, at time: Date) async -> CheckedCard {
        if reading.format == .euDigitalCOVIDCertificate, case .success(let text) = reading.result {
            let report = (options.dccVerifier ?? DCCVerifier(trustList: DSCTrustList())).verify(text, origin: reading.origin, at: time)
            var errors = report.errors
            if errors.isEmpty, report.record == nil {
                errors.append(VerificationIssue("dcc.claims", "the payload holds no vaccination, test or recovery"))
            }
            return CheckedCard(
                origin: reading.origin, format: .euDigitalCOVIDCertificate, record: report.record, isValid: errors.isEmpty, isTrusted: errors.isEmpty && report.isTrusted,
                issuer: report.certificate?.claims.issuer ?? "", errors: errors, warnings: report.warnings)
        }
        guard let verifier = options.cardVerifier else {
            return CheckedCard(
                origin: reading.origin, format: .smartHealthCard, record: nil, isValid: false, isTrusted: false, issuer: "",
                errors: [VerificationIssue(.issuerKeysUnavailable, "no way to check card signatures is configured")], warnings: reading.warnings)
        }
        let report = await verifier.verify(reading.card, at: time)
        return CheckedCard(
            origin: reading.origin, format: .smartHealthCard, record: report.record, isValid: report.isValid, isTrusted: report.isTrusted,
            issuer: report.payload?.issuer ?? "", errors: report.errors, warnings: report.warnings)
    }
}

/// What became of one card or certificate that came as bytes.
public struct CardImportResult: Sendable {
    /// The card as checked.
    public let card: CheckedCard
    /// Newly stored (valid, and not stored before).
    public let stored: Bool
}
