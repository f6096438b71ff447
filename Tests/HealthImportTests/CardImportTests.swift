import CardScanning
import Foundation
import HealthImport
import HealthStoreCore
import SmartHealthCards
import Testing
import TestSupport

extension ImportFixture {
    /// An importer that verifies cards with the spec issuer's keys, offline, after they were signed.
    func cardImporter() -> RecordImporter {
        var options = RecordImporter.Options()
        options.cardVerifier = SmartHealthCardVerifier(
            keys: IssuerFilesKeySource(issuer: "https://spec.smarthealth.cards/examples/issuer", directory: FixtureFiles.url("vectors/shc-spec/issuer")))
        options.verificationTime = Date(timeIntervalSince1970: 1_688_169_600)  // 2023-07-01
        return RecordImporter(store: store, options: options)
    }
}

/// Card files go through the card-input reader, so `import` refuses what `verify` refuses, with
/// the same typed reason, and lands nothing of a file it refuses.
@Suite struct CardImportTests {
    let spec = FixtureFiles.url("vectors/shc-spec").path

    @Test(arguments: ImportEngine.available) func importsEveryKindOfCardFile(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let qr = try String(contentsOfFile: "\(spec)/example-01-f-qr-code-numeric-value-0.txt", encoding: .utf8)
        let png = try f.dir.write("in/card.png", try CardQRCode.encode(qr).pngData(moduleSize: 3))
        let jws = try f.dir.write("in/card.jws", try Data(contentsOf: URL(fileURLWithPath: "\(spec)/example-03-d-jws.txt")))
        var options = f.cardImporter().options
        options.allowUnverified = true  // example 03 is revoked
        let report = await RecordImporter(store: f.store, options: options).importPaths(["\(spec)/example-00-e-file.smart-health-card", png, jws])
        #expect(report.succeeded, "\(report.files.compactMap(\.error))")
        #expect(report.files.map(\.path) == ["\(spec)/example-00-e-file.smart-health-card", png, jws])
        #expect(try await f.store.verifiableRecords(VerifiableRecordQuery()).count == 3)
    }

    @Test(arguments: ImportEngine.available) func refusesBadCardFilesWithTheReadersError(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let chunk = { (k: Int) in "\(self.spec)/example-02-f-qr-code-numeric-value-\(k).txt" }
        let empty = try f.dir.write("in/none.smart-health-card", #"{"verifiableCredential":[]}"#)
        let photo = try f.dir.write("in/photo.png", BlankPNG.data())
        let header = try f.dir.write("in/card.txt", "SHC:/5676")
        let huge = f.dir.path("in/huge.smart-health-card")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: 2 << 30)  // sparse: no disk used
        try handle.close()
        let report = await f.cardImporter().importPaths([empty, photo, header, chunk(0), huge, chunk(2)])
        #expect(report.files.map(\.path) == [empty, photo, header, "\(chunk(0)), \(chunk(2))", huge])
        #expect(report.files.map(\.status) == Array(repeating: .failed, count: 5))
        let errors = report.files.map(\.error)
        #expect(errors[0] == .cardInput(.container(.noCredentials)))
        #expect(errors[1] == .cardInput(.noQRCode))
        #expect(errors[2] == .cardInput(.qrHeader("the header must be lowercase shc:/")))
        #expect(errors[3] == .cardInput(.chunkNumbering("missing chunk 2 of 3")))
        #expect(errors[4] == .cardInput(.tooLarge(limit: CardInputReader.Limits.default.maxInputBytes)))
        #expect(try await f.store.verifiableRecords(VerifiableRecordQuery()).isEmpty)
    }

    @Test(arguments: ImportEngine.available) func landsNothingOfAFileWithOneBadCard(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let good = try String(contentsOfFile: "\(spec)/example-00-d-jws.txt", encoding: .utf8)
        let mixed = try f.dir.write("in/mixed.smart-health-card", #"{"verifiableCredential":["\#(good)","eyJhbGciOiJFUzI1NiJ9.broken"]}"#)
        let report = await f.cardImporter().importPaths([mixed])
        #expect(report.files.map(\.status) == [.failed])
        guard case .cardNotVerified? = report.files.first?.error else { Issue.record("expected cardNotVerified, got \(String(describing: report.files.first?.error))"); return }
        #expect(try await f.store.verifiableRecords(VerifiableRecordQuery()).isEmpty)
    }
}
