import CardScanning
import Foundation
import HealthStoreCore
import SmartHealthCards

extension RecordImporter {
    /// Imports a FHIR document that came as bytes (an upload, pasted text) in one
    /// transaction, read as a file called `name` would be (NDJSON by its extension, else JSON)
    /// and stored as its own source of that name unless the options name one.
    public func importFHIR(_ data: Data, name: String) async -> FileImportResult {
        await store(path: name, name: name, explicit: true, bytes: Int64(data.count), prepare(data, name: name))
    }

    /// Checks cards and certificates that came as bytes, each by the rule files are checked by
    /// (``CheckedCard``, at the store's clock unless the options set a time), and stores each
    /// valid one. Unlike a file, one bad card does not keep the others out: each is reported
    /// for itself.
    ///
    /// - Throws: the store's error when a valid card could not be stored (those before it were).
    public func importCards(_ readings: [CardReading]) async throws -> [CardImportResult] {
        let time = options.verificationTime ?? store.clock.now
        var results: [CardImportResult] = []
        for reading in readings {
            let card = await CheckedCard.check(reading, options: options, at: time)
            var stored = false
            if card.isValid, let record = card.record { stored = try await store.saveVerifiableRecords([(record, card.status)]).inserted > 0 }
            results.append(CardImportResult(card: card, stored: stored))
        }
        return results
    }
}
