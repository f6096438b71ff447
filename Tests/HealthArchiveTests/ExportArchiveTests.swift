import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

// `@testable` for `ExportManifest.File`'s memberwise initializer (the writer's own).
@testable import HealthArchive

/// `ExportArchive` over exports laid out by hand (no store): what it reads back from a good one,
/// and the contradictions between manifest, files and lines it refuses.
@Suite struct ExportArchiveTests {
    /// One file of an export before it is zipped.
    struct Part {
        var path: String
        var kind: ExportManifest.Kind
        var bytes: [UInt8]
        var count: Int
        var source: String? = nil
        var type: String? = nil
    }

    static let prettyObservation = Array(
        """
        {\r
          "resourceType": "Observation",
          "id": "glucose-1",
          "status": "final",
          "code": {"text": "Glucose"},
          "valueQuantity": {"value": 5.40, "unit": "mmol/L"}
        }
        """.utf8)
    static let compactPatient = Array(#"{"resourceType":"Patient","id":"p1","name":[{"text":"Ana"}]}"#.utf8)
    static let observationMeta = ResourceMeta(
        resourceType: "Observation", id: "glucose-1", fhirVersion: "4.0.1", fullUrl: "https://ehr.example.org/fhir/Observation/glucose-1",
        displayName: "Glucose", lf: LineBreaks.flatten(prettyObservation).lf, cr: LineBreaks.flatten(prettyObservation).cr)
    static let patientMeta = ResourceMeta(resourceType: "Patient", id: "p1", fhirVersion: "4.0.1", fullUrl: nil, displayName: "Ana", lf: [], cr: [])

    static func sample() throws -> QuantitySample {
        // A fixed id: the sample is made again to compare with what reads back.
        try QuantitySample(
            uuid: UUID(uuidString: "6E1F4A0C-2B7D-4C55-9F39-0B7C3D2A1E10")!, type: .bloodGlucose, value: "5.40", unit: "mmol/L", startDate: Date(timeIntervalSince1970: 1_700_000_000.5),
            source: RecordSource(identifier: "meter", name: "Meter"))
    }

    /// A complete export: one source with an Observation file (a pretty-printed resource) and a
    /// Patient file, no cards, one sample.
    static func parts() throws -> [Part] {
        let source = SourceLine(directory: "001-clinic", identifier: "provider:clinic", name: "Clinic")
        return [
            Part(path: "sources.ndjson", kind: .sources, bytes: source.encoded() + [0x0A], count: 1),
            Part(
                path: "resources/001-clinic/Observation.ndjson", kind: .resources, bytes: LineBreaks.flatten(prettyObservation).line + [0x0A], count: 1,
                source: "001-clinic", type: "Observation"),
            Part(
                path: "resources/001-clinic/Observation.meta.ndjson", kind: .resourceMeta, bytes: observationMeta.encoded() + [0x0A], count: 1,
                source: "001-clinic", type: "Observation"),
            Part(path: "resources/001-clinic/Patient.ndjson", kind: .resources, bytes: compactPatient + [0x0A], count: 1, source: "001-clinic", type: "Patient"),
            Part(
                path: "resources/001-clinic/Patient.meta.ndjson", kind: .resourceMeta, bytes: patientMeta.encoded() + [0x0A], count: 1, source: "001-clinic",
                type: "Patient"),
            Part(path: "cards/cards.ndjson", kind: .cardIndex, bytes: [], count: 0),
            Part(path: "samples/samples.ndjson", kind: .samples, bytes: SampleLine.encode(try sample()) + [0x0A], count: 1),
        ]
    }

    /// Zips parts with a manifest listing `listed` (the parts themselves unless told otherwise).
    static func write(_ parts: [Part], listed: [Part]? = nil, in dir: TemporaryDirectory, name: String = "export.zip") throws -> String {
        let files = (listed ?? parts).map { p in
            ExportManifest.File(
                path: p.path, kind: p.kind, bytes: p.bytes.count, sha256: ExportManifest.sha256Hex(p.bytes), count: p.count, sourceDirectory: p.source,
                resourceType: p.type)
        }
        let manifest = ExportManifest(created: Date(timeIntervalSince1970: 1_700_000_000), generator: "ExportArchiveTests", files: files)
        var entries: [(String, [UInt8])] = parts.map { ($0.path, $0.bytes) }
        entries.append((ExportManifest.entryName, manifest.encoded()))
        return try ArchiveFiles.write(entries, in: dir, name: name)
    }

    static func refusal(_ path: String) -> ArchiveError? {
        do {
            let archive = try ExportArchive(path: path)
            try archive.checkResources()
            return nil
        } catch { return error }
    }

    @Test func aHandMadeExportReadsBackExactly() throws {
        let dir = TemporaryDirectory()
        let path = try Self.write(try Self.parts(), in: dir)
        #expect(ExportArchive.looksLikeExport(path: path))
        let archive = try ExportArchive(path: path)
        #expect(archive.manifest.generator == "ExportArchiveTests")
        #expect(archive.sources.map(\.line) == [SourceLine(directory: "001-clinic", identifier: "provider:clinic", name: "Clinic")])
        let source = try #require(archive.sources.first)
        #expect(source.files.map { $0.resources } == ["resources/001-clinic/Observation.ndjson", "resources/001-clinic/Patient.ndjson"])
        #expect(source.files.map { $0.meta } == ["resources/001-clinic/Observation.meta.ndjson", "resources/001-clinic/Patient.meta.ndjson"])
        #expect(archive.cards.isEmpty)
        #expect(archive.sampleCount == 1)
        #expect(try archive.samples() == [Self.sample()])

        let resources = try archive.resources(of: source)
        #expect(resources.map(\.resource.identifier) == ["glucose-1", "p1"])
        #expect(resources.map(\.resource.resourceType.rawValue) == ["Observation", "Patient"])
        // The pretty-printed resource comes back with its line breaks (CR LF and LF) in place.
        #expect(resources[0].resource.data == Data(Self.prettyObservation))
        #expect(resources[1].resource.data == Data(Self.compactPatient))
        #expect(resources.map(\.resource.fhirVersion.stringRepresentation) == ["4.0.1", "4.0.1"])
        #expect(resources.map(\.displayName) == ["Glucose", "Ana"])
        #expect(resources[0].fullUrl == Self.observationMeta.fullUrl && resources[1].fullUrl == nil)
        #expect(resources[0].resource.sourceURL?.absoluteString == Self.observationMeta.fullUrl)
        try archive.checkResources()
        #expect(try archive.file("sources.ndjson") == Self.parts()[0].bytes)
    }

    @Test func onlyAZipLooksLikeAnExport() throws {
        let dir = TemporaryDirectory()
        #expect(!ExportArchive.looksLikeExport(path: try dir.write("bundle.json", #"{"resourceType":"Bundle"}"#)))
        #expect(!ExportArchive.looksLikeExport(path: dir.path("missing.zip")))
        #expect(!ExportArchive.looksLikeExport(path: try dir.write("empty.zip", Data())))
    }

    @Test func aFileListedTwiceIsRefused() throws {
        let dir = TemporaryDirectory()
        let parts = try Self.parts()
        #expect(Self.refusal(try Self.write(parts, listed: parts + [parts[0]], in: dir))?.kind == "badManifest")
    }

    @Test func aListedFileTheZipLacksIsMissing() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        let listed = parts
        let patient = parts.remove(at: 3)
        #expect(Self.refusal(try Self.write(parts, listed: listed, in: dir)) == .missingEntry(patient.path))
    }

