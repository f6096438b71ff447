import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

/// International Patient Summary documents — the IG's examples, national programmes' and real
/// EHRs' output, warts and all — import whole: every entry lands (as a record or as context), and
/// the source is shown under the document's custodian, else its author.
@Suite struct IPSImportTests {
    static let folder = "vectors/ips"

    static var examples: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: FixtureFiles.url(folder).path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test(arguments: ImportEngine.available) func everyExampleLandsEveryEntry(engine: ImportEngine) async throws {
        #expect(Self.examples.count == 13)
        let f = try await ImportFixture(engine)
        for name in Self.examples {
            let url = FixtureFiles.url(Self.folder + "/" + name)
            // Counted without our reader: each entry with a resource is one resource.
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            let entries = (document["entry"] as? [[String: Any]] ?? []).filter { $0["resource"] != nil }.count
            let report = await f.importer().importPaths([url.path])
            let file = try #require(report.files.first)
            #expect(file.status == .imported, "\(name): \(file.error?.description ?? "")")
            #expect(file.outcome.inserted + file.outcome.notRecords == entries, "\(name): \(file.outcome) for \(entries) entries")
        }
    }

    /// The IG's example names its custodian ("Anorg Aniza Tion BV / The best custodian ever") and,
    /// separately, a laboratory; the source is the custodian's.
    @Test(arguments: ImportEngine.available) func aDocumentIsNamedAfterItsCustodian(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let url = FixtureFiles.url(Self.folder + "/IPS_IG-bundle-01.json")
        #expect(await f.importer().importPaths([url.path]).failed == 0)
        #expect(try await f.store.sources().map(\.name) == ["Anorg Aniza Tion BV / The best custodian ever"])
    }

    /// Epic's connectathon IPS names a Medication with a 109-character id: FHIR R4 allows 64, but
    /// the document is taken rather than refused whole.
    @Test func anIdLongerThanR4AllowsIsKept() throws {
        #expect(FHIRResource.isValidIdentifier(String(repeating: "a", count: 109)))
        #expect(FHIRResource.isValidIdentifier(String(repeating: "a", count: FHIRResource.maximumIdentifierLength)))
        #expect(!FHIRResource.isValidIdentifier(String(repeating: "a", count: FHIRResource.maximumIdentifierLength + 1)))
        #expect(!FHIRResource.isValidIdentifier("a/b") && !FHIRResource.isValidIdentifier(""))
    }
}
