import ClinicalRecords
import FHIR
import Foundation
import HealthArchive
import HealthImport
import HealthStoreCore
import SmartHealthCards
import Testing
import TestSupport

/// Export, a fresh store, import of the export: the same records with byte-identical
/// resources, the same cards and samples — on every engine, both ways between them.
@Suite struct ExportRoundTripTests {
    static let issuer = "https://spec.smarthealth.cards/examples/issuer"
    static let verifyAt = Date(timeIntervalSince1970: 1_688_169_600)  // 2023-07-01

    static var cardOptions: RecordImporter.Options {
        var options = RecordImporter.Options()
        options.cardVerifier = SmartHealthCardVerifier(keys: IssuerFilesKeySource(issuer: issuer, directory: FixtureFiles.url("vectors/shc-spec/issuer")))
        options.verificationTime = verifyAt
        return options
    }

    /// Fills a store: a pretty-printed R4 Bundle, a DSTU2 Bundle, NDJSON, a file under a named
    /// source, a card, and samples (one with a malformed signature, kept and marked).
    static func fill(_ store: any HealthStore) async throws {
        let fhir = FixtureFiles.url("data/fhir")
        var report = await RecordImporter(store: store).importPaths([
            fhir.appendingPathComponent("synthea/Antonio_Castellanos_6d2eba67-5b4a-403f-a29f-e6da3f1ea963.json").path,
            fhir.appendingPathComponent("dstu2/synthea/OReilly_Ayako_84.json").path,
            fhir.appendingPathComponent("ndjson/AllergyIntolerance.000.ndjson").path,
            fhir.appendingPathComponent("r4-examples/medicationrequest0301.json").path,
        ])
        #expect(report.succeeded)
        var named = RecordImporter.Options()
        named.source = RecordSource(identifier: "clinic-7", name: "Good Health Clinic")
        report = await RecordImporter(store: store, options: named).importPaths([fhir.appendingPathComponent("r4-examples/observation-example-f001-glucose.json").path])
        #expect(report.succeeded)
        report = await RecordImporter(store: store, options: cardOptions).importPaths([FixtureFiles.url("vectors/shc-spec/example-00-e-file.smart-health-card").path])
        #expect(report.succeeded)
        let source = RecordSource(identifier: "meter-1", name: "Glucose Meter")
        let samples = [
            try QuantitySample(
                type: .bloodGlucose, value: "5.40", unit: "mmol/L", startDate: Date(timeIntervalSince1970: 1_700_000_000.123), source: source,
                device: SampleDevice(identifier: "GM-1", name: "Meter", manufacturer: "Acme", model: "G1"), metadata: ["note": "fasting"]),
            try QuantitySample(
                type: .heartRate, value: "61", unit: "/min", startDate: Date(timeIntervalSince1970: 1_700_000_100), endDate: Date(timeIntervalSince1970: 1_700_000_160),
                source: source, metadata: [SampleMetadataKey.digitalSignature: "AAAA"]),
        ]
        _ = try await store.saveSamples(samples)
    }

    /// Everything a person sees of a store, keyed by identity.
    struct Snapshot: Equatable {
        var resources: [String: [String]] = [:]
        var bytes: [String: Data] = [:]
        var cards: [String: String] = [:]
        var samples: Set<QuantitySample> = []
        var sources: Set<RecordSource> = []
    }

    static func snapshot(_ store: any HealthStore) async throws -> Snapshot {
        var s = Snapshot()
        for keyed in try await store.resources(ResourceQuery(resourceTypes: nil), visible: nil, countingTotal: false).resources {
            let r = keyed.stored
            let key = "\(r.source.identifier)|\(r.resource.resourceType.rawValue)|\(r.resource.identifier)"
            s.resources[key] = [
                r.source.name, r.resource.fhirVersion.stringRepresentation, r.displayName, r.clinicalType?.name ?? "-", "\(r.category)",
                r.clinicalDate.map { "\($0)" } ?? "-", r.resource.sourceURL?.absoluteString ?? "-",
            ]
            s.bytes[key] = r.resource.data
        }
        for card in try await store.verifiableRecords(VerifiableRecordQuery()) { s.cards[card.record.jws] = "\(card.status)|\(card.record.itemNames)" }
        s.samples = Set(try await store.samples(QuantitySampleQuery(type: nil)).map(\.sample))
        s.sources = Set(try await store.sources())
        return s
    }

    @Test(arguments: ImportEngine.available, ImportEngine.available)
    func exportThenImportGivesTheSameRecordsAndBytes(from: ImportEngine, to: ImportEngine) async throws {
        let dir = TemporaryDirectory()
        let source = try await from.open(in: dir)
        try await Self.fill(source)
        let zip = dir.path("export.zip")
        let summary = try await ExportWriter(store: source).write(to: zip)
        #expect(summary.manifest.counts["cards"] == 1)
        #expect(summary.manifest.counts["samples"] == 2)

        let targetDir = TemporaryDirectory()
        let target = try await to.open(in: targetDir)
        let archive = try ExportArchive(path: zip)
        let report = try await ExportImporter(store: target, options: Self.cardOptions).importArchive(archive)
        #expect(report.cardsVerified == 1)
        #expect(report.samplesSaved == 2)

        let before = try await Self.snapshot(source)
        let after = try await Self.snapshot(target)
        #expect(before.resources.count > 100)
        #expect(after.resources == before.resources)
        #expect(after.bytes == before.bytes, "every resource's stored bytes come back byte for byte")
        #expect(after.cards == before.cards)
        #expect(after.samples == before.samples)
        for b in before.samples {
            let a = after.samples.first { $0.uuid == b.uuid }
            #expect(a?.startDate.timeIntervalSinceReferenceDate == b.startDate.timeIntervalSinceReferenceDate)
            #expect(a?.endDate.timeIntervalSinceReferenceDate == b.endDate.timeIntervalSinceReferenceDate)
            #expect(a?.metadata == b.metadata)
            #expect(a?.device == b.device)
            #expect(a?.source == b.source)
            #expect(a?.value == b.value && a?.unit == b.unit && a?.type == b.type)
        }

        // Importing it again changes nothing.
        let again = try await ExportImporter(store: target, options: Self.cardOptions).importArchive(archive)
        #expect(again.totals.inserted == 0 && again.totals.updated == 0)
        #expect(again.samplesSaved == 0 && again.samplesUnchanged == 2)
        #expect(try await Self.snapshot(target) == after)
    }

    @Test func pretty_printedResourcesStayValidNDJSON() async throws {
        let dir = TemporaryDirectory()
        let store = try await ImportEngine.sqlite.open(in: dir)
        try await Self.fill(store)
        let zip = dir.path("export.zip")
        _ = try await ExportWriter(store: store).write(to: zip)
        let reader = try ZipReader(path: zip)
        let files = reader.entries.filter { $0.name.hasSuffix(".ndjson") && !$0.name.hasSuffix(".meta.ndjson") && $0.name.hasPrefix("resources/") }
        #expect(!files.isEmpty)
        for entry in files {
            for line in try reader.read(entry).split(separator: 0x0A) {
                let value = try JSONReader().read(Array(line))
                #expect(value.objectValue?["resourceType"] != nil, "\(entry.name): each line is one FHIR resource")
            }
        }
    }
}
