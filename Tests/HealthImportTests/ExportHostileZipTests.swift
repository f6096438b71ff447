import ClinicalRecords
import Deflate
import FHIR
import Foundation
import HealthArchive
import HealthImport
import HealthStoreCore
import Testing
import TestSupport

/// Zips that are not honest exports are refused with a typed reason, before anything is
/// written: bombs, names that escape, damaged data, a missing or contradicted manifest.
@Suite struct ExportHostileZipTests {
    /// A zip of the given entries, written with the project's writer (which checks no names).
    static func zip(_ dir: TemporaryDirectory, _ entries: [(String, [UInt8])], name: String = "x.zip") throws -> String {
        let path = dir.path(name)
        let w = try ZipWriter(path: path)
        for (n, bytes) in entries { try w.add(n, bytes) }
        try w.finish()
        return path
    }

    static func refusal(_ path: String, limits: ZipLimits = .default) -> ArchiveError? {
        do {
            _ = try ExportArchive(path: path, limits: limits)
            return nil
        } catch { return error }
    }

    @Test func refusesWhatIsNotAZip() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("not.zip", "PK\u{3}\u{4} but nothing else")
        #expect(Self.refusal(path) == .notAZip)
    }

    @Test(arguments: ["../escape.txt", "/etc/passwd", "a/../../b", "C:\\x", "a//b", "./a", "a\u{0}b"])
    func refusesNamesThatEscape(name: String) throws {
        let dir = TemporaryDirectory()
        let path = try Self.zip(dir, [(name, Array("x".utf8))])
        #expect(Self.refusal(path) == .unsafeName(name))
    }

    @Test func refusesAZipBombByItsSize() throws {
        let dir = TemporaryDirectory()
        let bomb = [UInt8](repeating: 0, count: 8 << 20)
        let path = try Self.zip(dir, [("manifest.json", bomb)])
        #expect((try Data(contentsOf: URL(fileURLWithPath: path))).count < 64 << 10, "8 MiB of zeros compress to a few KiB")
        guard case .tooLarge = Self.refusal(path, limits: ZipLimits(maxEntryBytes: 1 << 20)) else { Issue.record("not refused as too large"); return }
        guard case .tooLarge = Self.refusal(path, limits: ZipLimits(maxTotalBytes: 1 << 20)) else { Issue.record("not refused as too large in all"); return }
    }

    @Test func refusesAnEntryThatInflatesBeyondItsDeclaredSize() throws {
        let dir = TemporaryDirectory()
        let path = try Self.zip(dir, [("manifest.json", [UInt8](repeating: 0x41, count: 100_000))])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // Declare 1,000 bytes in both headers: the inflater stops there.
        Self.patch32(&bytes, at: 22, 1000)
        let central = Self.find(bytes, [0x50, 0x4B, 0x01, 0x02])!
        Self.patch32(&bytes, at: central + 24, 1000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(path) == .sizeMismatch(entry: "manifest.json", declared: 1000, actual: 1001))
    }

    @Test func refusesABadCRC() throws {
        let dir = TemporaryDirectory()
        let path = try Self.zip(dir, [("manifest.json", Array("{}".utf8))])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[30 + "manifest.json".utf8.count] ^= 0x01  // the stored data's first byte
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(path) == .crcMismatch(entry: "manifest.json"))
    }

    @Test func refusesDuplicateNames() throws {
        let dir = TemporaryDirectory()
        let path = try Self.zip(dir, [("a.txt", [1]), ("a.txt", [2])])
        #expect(Self.refusal(path) == .duplicateName("a.txt"))
    }

    @Test func refusesAZipWithoutAManifest() throws {
        let dir = TemporaryDirectory()
        let path = try Self.zip(dir, [("Observation.ndjson", Array("{}\n".utf8))])
        #expect(Self.refusal(path) == .missingManifest)
    }

    /// A real export with one file changed (its CRC fixed, so only the manifest can tell).
    @Test func refusesAChangedFileAndWritesNothing() async throws {
        let dir = TemporaryDirectory()
        let store = try await ImportEngine.sqlite.open(in: dir)
        let obs = #"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"Glucose"},"valueQuantity":{"value":5.4,"unit":"mmol/L"}}"#
        let classified = try RecordBuilder().classify(try FHIRResource(data: Data(obs.utf8)))
        _ = try await store.importResources(source: RecordSource(identifier: "lab"), from: ResourceList([classified]))
        let original = dir.path("export.zip")
        _ = try await ExportWriter(store: store).write(to: original)
        let reader = try ZipReader(path: original)
        var entries: [(String, [UInt8])] = []
        for e in reader.entries {
            var bytes = try reader.read(e)
            if e.name.hasSuffix("Observation.ndjson") { bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "5.4", with: "9.9").utf8) }
            entries.append((e.name, bytes))
        }
        let tampered = try Self.zip(dir, entries, name: "tampered.zip")
        let error = Self.refusal(tampered)
        guard case .hashMismatch(let entry) = error else { Issue.record("not refused: \(String(describing: error))"); return }
        #expect(entry.hasSuffix("Observation.ndjson"))

        let unlisted = try Self.zip(dir, (try reader.entries.map { ($0.name, try reader.read($0)) }) + [("notes.txt", [1])], name: "unlisted.zip")
        #expect(Self.refusal(unlisted) == .unlistedEntry("notes.txt"))

        let fresh = try await ImportEngine.sqlite.open(in: TemporaryDirectory())
        #expect(try await fresh.sources().isEmpty, "nothing of a refused export is written")
    }

    /// A line that does not fit its meta is found before the first source is written.
    @Test func refusesABadLineBeforeWritingAnySource() async throws {
        let dir = TemporaryDirectory()
        let store = try await ImportEngine.sqlite.open(in: dir)
        for (n, source) in ["a", "b"].enumerated() {
            let obs = #"{"resourceType":"Observation","id":"o\#(n)","status":"final","code":{"text":"Glucose"}}"#
            let classified = try RecordBuilder().classify(try FHIRResource(data: Data(obs.utf8)))
            _ = try await store.importResources(source: RecordSource(identifier: source), from: ResourceList([classified]))
        }
        let path = dir.path("export.zip")
        let summary = try await ExportWriter(store: store).write(to: path)
        // Rebuild the export with a bad second source, its manifest hashes made to match.
        let reader = try ZipReader(path: path)
        var manifest = summary.manifest
        var entries: [(String, [UInt8])] = []
        for e in reader.entries where e.name != ExportManifest.entryName {
            var bytes = try reader.read(e)
            if e.name.hasPrefix("resources/002") && e.name.hasSuffix("Observation.ndjson") {
                bytes = Array(#"{"resourceType":"Patient","id":"o1"}"#.utf8) + [0x0A]
                let i = manifest.files.firstIndex { $0.path == e.name }!
                manifest.files[i].bytes = bytes.count
                manifest.files[i].sha256 = Self.sha256Hex(bytes)
            }
            entries.append((e.name, bytes))
        }
        entries.append((ExportManifest.entryName, manifest.encoded()))
        let bad = try Self.zip(dir, entries, name: "bad.zip")
        let archive = try ExportArchive(path: bad)
        let target = try await ImportEngine.sqlite.open(in: TemporaryDirectory())
        await #expect(throws: ArchiveError.self) { try await ExportImporter(store: target).importArchive(archive) }
        #expect(try await target.sources().isEmpty, "the first source was not written either")
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { ExportManifest.sha256Hex(bytes) }

    static func patch32(_ b: inout [UInt8], at: Int, _ v: UInt32) {
        for i in 0..<4 { b[at + i] = UInt8((v >> (8 * UInt32(i))) & 0xFF) }
    }

    static func find(_ b: [UInt8], _ pattern: [UInt8]) -> Int? {
        guard b.count >= pattern.count else { return nil }
        for i in 0...(b.count - pattern.count) where Array(b[i..<(i + pattern.count)]) == pattern { return i }
        return nil
    }
}
