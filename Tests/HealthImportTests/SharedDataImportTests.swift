import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

@Suite struct SharedDataImportTests {
    /// Every file under shared/data/fhir imports; re-importing changes nothing; every single-resource
    /// file comes back byte for byte.
    @Test(arguments: ImportEngine.available) func importsEverySharedFileAndGivesBackTheBytes(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let report = await f.importer().importPaths([Corpus.url("data/fhir").path])
        #expect(report.failed == 0, "\(report.files.filter { $0.status == .failed }.map { "\($0.path): \($0.error!)" })")
        #expect(report.skipped == 1)
        #expect(report.files.first { $0.status == .skipped }?.path.hasSuffix("ndjson/log.ndjson") == true)
        #expect(report.files.count == Corpus.files("data/fhir", extensions: ["json", "ndjson"]).count)
        #expect(report.files.count == (Corpus.isFull ? 346 : 334))
        #expect(report.totals.inserted > (Corpus.isFull ? 9000 : 2000))

        let again = await f.importer().importPaths([Corpus.url("data/fhir").path])
        #expect(again.failed == 0)
        #expect(again.totals.inserted == 0)
        #expect(again.totals.updated == 0)
        #expect(again.totals.unchanged == report.totals.inserted + report.totals.updated)

        var singles = 0
        for file in Corpus.files("data/fhir", extensions: ["json"]) {
            let data = try Data(contentsOf: file)
            guard case .resource(let r) = try FHIRDocumentReader().read(data) else { continue }
            let stored = try await f.store.resource(RecordIdentity(source: file.lastPathComponent, resourceType: r.resourceType, identifier: r.identifier))
            #expect(stored?.resource.data == data, "\(file.lastPathComponent)")
            singles += 1
        }
        #expect(singles > 250)
    }

    /// Expected counts were made by an independent script over the same files: Observations by
    /// category (full corpus: vital-signs 588, laboratory 933; survey 128 and exam 2 are context),
    /// other types by resourceType. The repository's three people: 99 and 73, survey 22.
    @Test(arguments: ImportEngine.available) func countsSyntheaRecordsPerClinicalType(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let report = await f.importer().importPaths([Corpus.url("data/fhir/synthea").path])
        #expect(report.failed == 0)
        let expected: [ClinicalType: Int] = Corpus.isFull
            ? [
                .allergy: 22, .condition: 73, .immunization: 229, .labResult: 933, .medication: 69,
                .procedure: 79, .vitalSign: 588, .coverage: 0, .clinicalNote: 102,
            ]
            : [
                .allergy: 1, .condition: 6, .immunization: 51, .labResult: 73, .medication: 4,
                .procedure: 11, .vitalSign: 99, .coverage: 0, .clinicalNote: 5,
            ]
        for (type, n) in expected {
            #expect(try await f.store.count(RecordQuery(type: type)) == n, "\(type)")
        }
        #expect(report.totals.inserted == expected.values.reduce(0, +))
        #expect(report.totals.notRecords == (Corpus.isFull ? 1032 : 127))
    }

    @Test(arguments: ImportEngine.available) func keepsDecimalTextThroughTheStore(engine: ImportEngine) async throws {
        let f = try await ImportFixture(engine)
        let file = FixtureFiles.url("data/fhir/r4-examples/diagnosticreport-example.json")
        let report = await f.importer().importPaths([file.path])
        #expect(report.succeeded)
        let records = try await f.store.records(RecordQuery(type: .labResult))
        let texts = try records.flatMap { r -> [String] in
            try r.fhirResource.json().list("referenceRange").compactMap { $0.objectValue?.quantity("high")?.value?.text }
        }
        #expect(texts.contains("0.40"))
        #expect(texts.contains("6.0"))
        let raw = records.map { String(decoding: $0.fhirResource.data, as: UTF8.self) }.joined()
        #expect(raw.contains("\"value\": 0.40"))
    }
}
