import Foundation
import SmartHealthCards
import VerifiableRecords

/// An app's request for verifiable records (HealthKit's `HKVerifiableClinicalRecordQuery`):
/// record types every offered card must have, and an optional interval for the relevant date.
/// There is no lasting grant: each request is answered once, by the person's pick.
public struct VerifiableRecordRequest: Sendable, Hashable {
    /// The asking app.
    public let appID: String
    /// Record types a card must all have (`https://smarthealth.cards#immunization`…).
    public let recordTypes: [String]
    /// The interval the card's relevant date must lie in, if any.
    public let relevantDate: DateInterval?
    /// The kinds of record asked for (SMART Health Cards, EU DCCs); empty for any.
    public let sourceTypes: [VerifiableClinicalRecord.SourceType]

    /// Makes a request; an empty `recordTypes` accepts any card, a `nil` interval any relevant
    /// date, and an empty `sourceTypes` any kind of record.
    public init(appID: String, recordTypes: [String], relevantDate: DateInterval? = nil, sourceTypes: [VerifiableClinicalRecord.SourceType] = []) {
        self.appID = appID
        self.recordTypes = recordTypes
        self.relevantDate = relevantDate
        self.sourceTypes = sourceTypes
    }

    /// The store query for the cards to offer (verified ones only).
    var query: VerifiableRecordQuery {
        VerifiableRecordQuery(recordTypes: recordTypes, relevantDate: relevantDate, includeUnverified: false, sourceTypes: sourceTypes)
    }
}

/// The cards the person picked for one request, waiting for the app to take them once.
public struct CardShare: Sendable, Hashable {
    /// SHA-256 of the one-time token; the token itself is never stored.
    public let tokenDigest: Data
    /// The app the cards are for.
    public let appID: String
    /// ``StoredVerifiableRecord/identifier``s of the cards the person picked.
    public let cardIdentifiers: [String]
    /// When the person picked them.
    public let createdDate: Date

    /// Makes a share from the token's digest; the token itself never reaches this type.
    public init(tokenDigest: Data, appID: String, cardIdentifiers: [String], createdDate: Date) {
        self.tokenDigest = tokenDigest
        self.appID = appID
        self.cardIdentifiers = cardIdentifiers
        self.createdDate = createdDate
    }
}
