import Deflate
import Foundation
import Testing
import TestSupport

@testable import HealthArchive

/// What the writer writes, the reader reads back byte for byte: deflated and stored entries,
/// empty ones, names in any script, many entries; and the writer never leaves half an archive.
@Suite struct ZipRoundTripTests {
    /// One of each kind of entry the export writes, and names beyond ASCII.
    static let mixed: [(String, [UInt8])] = [
        ("resources/001-clinic/Observation.ndjson", TestBytes.text(40_000)),
        ("scan.bin", TestBytes.noise(5_000)),
        ("empty.txt", []),
        ("résumé/日本語/カルテ.ndjson", Array("{\"resourceType\":\"Patient\",\"id\":\"p\"}\n".utf8)),
        ("notes/emoji-🩺.txt", Array("stethoscope".utf8)),
        ("one-byte", [0x2A]),
    ]

    @Test func mixedEntriesComeBackByteForByte() throws {
        let dir = TemporaryDirectory()
        let path = try ArchiveFiles.write(Self.mixed, in: dir)
        let fromFile = try ZipReader(path: path)
        let fromBytes = try ZipReader(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        for reader in [fromFile, fromBytes] {
            #expect(reader.entries.map(\.name) == Self.mixed.map(\.0), "central-directory order is the order written")
            for (name, bytes) in Self.mixed {
                let entry = try #require(reader.entry(named: name))
                #expect(entry.size == bytes.count)
                #expect(try reader.read(entry) == bytes, "\(name)")
            }
            #expect(reader.entry(named: "missing.txt") == nil)
            #expect(reader.entry(named: "resume/日本語/カルテ.ndjson") == nil, "names are matched exactly")
        }
    }

    /// The writer deflates what shrinks and stores the rest (and empty files), so noise never
    /// grows and text takes a fraction of its size.
    @Test func compressibleDataIsDeflatedTheRestStored() throws {
        let dir = TemporaryDirectory()
        let reader = try ZipReader(path: try ArchiveFiles.write(Self.mixed, in: dir))
        let text = try #require(reader.entry(named: "resources/001-clinic/Observation.ndjson"))
        #expect(text.method == 8)
        #expect(text.dataRange.count * 4 < text.size, "FHIR text deflates to well under a quarter")
        let noise = try #require(reader.entry(named: "scan.bin"))
        #expect(noise.method == 0 && noise.dataRange.count == noise.size)
        let empty = try #require(reader.entry(named: "empty.txt"))
        #expect(empty.method == 0 && empty.size == 0 && empty.dataRange.isEmpty)
        #expect(try reader.read(empty) == [])
    }

    /// Every compression level reads back; `.stored` (stored DEFLATE blocks, never smaller than
    /// the data) makes the writer store every entry.
    @Test(arguments: Compress.Level.allCases)
    func everyLevelRoundTrips(level: Compress.Level) throws {
        let dir = TemporaryDirectory()
        let path = dir.path("level.zip")
        let writer = try ZipWriter(path: path, level: level)
        for (name, bytes) in Self.mixed { try writer.add(name, bytes) }
        try writer.finish()
        let reader = try ZipReader(path: path)
        for (name, bytes) in Self.mixed {
            #expect(try reader.read(try #require(reader.entry(named: name))) == bytes)
        }
        if level == .stored { #expect(reader.entries.allSatisfy { $0.method == 0 }) }
    }

    @Test func manyEntriesReadBack() throws {
        let dir = TemporaryDirectory()
        let entries = (0..<3_000).map { i in ("records/\(i / 100)/entry-\(i).json", Array("{\"n\":\(i)}".utf8)) }
        let reader = try ZipReader(path: try ArchiveFiles.write(entries, in: dir))
        #expect(reader.entries.count == entries.count)
        for (name, bytes) in entries {
            #expect(try reader.read(try #require(reader.entry(named: name))) == bytes)
        }
    }

    /// An archive handed over as a slice of a larger buffer (indices not starting at 0) reads
    /// the same as on its own.
    @Test func anArchiveInsideALargerBufferReads() throws {
        let dir = TemporaryDirectory()
        let archive = try Data(contentsOf: URL(fileURLWithPath: try ArchiveFiles.write(Self.mixed, in: dir)))
        let buffer = Data(repeating: 0xEE, count: 777) + archive
        let slice = buffer[777...]
        #expect(slice.startIndex == 777)
        let reader = try ZipReader(data: slice)
        for (name, bytes) in Self.mixed {
            #expect(try reader.read(try #require(reader.entry(named: name))) == bytes)
        }
    }

    /// The archive is written beside its destination and renamed into place by `finish()`, and
    /// is readable by its owner only: an export holds health records.
    @Test func theArchiveAppearsWholeAndOwnerOnly() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("export.zip")
        let writer = try ZipWriter(path: path)
        try writer.add("a.txt", Array("a".utf8))
        #expect(!FileManager.default.fileExists(atPath: path), "nothing at the destination before finish()")
        let during = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(during.count == 1 && during[0].hasSuffix(".partial"))
        try writer.finish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["export.zip"])
        let permissions = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(permissions == 0o600)
    }

    @Test func anAbandonedArchiveLeavesNothingBehind() throws {
        let dir = TemporaryDirectory()
        do {
            let writer = try ZipWriter(path: dir.path("abandoned.zip"))
            try writer.add("a.txt", TestBytes.text(1000))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
    }

    /// Without ZIP64 an archive holds at most 65,534 entries: one more is refused at `finish()`,
    /// and the destination is never written.
    @Test func moreEntriesThanZipCountsAreRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("too-many.zip")
        let limit = Int(UInt16.max) - 1
        do {
            let writer = try ZipWriter(path: path)
            for i in 0...limit { try writer.add("e/\(i)", []) }
            do {
                try writer.finish()
                Issue.record("finish() accepted \(limit + 1) entries")
            } catch {
                #expect(error == .tooLarge(what: "the number of entries", size: limit + 1, limit: limit))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
    }

    @Test func aFolderThatDoesNotExistIsAnIOError() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("no/such/folder/x.zip")
        do {
            _ = try ZipWriter(path: path)
            Issue.record("a writer opened in a missing folder")
        } catch {
            guard case .io(let named, _) = error else { Issue.record("not an I/O error: \(error)"); return }
            #expect(named == path)
        }
        do {
            _ = try ZipReader(path: path)
            Issue.record("a reader opened a missing file")
        } catch {
            guard case .io(let named, _) = error else { Issue.record("not an I/O error: \(error)"); return }
            #expect(named == path)
        }
    }

    /// Zip stores local date and time in DOS fields, which start in 1980: an earlier date is
    /// written as 1980 rather than wrapping into another century.
    @Test func datesBefore1980AreWrittenAs1980() throws {
        let dir = TemporaryDirectory()
        let path = try ArchiveFiles.write([("a.txt", [1])], in: dir, date: Date(timeIntervalSince1970: 86_400 * 400))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let dosDate = RawZip.u16(bytes, 12)  // the local header's date
        #expect(dosDate >> 9 == 0, "year field 0 is 1980")
        #expect(try ZipReader(path: path).entries.count == 1)
    }
}
