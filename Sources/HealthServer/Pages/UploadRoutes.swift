import CardScanning
import DigitalCovidCertificates
import Foundation
import HealthImport
import HealthStoreCore
import Hummingbird
import SmartHealthCards

/// "Add from the browser": a `.smart-health-card` file, `shc:/` or `HC1:` text, a FHIR file
/// (JSON or NDJSON), or a photo of a QR code. Cards and certificates are read by the same reader
/// as `verify` and `import`, verified with the server's verifiers and stored only when valid;
/// FHIR files go through the same importer as files on the command line.
struct UploadRoutes {
    let state: ServerState
    let person: PersonRoutes

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/upload") { _, context -> Response in
            person.page(context, "upload", ["title": "Add records", "limit": state.configuration.limits.maxUploadBytes >> 20])
        }
        group.post("/upload") { request, context -> Response in
            let form: MultipartForm
            do { form = try await MultipartForm.read(request, limit: state.configuration.limits.maxUploadBytes) } catch let e as MultipartForm.Failure {
                return person.page(context, "upload", ["title": "Add records", "error": "The upload could not be read (\(e)).", "limit": state.configuration.limits.maxUploadBytes >> 20])
            }
            guard let session = context.session, let sent = form["csrf"], SecretToken.equal(sent, session.csrfToken) else { throw PageError.forgedForm }
            var items: [(name: String, data: Data)] = []
            if let file = form.part("file"), !file.data.isEmpty { items.append((file.filename.map(Self.safeName) ?? "upload", file.data)) }
            if let text = form["text"]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { items.append(("pasted text", Data(text.utf8))) }
            guard !items.isEmpty else {
                return person.page(context, "upload", ["title": "Add records", "error": "Choose a file or paste text first.", "limit": state.configuration.limits.maxUploadBytes >> 20])
            }
            var results: [[String: Any]] = []
            for item in items { results += try await handle(name: item.name, data: item.data) }
            return person.page(context, "uploaded", ["title": "Added records", "results": results])
        }
    }

    /// A file name safe to write in a temporary folder and to show.
    static func safeName(_ name: String) -> String {
        let kept = String(name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || "._- ".unicodeScalars.contains($0) }.prefix(100))
        let trimmed = kept.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        return trimmed.isEmpty ? "upload" : trimmed
    }

    func handle(name: String, data: Data) async throws -> [[String: Any]] {
        let kind = CardInputKind(of: data)
        if kind.isCardContent || name.lowercased().hasSuffix(".smart-health-card") { return try await cards(name: name, data: data) }
        return [await fhir(name: name, data: data)]
    }

    /// Cards and certificates: each verified as `verify` would, stored when valid. Images are
    /// read within the upload limits (``CardInputReader/Limits/uploads``), behind the process's
    /// ``ImageDecodeGate``.
    func cards(name: String, data: Data) async throws -> [[String: Any]] {
        let readings: [CardReading]
        let read: @Sendable () -> [CardReading] = {
            var reader = CardInputReader(limits: .uploads)
            reader.add(data, name: name)
            return reader.readings
        }
        switch CardInputKind(of: data) {
        case .png, .jpeg:
            do { readings = try await ImageDecodeGate.shared.run(read) } catch {
                return [result(name: name, kind: "Image", valid: false, stored: false, summary: "", issuer: "",
                               errors: [VerificationIssue("upload.busy", "the server is reading other images just now; try again in a moment")], warnings: [])]
            }
        default:
            readings = read()
        }
        var out: [[String: Any]] = []
        for reading in readings {
            if reading.format == .euDigitalCOVIDCertificate, case .success(let text) = reading.result {
                let report = (state.configuration.dccVerifier ?? DCCVerifier(trustList: DSCTrustList())).verify(text, origin: reading.origin)
                var stored = false
                if report.isValid, let record = report.record {
                    stored = try await state.store.saveVerifiableRecords([(record, .verified(trusted: report.isTrusted))]).inserted > 0
                }
                out.append(result(name: reading.origin, kind: "EU Digital COVID Certificate", valid: report.isValid, stored: stored,
                                  summary: report.record?.itemNames.joined(separator: "; ") ?? "", issuer: report.certificate?.claims.issuer ?? "",
                                  errors: report.errors, warnings: report.warnings))
                continue
            }
            guard let verifier = state.configuration.cardVerifier else {
                out.append(result(name: reading.origin, kind: "SMART Health Card", valid: false, stored: false, summary: "", issuer: "",
                                  errors: [VerificationIssue("issuer.keysUnavailable", "this server was started without a way to check card signatures")], warnings: []))
                continue
            }
            let report = await verifier.verify(reading.card, at: Date())
            var stored = false
            if report.isValid, let record = report.record {
                stored = try await state.store.saveVerifiableRecords([(record, CardStatus(report))]).inserted > 0
            }
            out.append(result(name: reading.origin, kind: "SMART Health Card", valid: report.isValid && report.isTrusted, stored: stored,
                              summary: report.record?.itemNames.joined(separator: "; ") ?? "", issuer: report.payload?.issuer ?? "",
                              errors: report.errors, warnings: report.warnings))
        }
        return out
    }

    func result(name: String, kind: String, valid: Bool, stored: Bool, summary: String, issuer: String, errors: [VerificationIssue], warnings: [VerificationIssue]) -> [String: Any] {
        let verdict = valid ? (stored ? "Verified and added" : "Verified; already stored") : (errors.isEmpty ? "Not trusted; not added" : "Not valid; not added")
        return [
            "name": name, "kind": kind, "ok": valid, "verdict": verdict, "summary": summary, "issuer": issuer,
            "hasSummary": !summary.isEmpty, "hasIssuer": !issuer.isEmpty,
            "errors": errors.map { ["code": $0.code.rawValue, "message": $0.message] }, "warnings": warnings.map { ["code": $0.code.rawValue, "message": $0.message] },
            "hasErrors": !errors.isEmpty, "hasWarnings": !warnings.isEmpty,
        ]
    }

    /// A FHIR file: written to a private temporary folder and imported as the command line imports files.
    func fhir(name: String, data: Data) async -> [String: Any] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("healthrecords-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var file = name == "pasted text" ? "pasted.json" : name
        if !file.lowercased().hasSuffix(".json") && !file.lowercased().hasSuffix(".ndjson") { file += ".json" }
        let path = dir.appendingPathComponent(file).path
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            return ["name": name, "kind": "FHIR", "ok": false, "verdict": "Could not be read", "summary": "", "issuer": "", "errors": [], "warnings": [], "hasErrors": false, "hasWarnings": false]
        }
        let report = await RecordImporter(store: state.store).importPaths([path])
        let f = report.files.first
        let o = f?.outcome ?? ImportOutcome()
        let ok = f?.status == .imported
        var errors: [[String: String]] = []
        if let e = f?.error { errors.append(["code": "import.failed", "message": e.description]) }
        return [
            "name": name, "kind": "FHIR", "ok": ok,
            "verdict": ok ? "Imported: \(o.inserted) new, \(o.updated) changed, \(o.unchanged) unchanged" : "Not imported",
            "summary": "", "issuer": "", "errors": errors, "warnings": [], "hasErrors": !errors.isEmpty, "hasWarnings": false,
        ]
    }
}
