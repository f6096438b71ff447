import Foundation
import SmartHealthCards
import VerifiableRecords

/// Whether a stored card was verified when it came in.
public enum CardStatus: Sendable, Hashable {
    /// Every check passed; `trusted` says whether the issuer passed the trust policy.
    case verified(trusted: Bool)
    /// Stored on request although checks failed; the codes of the failed checks.
    case unverified(codes: [String])

    /// `verified` or `unverified`.
    public var name: String {
        switch self {
        case .verified: return "verified"
        case .unverified: return "unverified"
        }
    }

    /// The status of a verification report.
    public init(_ report: CardVerification) {
        self = report.isValid ? .verified(trusted: report.isTrusted) : .unverified(codes: report.errors.map(\.code.rawValue))
    }
}

/// A verifiable clinical record as the store holds it.
public struct StoredVerifiableRecord: Sendable, Hashable {
    /// The record's identifier in this store (stable; used to share it).
    public let identifier: String
    /// The card as read: its derived fields and, in ``VerifiableClinicalRecord/dataRepresentation``, the original JWS.
    public let record: VerifiableClinicalRecord
    /// How it fared when it was verified on the way in.
    public let status: CardStatus
    /// When it was added.
    public let addedDate: Date
}

/// A query for verifiable records, like HealthKit's `HKVerifiableClinicalRecordQuery`.
public struct VerifiableRecordQuery: Sendable, Hashable {
    /// The record types a card must all have (`https://smarthealth.cards#immunization`…); empty for any.
    public var recordTypes: [String]
    /// The interval the relevant date must lie in, if any.
    public var relevantDate: DateInterval?
    /// Whether cards stored unverified are returned too.
    public var includeUnverified: Bool
    /// The kinds of record to return (HealthKit 15.4's `sourceTypes`); empty for any.
    public var sourceTypes: [VerifiableClinicalRecord.SourceType]

    /// Makes a query; the defaults match every stored card, unverified ones included.
    public init(
        recordTypes: [String] = [], relevantDate: DateInterval? = nil, includeUnverified: Bool = true, sourceTypes: [VerifiableClinicalRecord.SourceType] = []
    ) {
        self.recordTypes = recordTypes
        self.relevantDate = relevantDate
        self.includeUnverified = includeUnverified
        self.sourceTypes = sourceTypes
    }

    /// Whether a record matches: every record type present, a relevant date inside the interval, verified
    /// unless ``includeUnverified``, of one of the ``sourceTypes`` when any are named.
    public func matches(_ r: StoredVerifiableRecord) -> Bool {
        if !includeUnverified, case .unverified = r.status { return false }
        if !sourceTypes.isEmpty, !sourceTypes.contains(r.record.sourceType) { return false }
        if !recordTypes.allSatisfy(r.record.recordTypes.contains) { return false }
        if let interval = relevantDate {
            guard let d = r.record.relevantDate, interval.contains(d) else { return false }
        }
        return true
    }
}

/// What saving cards did.
public struct CardSaveOutcome: Sendable, Hashable {
    /// Cards that were new.
    public var inserted = 0
    /// Cards already stored whose status changed.
    public var updated = 0
    /// Cards already stored unchanged.
    public var unchanged = 0

    /// Makes an outcome.
    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
    }
}
