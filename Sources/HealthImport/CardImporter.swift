import CardScanning
import DigitalCovidCertificates
import Foundation
import HealthStoreCore
import SmartHealthCards
import VerifiableRecords

/// Imports SMART Health Cards and EU DCCs from files, verified on the way in.
///
/// What a file holds is the card-input reader's to say, so `import` and `verify` agree on every
/// input. A card that fails verification is refused unless unverified cards are allowed, in
/// which case it is stored marked unverified with the codes of its failed checks. The cards of
/// one file land together or not at all; QR chunk files (or images) given together are
/// assembled into one card.
struct CardImporter: Sendable {
    let store: any HealthStore
    let options: RecordImporter.Options

    /// Whether a file holds cards rather than FHIR resources: named as a card file, or starting
    /// like a PNG, `shc:` text or a JWS. JSON not named `.smart-health-card` is read as FHIR.
    func isCardFile(_ file: RecordImporter.Candidate) -> Bool {
        if ["smart-health-card", "png", "jpg", "jpeg"].contains(file.url.pathExtension.lowercased()) { return true }
        guard let h = FileHandle(forReadingAtPath: file.url.path) else { return false }
        defer { try? h.close() }
        return CardInputKind(of: (try? h.read(upToCount: 512)) ?? Data()).isCardContent
    }

    /// Reads card files together, so the chunks of a multi-QR card may be in several of them.
    ///
    /// Each batch holds the cards of one file, or of the files one card's chunks came from, and
    /// is placed at the position of its first file; every file is in at least one batch.
    func read(_ files: [(position: Int, file: RecordImporter.Candidate)]) -> [CardBatch] {
        var batches: [CardBatch] = []
        var reader = CardInputReader()
        var readerInputs: [(position: Int, file: RecordImporter.Candidate)] = []
        for entry in files {
            let path = entry.file.url.path
            guard let handle = FileHandle(forReadingAtPath: path) else {
                batches.append(CardBatch(positions: [entry.position], files: [entry.file], content: .failure(.unreadable(path: path, reason: "cannot be read"))))
                continue
            }
            defer { try? handle.close() }
            do {
                reader.add(try CardInputReader.contents(of: handle, limit: reader.limits.maxInputBytes), name: entry.file.url.lastPathComponent)
                readerInputs.append(entry)
            } catch {
                batches.append(CardBatch(positions: [entry.position], files: [entry.file], content: .failure(.unreadable(path: path, reason: error.localizedDescription))))
            }
        }
        var group: [CardReading] = []
        func close() {
            guard let first = group.first else { return }
            let inputs = first.inputs.map { readerInputs[$0] }
            batches.append(CardBatch(positions: inputs.map(\.position), files: inputs.map(\.file), content: .success(group)))
            group = []
        }
        for reading in reader.readings {
            if let last = group.last, last.inputs != reading.inputs { close() }
            group.append(reading)
        }
        close()
        return batches.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }.map(\.element)
    }

    /// Verifies a batch's cards and saves them in one transaction.
    func save(_ batch: CardBatch) async -> FileImportResult {
        let path = batch.files.map(\.url.path).joined(separator: ", ")
        let bytes = batch.files.reduce(Int64(0)) { $0 + $1.bytes }
        let readings: [CardReading]
        switch batch.content {
        case .failure(let error): return failure(path, bytes, error)
        case .success(let r): readings = r
        }
        if let bad = readings.lazy.compactMap(\.error).first { return failure(path, bytes, .cardInput(bad)) }
        guard options.cardVerifier != nil else {
            return failure(path, bytes, .cardNotVerified("no verifier configured"))
        }
        let time = options.verificationTime ?? store.clock.now
        var records: [(VerifiableClinicalRecord, CardStatus)] = []
        for reading in readings {
            let checked = await CheckedCard.check(reading, options: options, at: time)
            guard let record = checked.record, checked.isValid || options.allowUnverified else {
                return failure(path, bytes, .cardNotVerified(checked.errors.map(\.description).joined(separator: "; ")))
            }
            records.append((record, checked.status))
        }
        do {
            let saved = try await store.saveVerifiableRecords(records)
            return FileImportResult(
                path: path, status: .imported, outcome: ImportOutcome(inserted: saved.inserted, updated: saved.updated, unchanged: saved.unchanged),
                source: records.first?.0.issuerIdentifier, error: nil, bytes: bytes)
        } catch {
            return failure(path, bytes, .store("\(error)"))
        }
    }

    private func failure(_ path: String, _ bytes: Int64, _ error: ImportError) -> FileImportResult {
        FileImportResult(path: path, status: .failed, outcome: ImportOutcome(), source: nil, error: error, bytes: bytes)
    }
}

/// The cards of one file (or of the files one multi-QR card came from), or why the file could
/// not be read at all.
struct CardBatch: Sendable {
    /// The positions of its files among the importer's files.
    let positions: [Int]
    /// The files, in the order given.
    let files: [RecordImporter.Candidate]
    /// What the reader found in them.
    let content: Result<[CardReading], ImportError>

    /// Where the batch lands: at its first file.
    var position: Int { positions[0] }
}
