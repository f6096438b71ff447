import CardScanning
import DigitalCovidCertificates
import Foundation
import HealthImport
import HealthStoreCore
import Hummingbird
import SmartHealthCards
import VerifiableRecords

/// "Add from the browser": a `.smart-health-card` file, `shc:/` or `HC1:` text, a FHIR file
/// (JSON or NDJSON), or a photo of a QR code. Cards and certificates are read by the same reader
/// as `verify` and `import`; everything is stored through the same importer as files on the
/// command line (``RecordImporter``): cards checked by its one rule at the store's clock and
/// stored only when valid, FHIR as a document of the file's name.
struct UploadRoutes {
    /// The one way in: its options carry the server's card and certificate verifiers.
    let importer: RecordImporter
    let pages: PersonPages

    func register(on group: RouterGroup<HealthRequestContext>) {
        let limit = pages.uploadLimit >> 20
        group.get("/upload") { _, context -> Response in
            pages.page(context, UploadPage(limit: limit, error: nil))
        }
        pages.upload(group, "/upload", unreadable: { failure, context in
            pages.page(context, UploadPage(limit: limit, error: "The upload could not be read (\(failure))."))
        }) { form, context -> Response in
            var items: [(name: String, data: Data)] = []
            if let file = form.part("file"), !file.data.isEmpty { items.append((file.filename.map(Self.safeName) ?? "upload", file.data)) }
            if let text = form["text"]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { items.append(("pasted text", Data(text.utf8))) }
            guard !items.isEmpty else { return pages.page(context, UploadPage(limit: limit, error: "Choose a file or paste text first.")) }
            var results: [UploadedPage.Result] = []
            for item in items { results += try await handle(name: item.name, data: item.data) }
            return pages.page(context, UploadedPage(results: results))
        }
    }

    /// A file name safe to show and to name a source by.
    static func safeName(_ name: String) -> String {
        let kept = String(name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || "._- ".unicodeScalars.contains($0) }.prefix(100))
        let trimmed = kept.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        return trimmed.isEmpty ? "upload" : trimmed
    }

    func handle(name: String, data: Data) async throws -> [UploadedPage.Result] {
        let kind = CardInputKind(of: data)
        if kind.isCardContent || name.lowercased().hasSuffix(".smart-health-card") { return try await cards(name: name, data: data) }
        return [await fhir(name: name, data: data)]
    }

    /// Cards and certificates. Images are read within the upload limits
    /// (``CardInputReader/Limits/uploads``), behind the process's ``ImageDecodeGate``.
    func cards(name: String, data: Data) async throws -> [UploadedPage.Result] {
        let readings: [CardReading]
        let read: @Sendable () -> [CardReading] = {
            var reader = CardInputReader(limits: .uploads)
            reader.add(data, name: name)
            return reader.readings
        }
        switch CardInputKind(of: data) {
        case .png, .jpeg:
            do { readings = try await ImageDecodeGate.shared.run(read) } catch {
                return [UploadedPage.Result(
                    name: name, kind: "Image", ok: false, verdict: "Not valid; not added", summary: "", issuer: "",
                    errors: [VerificationIssue("upload.busy", "the server is reading other images just now; try again in a moment")], warnings: [])]
            }
        default:
            readings = read()
        }
        return try await importer.importCards(readings).map(UploadedPage.Result.init)
    }

    /// A FHIR document, imported as the command line imports a file of that name.
    func fhir(name: String, data: Data) async -> UploadedPage.Result {
        var file = name == "pasted text" ? "pasted.json" : name
        if !file.lowercased().hasSuffix(".json") && !file.lowercased().hasSuffix(".ndjson") { file += ".json" }
        let f = await importer.importFHIR(data, name: file)
        let ok = f.status == .imported
        let o = f.outcome
        return UploadedPage.Result(
            name: name, kind: "FHIR", ok: ok, verdict: ok ? "Imported: \(o.inserted) new, \(o.updated) changed, \(o.unchanged) unchanged" : "Not imported",
            summary: "", issuer: "", errors: f.error.map { [VerificationIssue("import.failed", $0.description)] } ?? [], warnings: [])
    }
}