    @Test func aResourceFileWithoutItsMetaIsRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        let meta = parts.remove(at: 4)
        #expect(Self.refusal(try Self.write(parts, in: dir)) == .missingEntry(meta.path))
    }

    @Test func aResourceFileOfNoListedSourceIsRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts.append(Part(path: "resources/009-nobody/Patient.ndjson", kind: .resources, bytes: Self.compactPatient + [0x0A], count: 1, source: "009-nobody", type: "Patient"))
        parts.append(Part(path: "resources/009-nobody/Patient.meta.ndjson", kind: .resourceMeta, bytes: Self.patientMeta.encoded() + [0x0A], count: 1, source: "009-nobody", type: "Patient"))
        #expect(Self.refusal(try Self.write(parts, in: dir))?.kind == "badManifest")
    }

    @Test func twoSourcesFilesAreRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts.append(Part(path: "sources-2.ndjson", kind: .sources, bytes: [], count: 0))
        #expect(Self.refusal(try Self.write(parts, in: dir))?.kind == "badManifest")
    }

    @Test func aSourceDirectoryNamedTwiceIsRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts[0].bytes += parts[0].bytes
        parts[0].count = 2
        guard case .badContent(let entry, let line, let reason) = Self.refusal(try Self.write(parts, in: dir)) else {
            Issue.record("not refused for its content")
            return
        }
        #expect(entry == "sources.ndjson" && line == 2 && reason.contains("001-clinic"))
    }

    /// The meta file must have a line for every resource line.
    @Test func metaLinesThatDoNotMatchResourceLinesAreRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts[3].bytes += Self.compactPatient + [0x0A]  // two Patients, one meta line
        parts[3].count = 2
        guard case .badContent(let entry, let line, _) = Self.refusal(try Self.write(parts, in: dir)) else {
            Issue.record("not refused for its content")
            return
        }
        #expect(entry == "resources/001-clinic/Patient.meta.ndjson" && line == 2)
    }

    /// Line-break offsets that do not fall on spaces of the line (a meta line of another
    /// resource) are refused rather than written into the resource's bytes.
    @Test func lineBreaksThatDoNotFitAreRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        var meta = Self.observationMeta
        meta.lf = [0]
        parts[2].bytes = meta.encoded() + [0x0A]
        guard case .badContent(let entry, let line, _) = Self.refusal(try Self.write(parts, in: dir)) else {
            Issue.record("not refused for its content")
            return
        }
        #expect(entry == "resources/001-clinic/Observation.ndjson" && line == 1)
    }

    @Test func aResourceOfAnotherTypeThanItsMetaIsRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts[3].bytes = Array(#"{"resourceType":"Practitioner","id":"p1"}"#.utf8) + [0x0A]
        guard case .badContent(let entry, let line, _) = Self.refusal(try Self.write(parts, in: dir)) else {
            Issue.record("not refused for its content")
            return
        }
        #expect(entry == "resources/001-clinic/Patient.ndjson" && line == 1)
    }

    @Test func aCardLineNamingAnUnlistedCardIsRefused() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        let line = #"{"file":"cards/001.smart-health-card","sourceType":"SMARTHealthCard","status":"verified","trusted":true,"codes":[]}"#
        parts[5].bytes = Array(line.utf8) + [0x0A]
        parts[5].count = 1
        #expect(Self.refusal(try Self.write(parts, in: dir)) == .missingEntry("cards/001.smart-health-card"))
    }

    @Test func aBadSampleLineIsRefusedWithItsLine() throws {
        let dir = TemporaryDirectory()
        var parts = try Self.parts()
        parts[6].bytes += Array(#"{"id":"x"}"#.utf8) + [0x0A]
        parts[6].count = 2
        guard case .badContent(let entry, let line, _) = Self.refusal(try Self.write(parts, in: dir)) else {
            Issue.record("not refused for its content")
            return
        }
        #expect(entry == "samples/samples.ndjson" && line == 2)
    }

    /// The manifest's names are checked as the zip's are: a listed `../` path is refused even
    /// when the zip holds no such entry.
    @Test func aListedNameThatEscapesIsRefused() throws {
        let dir = TemporaryDirectory()
        let parts = try Self.parts()
        #expect(Self.refusal(try Self.write(parts, listed: parts + [Part(path: "../outside.txt", kind: .card, bytes: [], count: 1)], in: dir)) == .unsafeName("../outside.txt"))
    }
}
