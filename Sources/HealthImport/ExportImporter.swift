import CardScanning
import ClinicalRecords
import FHIR
import Foundation
import HealthArchive
import HealthStoreCore
import SmartHealthCards

/// Imports a HealthRecords export (``ExportArchive``) back into a store through the same paths
/// every import takes: `importResources(source:from:)` per source, the card importer, and
/// `saveSamples`, so anchors, change feeds, observers and consent see ordinary imports.
///
/// Nothing is written until the whole archive has been read and checked — the manifest, every
/// file's SHA-256, every line (``ExportArchive/checkResources()``). Then each source lands in
/// one transaction, all cards in one, all samples in one; a store failure part-way leaves the
/// earlier parts in place, and importing the same export again finishes the job (what is
/// stored already is counted unchanged).
///
/// Cards are verified again on the way in, with the options' verifiers and time: the
/// manifest's hashes show an export is whole, not who made it. A card that fails is still
/// stored, marked unverified with its codes, so an export never loses a card.
public struct ExportImporter: Sendable {
    /// What importing an export did.
    public struct Report: Sendable {
        /// Each source with what its import did, in the export's order.
        public var sources: [(source: RecordSource, outcome: ImportOutcome)] = []
        /// What saving the cards did.
        public var cards = CardSaveOutcome()
        /// Cards that verified again, and cards stored unverified.
        public var cardsVerified = 0
        /// Cards that failed verification on the way in (stored, marked unverified).
        public var cardsUnverified = 0
        /// Samples saved, and samples already stored.
        public var samplesSaved = 0
        /// Samples already stored with the same values.
        public var samplesUnchanged = 0

        /// The resources' counts over every source.
        public var totals: ImportOutcome {
            var t = ImportOutcome()
            for s in sources { t += s.outcome }
            return t
        }
    }

    /// How far an import of an export has come.
    public struct Progress: Sendable {
        /// Steps done (one per source, one for cards, one for samples).
        public let done: Int
        /// Steps in all.
        public let total: Int
        /// What was just imported.
        public let label: String
    }

    /// The store to import into.
    public let store: any HealthStore
    /// Card verification (``RecordImporter/Options/cardVerifier``, `dccVerifier`, `verificationTime`).
    public let options: RecordImporter.Options
    /// The classifier and namer.
    public let builder: RecordBuilder

    /// Makes an importer. Without a card verifier in `options`, cards are checked by a
    /// verifier that knows no issuer keys (and so are stored unverified).
    public init(store: any HealthStore, options: RecordImporter.Options = RecordImporter.Options(), builder: RecordBuilder = RecordBuilder()) {
        var options = options
        if options.cardVerifier == nil { options.cardVerifier = SmartHealthCardVerifier(keys: StaticKeySource(keySets: [:])) }
        options.allowUnverified = true
        options.source = nil
        self.store = store
        self.options = options
        self.builder = builder
    }

    /// Checks the whole export, then imports it.
    public func importArchive(_ archive: ExportArchive, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Report {
        try archive.checkResources()
        var report = Report()
        let steps = archive.sources.count + 2
        for (n, source) in archive.sources.enumerated() {
            let recordSource = RecordSource(identifier: source.line.identifier, name: source.line.name)
            let items = try classify(archive.resources(of: source))
            let outcome = try await store.importResources(source: recordSource, from: ResourceList(items))
            report.sources.append((recordSource, outcome))
            progress?(Progress(done: n + 1, total: steps, label: source.line.name))
        }
        try await importCards(archive, into: &report)
        progress?(Progress(done: archive.sources.count + 1, total: steps, label: "cards"))
        let samples = try archive.samples()
        if !samples.isEmpty {
            let saved = try await store.saveSamples(samples)
            report.samplesSaved = saved.saved.count
            report.samplesUnchanged = saved.unchanged.count
        }
        progress?(Progress(done: steps, total: steps, label: "samples"))
        return report
    }

    /// Classifies a source's resources as the first import did. Display names of medications
    /// can come from a Medication the first import found in the same Bundle; when a name made
    /// alone differs from the stored one, it is made again with the source's resources as that
    /// Bundle (found by fullUrl or type and id).
    func classify(_ resources: [ExportedResource]) throws -> [ClassifiedResource] {
        var index: [String: FHIRResource]?
        func resolver() -> [String: FHIRResource] {
            if let index { return index }
            var built: [String: FHIRResource] = [:]
            for r in resources {
                built[r.resource.resourceType.rawValue + "/" + r.resource.identifier] = r.resource
                if let url = r.fullUrl { built[url] = r.resource }
            }
            index = built
            return built
        }
        var out: [ClassifiedResource] = []
        out.reserveCapacity(resources.count)
        for r in resources {
            var item = try builder.classify(r.resource)
            if item.displayName != r.displayName {
                let lookup = resolver()
                let again = try builder.classify(r.resource) { ref in try? lookup[ref]?.json() }
                if again.displayName == r.displayName { item = again }
            }
            out.append(item)
        }
        return out
    }

    /// Verifies the cards again and saves them in one transaction.
    private func importCards(_ archive: ExportArchive, into report: inout Report) async throws {
        guard !archive.cards.isEmpty else { return }
        var inputs: [(data: Data, name: String)] = []
        var files: [RecordImporter.Candidate] = []
        for card in archive.cards {
            let bytes = try archive.file(card.file)
            inputs.append((Data(bytes), card.file))
            files.append(RecordImporter.Candidate(url: URL(fileURLWithPath: card.file), explicit: true, bytes: Int64(bytes.count)))
        }
        let readings = CardInputReader.read(inputs)
        let batch = CardBatch(positions: Array(files.indices), files: files, content: .success(readings))
        let result = await CardImporter(store: store, options: options).save(batch)
        guard result.status == .imported else { throw ExportImportError.cards(result.error?.description ?? "cards not imported") }
        report.cards = CardSaveOutcome(inserted: result.outcome.inserted, updated: result.outcome.updated, unchanged: result.outcome.unchanged)
        let stored = try await store.verifiableRecords(VerifiableRecordQuery())
        let wanted = Set(readings.compactMap { try? $0.result.get() })
        for card in stored where wanted.contains(card.record.jws) {
            if case .verified = card.status { report.cardsVerified += 1 } else { report.cardsUnverified += 1 }
        }
    }
}

/// Why an export's import stopped after the archive was checked.
public enum ExportImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cards could not be read or saved.
    case cards(String)

    public var description: String {
        switch self {
        case .cards(let m): return "cards: \(m)"
        }
    }
}
