import ClinicalRecords
import FHIR
import Foundation
import TestSupport
import HealthStoreCore
import SmartHealthCards
import Testing

// `@testable` for `ExportManifest.File`'s memberwise initializer (the writer's own).
@testable import HealthArchive

/// One resource per NDJSON line with its exact bytes recoverable: line breaks become spaces and
/// their offsets go to the meta line.
@Suite struct LineBreaksTests {
    @Test(arguments: [
        "{\n  \"resourceType\": \"Patient\",\n  \"id\": \"p1\"\n}\n",
        "{\r\n  \"resourceType\": \"Patient\",\r\n  \"id\": \"p1\"\r\n}",
        "{\r\"resourceType\":\"Patient\",\r\"id\":\"p1\"}",
        "\n\n{\"resourceType\":\"Patient\",\"name\":[{\"text\":\"line\\nbreak inside a string stays escaped\"}]}\n\r\n",
        "{\"resourceType\":\"Patient\",\"id\":\"no-breaks\"}",
    ])
    func aFlattenedResourceIsTheSameJSONOnOneLineAndComesBack(text: String) throws {
        let original = Array(text.utf8)
        let flat = LineBreaks.flatten(original)
        #expect(flat.line.count == original.count, "a space for each break: offsets stay valid")
        #expect(!flat.line.contains(0x0A) && !flat.line.contains(0x0D))
        #expect(flat.lf == original.indices.filter { original[$0] == 0x0A })
        #expect(flat.cr == original.indices.filter { original[$0] == 0x0D })
        #expect(try JSONReader().read(flat.line) == JSONReader().read(original), "breaks between tokens are whitespace")
        #expect(LineBreaks.restore(flat.line, lf: flat.lf, cr: flat.cr) == original)
    }

    /// A meta line that does not belong to its resource line is caught, not applied.
    @Test func offsetsThatDoNotFitAreRefused() {
        let line = Array(#"{"a": 1}"#.utf8)  // a space at offset 5
        #expect(LineBreaks.restore(line, lf: [5], cr: []) == Array("{\"a\":\n1}".utf8))
        #expect(LineBreaks.restore(line, lf: [0], cr: []) == nil, "not a space")
        #expect(LineBreaks.restore(line, lf: [], cr: [line.count]) == nil, "past the end")
        #expect(LineBreaks.restore(line, lf: [-1], cr: []) == nil)
        #expect(LineBreaks.restore(line, lf: [5], cr: [5]) == nil, "one space cannot be both")
    }
}

/// The meta line beside every resource line.
@Suite struct ResourceMetaTests {
    static let examples = [
        ResourceMeta(resourceType: "Observation", id: "o1", fhirVersion: "4.0.1", fullUrl: nil, displayName: "Glucose", lf: [], cr: []),
        ResourceMeta(
            resourceType: "Patient", id: "p-1.x", fhirVersion: "1.0.2", fullUrl: "urn:uuid:7d0c6a2e-6b1f-4b8e-9a55-000000000001",
            displayName: "Jöhn \"Q\" Públic\nJr.", lf: [1, 20, 41], cr: [0, 19]),
        ResourceMeta(
            resourceType: "Condition", id: "c", fhirVersion: "4.0.1", fullUrl: "https://ehr.example.org/fhir/Condition/c", displayName: "", lf: [], cr: [7]),
    ]

    @Test(arguments: ResourceMetaTests.examples)
    func aMetaLineReadsBackAsWritten(meta: ResourceMeta) throws {
        let line = meta.encoded()
        #expect(!line.contains(0x0A) && !line.contains(0x0D), "one NDJSON line, whatever the name holds")
        #expect(try ResourceMeta(decoding: line) == meta)
        // Empty offset lists and a missing fullUrl are left out, not written empty.
        let object = try #require(try JSONReader().read(line).objectValue)
        #expect((object["lf"] == nil) == meta.lf.isEmpty)
        #expect((object["cr"] == nil) == meta.cr.isEmpty)
        #expect((object["fullUrl"] == nil) == (meta.fullUrl == nil))
    }

