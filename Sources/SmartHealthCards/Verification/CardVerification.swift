import Foundation
import VerifiableRecords

/// The verification report for one card.
public struct CardVerification: Sendable {
    /// One check and its result, for people reading the report.
    public struct Check: Sendable, Hashable {
        /// What was checked.
        public let name: String
        /// Whether it passed (`nil` when it could not be run).
        public let passed: Bool?
        /// Why it failed or was skipped.
        public let detail: String?
    }

    /// Where the card came from.
    public let origin: String
    /// The JWS text.
    public let jws: String
    /// The decoded claims, when the payload could be read.
    public let payload: HealthCardPayload?
    /// The record, when the payload could be read.
    public let record: VerifiableClinicalRecord?
    /// Every failed check.
    public let errors: [VerificationIssue]
    /// Findings that do not make the card invalid.
    public let warnings: [VerificationIssue]
    /// Every check in order.
    public let checks: [Check]
    /// What the trust policy says about the issuer.
    public let trust: TrustPolicy.Decision?

    /// Whether every check passed: structure, signature, time, key and revocation.
    public var isValid: Bool { errors.isEmpty }

    /// Whether the issuer is trusted: listed by the policy, or (with no policy) its keys resolved.
    public var isTrusted: Bool {
        switch trust {
        case .trusted?: return true
        case .open?: return !errors.contains { $0.code == .issuerKeysUnavailable || $0.code == .keyNotFound }
        default: return false
        }
    }

    /// The first error with this code, if any.
    public func error(_ code: VerificationCode) -> VerificationIssue? { errors.first { $0.code == code } }
}
