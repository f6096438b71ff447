import CardScanning
import DigitalCovidCertificates
import Foundation
import HealthImport
import HealthSharing
import HealthStoreCore
import Hummingbird
import ProviderSync
import SmartHealthCards
import SmartHealthLinks
import VerifiableRecords

/// "Add from the browser": a `.smart-health-card` file, `shc:/` or `HC1:` text, a FHIR file
/// (JSON or NDJSON), a SMART Health Link (its text, a viewer URL, or a photo of its QR code), or
/// a photo of a card's QR code. Cards and certificates are read by the same reader as `verify`
/// and `import`; everything is stored through the same importer as files on the command line
/// (``RecordImporter``): cards checked by its one rule at the store's clock and stored only when
/// valid, FHIR as a document of the file's name, a link's files as `import` stores them.
struct UploadRoutes {
    /// The one way in: its options carry the server's card and certificate verifiers.
    let importer: RecordImporter
    /// Follows links the person pastes or photographs (public addresses only, unless the
    /// server allows loopback providers).
    let links: SharedLinkFetcher
    let pages: PersonPages
    /// Whether a grant's FHIR server may be on this machine (tests, a local provider).
    let allowLoopback: Bool

    /// Who a link's sharer is told asked for its files.
    static let recipient = "HealthRecords"

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
            let passcode = form["passcode"].flatMap { $0.isEmpty ? nil : $0 }
            let connect = form["connectAccess"] == "1"
            var results: [UploadedPage.Result] = []
            for item in items { results += try await handle(name: item.name, data: item.data, passcode: passcode, connectAccess: connect) }
            return pages.page(context, UploadedPage(results: results))
        }
    }

    /// A file name safe to show and to name a source by.
    static func safeName(_ name: String) -> String {
        let kept = String(name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || "._- ".unicodeScalars.contains($0) }.prefix(100))
        let trimmed = kept.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        return trimmed.isEmpty ? "upload" : trimmed
    }

    func handle(name: String, data: Data, passcode: String? = nil, connectAccess: Bool = false) async throws -> [UploadedPage.Result] {
        let kind = CardInputKind(of: data)
        if data.count <= SHLinkPayload.maximumLinkLength, let text = String(data: data, encoding: .utf8), SHLinkPayload.isLink(text) {
            return await link(text, passcode: passcode, connectAccess: connectAccess)
        }
        if kind == .png || kind == .jpeg {
            let found = try await linksInImage(name: name, data: data)
            if !found.isEmpty {
                var results: [UploadedPage.Result] = []
                for text in found { results += await link(text, passcode: passcode, connectAccess: connectAccess) }
                return results
            }
        }
        if kind.isCardContent || name.lowercased().hasSuffix(".smart-health-card") { return try await cards(name: name, data: data) }
        return [await fhir(name: name, data: data)]
    }

    /// The links in an image's QR codes (empty for a card's code), read within the upload limits
    /// behind the process's ``ImageDecodeGate``.
    private func linksInImage(name: String, data: Data) async throws -> [String] {
        let limits = CardInputReader.Limits.uploads
        let read: @Sendable () -> [String] = {
            let symbols = (try? CardImageReader.symbols(image: data, origin: name, png: limits.png, jpeg: limits.jpeg)) ?? []
            return symbols.map(\.decoded.text).filter(SHLinkPayload.isLink)
        }
        return (try? await ImageDecodeGate.shared.run(read)) ?? []
    }

    /// Follows a link and imports its files as `import` does; each file reported as an upload is.
    /// With `connectAccess`, an API access grant is kept as a provider connection (as
    /// `import --connect-access` keeps it).
    func link(_ text: String, passcode: String?, connectAccess: Bool = false) async -> [UploadedPage.Result] {
        let link: SHLinkPayload
        do { link = try SHLinkPayload(link: text) } catch { return [Self.linkFailure(error.code, error.description)] }
        let files: [SharedLinkFile]
        do { files = try await links.fetch(link, recipient: Self.recipient, passcode: passcode) } catch {
            return [Self.linkFailure(error.code, error.description, label: link.label)]
        }
        let store = importer.store
        let providers = connectAccess ? ProviderDirectory(store: store, clock: { store.clock.now }) : nil
        let report = await SharedLinkImporter(importer: importer, providers: providers, allowLoopback: allowLoopback).importFiles(files, from: link)
        let name = link.label ?? "Shared link"
        return report.files.flatMap { file -> [UploadedPage.Result] in
            let fileName = "\(name), file \(file.index + 1)"
            switch file.outcome {
            case .records(let result): return [Self.fhirResult(name: fileName, result)]
            case .cards(let cards): return cards.map(UploadedPage.Result.init)
            case .connected(let id, let base):
                return [UploadedPage.Result(name: fileName, kind: "Link", ok: true, verdict: "Connected as provider \(id) (\(base))", summary: "", issuer: "", errors: [], warnings: [])]
            case .skipped(let reason):
                return [UploadedPage.Result(name: fileName, kind: "Link", ok: true, verdict: "Skipped: \(reason)", summary: "", issuer: "", errors: [], warnings: [])]
            case .failed(let reason):
                return [UploadedPage.Result(
                    name: fileName, kind: "Link", ok: false, verdict: "Not added", summary: "", issuer: "", errors: [VerificationIssue("shl.content", reason)], warnings: [])]
            }
        }
    }

    private static func linkFailure(_ code: String, _ message: String, label: String? = nil) -> UploadedPage.Result {
        UploadedPage.Result(
            name: label ?? "Shared link", kind: "Link", ok: false, verdict: "Not added", summary: "", issuer: "",
            errors: [VerificationIssue(VerificationCode(rawValue: code), message)], warnings: [])
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
        return Self.fhirResult(name: name, await importer.importFHIR(data, name: file))
    }

    private static func fhirResult(name: String, _ f: FileImportResult) -> UploadedPage.Result {
        let ok = f.status == .imported
        let o = f.outcome
        return UploadedPage.Result(
            name: name, kind: "FHIR", ok: ok, verdict: ok ? "Imported: \(o.inserted) new, \(o.updated) changed, \(o.unchanged) unchanged" : "Not imported",
            summary: "", issuer: "", errors: f.error.map { [VerificationIssue("import.failed", $0.description)] } ?? [], warnings: [])
    }
}