    @Test(arguments: [
        "not json",
        #"["resourceType","Observation"]"#,
        #"{"resourceType":"Observation","fhirVersion":"4.0.1","displayName":"x"}"#,
        #"{"resourceType":"Observation","id":"o","displayName":"x"}"#,
        #"{"resourceType":"Observation","id":"o","fhirVersion":"4.0.1","displayName":"x","lf":7}"#,
        #"{"resourceType":"Observation","id":"o","fhirVersion":"4.0.1","displayName":"x","lf":[1.5]}"#,
        #"{"resourceType":"Observation","id":"o","fhirVersion":"4.0.1","displayName":"x","cr":["3"]}"#,
    ])
    func aLineThatIsNotAMetaLineIsRefused(text: String) {
        #expect(throws: ArchiveLineError.self) { try ResourceMeta(decoding: Array(text.utf8)) }
    }
}

/// `sources.ndjson` and `cards/cards.ndjson` lines.
@Suite struct SourceAndCardLineTests {
    @Test func aSourceLineReadsBackAsWritten() throws {
        for line in [
            SourceLine(directory: "001-General-Hospital", identifier: "provider:general", name: "General Hospital"),
            SourceLine(directory: "002", identifier: "Patient.000.ndjson", name: "Ünïcode \"quoted\"\nname"),
        ] {
            let bytes = line.encoded()
            #expect(!bytes.contains(0x0A))
            #expect(try SourceLine(decoding: bytes) == line)
        }
        #expect(throws: ArchiveLineError.self) { try SourceLine(decoding: Array(#"{"directory":"001","identifier":"x"}"#.utf8)) }
    }

