import CardScanning
import FHIR
import Foundation
import SmartHealthCards

/// Imports SMART Health Cards: `.smart-health-card` files and `shc:/` QR text, verified on the way in.
///
/// A card that fails verification is refused unless unverified cards are allowed, in which case
/// it is stored marked unverified with the codes of its failed checks. QR chunk files given
/// together are assembled into one card.
struct CardImporter: Sendable {
    let store: any HealthStore
    let options: RecordImporter.Options

    init(store: any HealthStore, options: RecordImporter.Options) {
        self.store = store
        self.options = options
    }

    /// Whether a file holds cards rather than FHIR resources.
    func isCardFile(_ file: RecordImporter.Candidate) -> Bool {
        if ["smart-health-card", "png"].contains(file.url.pathExtension.lowercased()) { return true }
        guard let h = FileHandle(forReadingAtPath: file.url.path) else { return false }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 8)) ?? Data()
        return head.starts(with: Data("shc:/".utf8)) || CardImageReader.isPNG(head)
    }

    func importCards(_ files: [RecordImporter.Candidate]) async -> [FileImportResult] {
        guard !files.isEmpty else { return [] }
        var results: [FileImportResult] = []
        var chunkTexts: [(RecordImporter.Candidate, String)] = []
        var images: [(RecordImporter.Candidate, [CardImageReader.Symbol])] = []
        for file in files {
            guard file.bytes <= 16 << 20, let data = try? Data(contentsOf: file.url) else {
                results.append(failure(file.url.path, file.bytes, .unreadable(path: file.url.path, reason: file.bytes > 16 << 20 ? "larger than 16 MiB" : "cannot be read")))
                continue
            }
            if CardImageReader.isPNG(data) {
                do { images.append((file, try CardImageReader.symbols(png: data, origin: file.url.lastPathComponent))) } catch {
                    results.append(failure(file.url.path, file.bytes, .cardInput("\(error)")))
                }
                continue
            }
            switch HealthCardInput.kind(of: data) {
            case .json:
                do {
                    let cards = try HealthCardInput.cards(json: data, origin: file.url.lastPathComponent)
                    results.append(await save(cards, path: file.url.path, bytes: file.bytes))
                } catch {
                    results.append(failure(file.url.path, file.bytes, .cardInput(error.description)))
                }
            case .qrText:
                let text = String(decoding: data, as: UTF8.self)
                if (try? HealthCardQRText.decode(text))?.total ?? 0 > 1 {
                    chunkTexts.append((file, text))
                    continue
                }
                do {
                    let card = try HealthCardInput.card(qrTexts: [text], origin: file.url.lastPathComponent)
                    results.append(await save([card], path: file.url.path, bytes: file.bytes))
                } catch {
                    results.append(failure(file.url.path, file.bytes, .cardInput(error.description)))
                }
            case .jws:
                let card = HealthCardInput.Card(jws: String(decoding: data, as: UTF8.self), origin: file.url.lastPathComponent, warnings: [], fromQR: false)
                results.append(await save([card], path: file.url.path, bytes: file.bytes))
            case .nothing(let reason):
                results.append(failure(file.url.path, file.bytes, .cardInput(reason.description)))
            }
        }
        if !chunkTexts.isEmpty {
            let path = chunkTexts.map(\.0.url.path).joined(separator: ", ")
            let bytes = chunkTexts.reduce(Int64(0)) { $0 + $1.0.bytes }
            do {
                let card = try HealthCardInput.card(qrTexts: chunkTexts.map(\.1), origin: "QR chunks")
                results.append(await save([card], path: path, bytes: bytes))
            } catch {
                results.append(failure(path, bytes, .cardInput(error.description)))
            }
        }
        if !images.isEmpty {
            // The chunks of one card may be spread over several pictures: read them together.
            let path = images.map(\.0.url.path).joined(separator: ", ")
            let bytes = images.reduce(Int64(0)) { $0 + $1.0.bytes }
            let cards = CardImageReader.cards(images.flatMap(\.1))
            if cards.isEmpty {
                results.append(failure(path, bytes, .cardInput("no SMART Health Card QR code in the image\(images.count == 1 ? "" : "s")")))
            } else if let bad = cards.first(where: { $0.inputError != nil }) {
                results.append(failure(path, bytes, .cardInput(bad.inputError!.description)))
            } else {
                results.append(await save(cards, path: path, bytes: bytes))
            }
        }
        return results
    }

    private func save(_ cards: [HealthCardInput.Card], path: String, bytes: Int64) async -> FileImportResult {
        guard let verifier = options.cardVerifier else {
            return failure(path, bytes, .cardNotVerified("no verifier configured"))
        }
        let time = options.verificationTime ?? store.clock.now
        var batch: [(VerifiableClinicalRecord, CardStatus)] = []
        for card in cards {
            let report = await verifier.verify(card, at: time)
            guard let record = report.record else {
                return failure(path, bytes, .cardNotVerified(report.errors.map(\.description).joined(separator: "; ")))
            }
            if !report.isValid && !options.allowUnverified {
                return failure(path, bytes, .cardNotVerified(report.errors.map(\.description).joined(separator: "; ")))
            }
            batch.append((record, CardStatus(report)))
        }
        do {
            let outcome = try await store.saveVerifiableRecords(batch)
            return FileImportResult(
                path: path, status: .imported, outcome: ImportOutcome(inserted: outcome.inserted, updated: outcome.updated, unchanged: outcome.unchanged),
                source: cards.first.flatMap { _ in batch.first?.0.issuerIdentifier }, error: nil, bytes: bytes)
        } catch {
            return failure(path, bytes, .store("\(error)"))
        }
    }

    private func failure(_ path: String, _ bytes: Int64, _ error: ImportError) -> FileImportResult {
        FileImportResult(path: path, status: .failed, outcome: ImportOutcome(), source: nil, error: error, bytes: bytes)
    }
}
