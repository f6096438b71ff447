import Foundation
import SmartHealthCards
import VerifiableRecords

/// Verifiable records (SMART Health Cards, EU DCCs) kept as they were signed.
public protocol CardStorage: Sendable {
    /// Stores verified (or, on request, unverified) cards in one transaction; a card already
    /// stored is matched by its JWS.
    func saveVerifiableRecords(_ records: [(VerifiableClinicalRecord, CardStatus)]) async throws -> CardSaveOutcome

    /// Cards that have all the requested types and a relevant date in the interval, oldest relevant date first.
    func verifiableRecords(_ query: VerifiableRecordQuery) async throws -> [StoredVerifiableRecord]

    /// One card by its identifier (``StoredVerifiableRecord/identifier``); `nil` when none has it.
    func verifiableRecord(identifier: String) async throws -> StoredVerifiableRecord?

    /// Deletes one card by its identifier; returns whether it existed.
    func deleteVerifiableRecord(identifier: String) async throws -> Bool
}