    @Test func aCardLineReadsBackAsWritten() throws {
        let texts = [
            #"{"file":"cards/001.smart-health-card","sourceType":"SMARTHealthCard","status":"verified","trusted":true,"codes":[]}"#,
            #"{"file":"cards/002.hc1.txt","sourceType":"EUDigitalCOVIDCertificate","status":"unverified","trusted":false,"codes":["signature.invalid","issuer.untrusted"]}"#,
        ]
        for text in texts {
            let line = try CardLine(decoding: Array(text.utf8))
            let again = try CardLine(decoding: line.encoded())
            #expect(again == line)
            // Read independently: the encoded line says what was read.
            let object = try #require(try JSONReader().read(line.encoded()).objectValue)
            #expect(object["file"]?.stringValue == line.file)
            #expect(object["sourceType"]?.stringValue == line.sourceType.rawValue)
            #expect(object["codes"]?.arrayValue?.compactMap(\.stringValue) == line.codes)
        }
        let unverified = try CardLine(decoding: Array(texts[1].utf8))
        #expect(unverified.sourceType == .euDigitalCOVIDCertificate && unverified.status == "unverified" && unverified.codes.count == 2 && !unverified.trusted)
        // `trusted` and `codes` may be left out; the three others may not.
        let bare = try CardLine(decoding: Array(#"{"file":"cards/003.smart-health-card","sourceType":"SMARTHealthCard","status":"verified"}"#.utf8))
        #expect(!bare.trusted && bare.codes.isEmpty)
        for bad in [
            #"{"file":"f","sourceType":"PaperCard","status":"verified"}"#,
            #"{"file":"f","sourceType":"SMARTHealthCard"}"#,
            #"{"sourceType":"SMARTHealthCard","status":"verified"}"#,
            "",
        ] {
            #expect(throws: ArchiveLineError.self, "\(bad)") { try CardLine(decoding: Array(bad.utf8)) }
        }
    }
}

/// Samples leave the store and come back exactly: value text, millisecond dates, device and
/// metadata (where a signature travels).
@Suite struct SampleLineTests {
    static func samples() throws -> [QuantitySample] {
        let meter = RecordSource(identifier: "meter-1", name: "Glucose Meter")
        return [
            try QuantitySample(
                type: .bloodGlucose, value: "5.40", unit: "mmol/L", startDate: Date(timeIntervalSince1970: 1_700_000_000.123), source: meter,
                device: SampleDevice(identifier: "GM-1", name: "Meter", manufacturer: "Acme", model: "G1"),
                metadata: ["note": "fasting", SampleMetadataKey.digitalSignature: "MIIB+/=="]),
            try QuantitySample(
                type: .heartRate, value: "61", unit: "/min", startDate: Date(timeIntervalSince1970: 1_699_999_000), endDate: Date(timeIntervalSince1970: 1_699_999_060.5),
                source: RecordSource(identifier: "watch")),
            try QuantitySample(
                type: .bodyMass, value: "70.250", unit: "kg", startDate: Date(timeIntervalSince1970: -86_400.5), source: meter,
                device: SampleDevice(identifier: "scale")),
        ]
    }

    @Test func aSampleLineReadsBackExactly() throws {
        for sample in try Self.samples() {
            let line = SampleLine.encode(sample)
            #expect(!line.contains(0x0A))
            let back = try SampleLine.decode(line)
            #expect(back == sample)
            #expect(back.value == sample.value, "the value's text, trailing zeros included")
            #expect(back.startDate.timeIntervalSinceReferenceDate == sample.startDate.timeIntervalSinceReferenceDate)
            #expect(back.endDate.timeIntervalSinceReferenceDate == sample.endDate.timeIntervalSinceReferenceDate)
            #expect(back.digitalSignature == sample.digitalSignature)
            #expect(back.source == sample.source && back.device == sample.device)
        }
    }

    /// A line is checked as a new sample is: a bad one is refused, never stored as it came.
    @Test func aLineThatIsNotAValidSampleIsRefused() throws {
        let good = try #require(try JSONReader().read(SampleLine.encode(try Self.samples()[0])).objectValue)
        func changed(_ key: String, _ value: JSONValue?) -> [UInt8] {
            var object = good
            object[key] = value
            return JSONWriter.minified(.object(object))
        }
        let bad: [(String, [UInt8])] = [
            ("id not a UUID", changed("id", .string("not-a-uuid"))),
            ("unknown type", changed("type", .string("shoe-size"))),
            ("no value", changed("value", nil)),
            ("a unit the type does not take", changed("unit", .string("/min"))),
            ("a value that is not a decimal", changed("value", .string("5,4"))),
            ("a date without a zone", changed("startDate", .string("2023-11-14T22:13:20.123"))),
            ("the end before the start", changed("endDate", .string("2000-01-01T00:00:00.000Z"))),
            ("a device without an identifier", changed("device", .object(JSONObject([JSONMember("name", .string("Meter"))])))),
            ("metadata that is not text", changed("metadata", .object(JSONObject([JSONMember("n", .number(JSONNumber(1)))])))),
            ("not JSON", Array("{".utf8)),
        ]
        for (why, line) in bad {
            #expect(throws: ArchiveLineError.self, "\(why)") { try SampleLine.decode(line) }
        }
    }
}

/// The one way an export writes dates: UTC instants with milliseconds.
@Suite struct ExportDatesTests {
    @Test func datesAreUTCInstantsWithMilliseconds() {
        #expect(ExportDates.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ExportDates.string(Date(timeIntervalSince1970: 1_700_000_000.123)) == "2023-11-14T22:13:20.123Z")
        #expect(ExportDates.string(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
        // Rounded to the nearest millisecond, not truncated.
        #expect(ExportDates.string(Date(timeIntervalSince1970: 1_700_000_000.1239)) == "2023-11-14T22:13:20.124Z")
    }

    /// Every millisecond instant comes back as the same `Date`, before 1970 too.
    @Test func everyMillisecondComesBack() {
        var generator = SplitMix64(seed: 1970)
        for _ in 0..<2_000 {
            let ms = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let text = ExportDates.string(date)
            #expect(ExportDates.date(text) == date, "\(text)")
        }
    }

    @Test func shorterFractionsReadAsMilliseconds() {
        let whole = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(ExportDates.date("2023-11-14T22:13:20Z") == whole)
        #expect(ExportDates.date("2023-11-14T22:13:20.5Z") == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(ExportDates.date("2023-11-14T22:13:20.05Z") == Date(timeIntervalSince1970: 1_700_000_000.05))
    }

    @Test(arguments: ["", "2023-11-14T22:13:20", "2023-11-14T22:13:20+01:00", "2023-11-14T22:13:20.1234Z", "2023-11-14T22:13:20.Z", "2023-11-14T22:13:20.1a2Z", "yesterday Z"])
    func whatIsNotAnInstantIsRefused(text: String) {
        #expect(ExportDates.date(text) == nil)
    }
}

/// `manifest.json`: what the export holds, file by file.
@Suite struct ExportManifestTests {
    static func manifest() -> ExportManifest {
        func file(_ path: String, _ kind: ExportManifest.Kind, _ bytes: [UInt8], count: Int, source: String? = nil, type: String? = nil) -> ExportManifest.File {
            ExportManifest.File(
                path: path, kind: kind, bytes: bytes.count, sha256: ExportManifest.sha256Hex(bytes), count: count, sourceDirectory: source, resourceType: type)
        }
        return ExportManifest(
            created: Date(timeIntervalSince1970: 1_700_000_000.123), generator: "healthrecords test",
            files: [
                file("sources.ndjson", .sources, Array("a\nb\n".utf8), count: 2),
                file("resources/001-a/Observation.ndjson", .resources, Array("x\ny\nz\n".utf8), count: 3, source: "001-a", type: "Observation"),
                file("resources/001-a/Observation.meta.ndjson", .resourceMeta, Array("x\ny\nz\n".utf8), count: 3, source: "001-a", type: "Observation"),
                file("resources/002-b/Patient.ndjson", .resources, Array("p\n".utf8), count: 1, source: "002-b", type: "Patient"),
                file("resources/002-b/Patient.meta.ndjson", .resourceMeta, Array("p\n".utf8), count: 1, source: "002-b", type: "Patient"),
                file("cards/001.smart-health-card", .card, Array("{}".utf8), count: 1),
                file("cards/002.hc1.txt", .card, Array("HC1:".utf8), count: 1),
                file("cards/cards.ndjson", .cardIndex, Array("c\nd\n".utf8), count: 2),
                file("samples/samples.ndjson", .samples, Array("s\n".utf8), count: 1),
            ])
    }

    @Test func aManifestReadsBackAsWritten() throws {
        let manifest = Self.manifest()
        #expect(try ExportManifest(decoding: manifest.encoded()) == manifest)
    }

    /// The totals count lines of sources, resources and samples, and card files (not the
    /// meta or index lines, which would count everything twice).
    @Test func countsAreWhatTheFilesHold() throws {
        let manifest = Self.manifest()
        func total(_ kind: ExportManifest.Kind) -> Int { manifest.files.filter { $0.kind == kind }.reduce(0) { $0 + $1.count } }
        let expected = ["sources": total(.sources), "resources": total(.resources), "cards": manifest.files.filter { $0.kind == .card }.count, "samples": total(.samples)]
        #expect(manifest.counts == expected)
        let written = try #require(try JSONReader().read(manifest.encoded()).objectValue?["counts"]?.objectValue)
        #expect(Dictionary(uniqueKeysWithValues: written.members.map { ($0.key, Int($0.value.numberValue?.text ?? "") ?? -1) }) == expected)
    }

    /// The kinds' names are the file format: an export made today must read in any version.
    @Test func kindNamesAreTheFormats() {
        #expect(ExportManifest.Kind.allCases.map(\.rawValue) == ["sources", "resources", "resource-meta", "card-index", "card", "samples"])
        for kind in ExportManifest.Kind.allCases { #expect(ExportManifest.Kind(rawValue: kind.rawValue) == kind) }
    }

    @Test func sha256IsTheStandardDigestInLowercaseHex() {
        // FIPS 180-2's "abc" example and the digest of nothing.
        #expect(ExportManifest.sha256Hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ExportManifest.sha256Hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Another program's JSON, a newer layout, or a file entry missing what the reader needs
    /// is refused as a bad manifest.
    @Test func whatIsNotThisManifestIsRefused() throws {
        let good = try #require(try JSONReader().read(Self.manifest().encoded()).objectValue)
        func changed(_ edit: (inout JSONObject) -> Void) -> [UInt8] {
            var object = good
            edit(&object)
            return JSONWriter.minified(.object(object))
        }
        func firstFile(_ edit: @escaping (inout JSONObject) -> Void) -> [UInt8] {
            changed { top in
                var files = top["files"]?.arrayValue ?? []
                var first = files[0].objectValue ?? JSONObject()
                edit(&first)
                files[0] = .object(first)
                top["files"] = .array(files)
            }
        }
        let cases: [(String, [UInt8])] = [
            ("not JSON", Array("{".utf8)),
            ("not an object", Array("[]".utf8)),
            ("another format", changed { $0["format"] = .string("other-export") }),
            ("a newer layout", changed { $0["formatVersion"] = .number(JSONNumber(ExportManifest.currentVersion + 1)) }),
            ("no created date", changed { $0["created"] = nil }),
            ("a created date that is not an instant", changed { $0["created"] = .string("today") }),
            ("no files", changed { $0["files"] = nil }),
            ("a file without its hash", firstFile { $0["sha256"] = nil }),
            ("a negative size", firstFile { $0["bytes"] = .number(JSONNumber(-1)) }),
            ("an unknown kind", firstFile { $0["kind"] = .string("photos") }),
        ]
        for (why, bytes) in cases {
            do {
                _ = try ExportManifest(decoding: bytes)
                Issue.record("accepted a manifest with \(why)")
            } catch {
                #expect(error.kind == "badManifest", "\(why): \(error)")
            }
        }
    }
}
