import Foundation
import Testing
import TestSupport
import ZlibReference

@testable import HealthArchive

/// Archives that are damaged, lie in their headers, or are built to hurt the reader (bombs,
/// overlapping data, names that escape) are refused by `ZipReader` itself with a typed reason:
/// before anything is inflated where the directory gives it away, else when the entry is read.
/// (`ExportHostileZipTests` in HealthImportTests covers the same through a whole export.)
@Suite struct ZipHostileTests {
    /// The refusal reading one entry of an archive the directory accepted.
    static func readRefusal(_ bytes: [UInt8], entry name: String) throws -> ArchiveError? {
        let reader = try ZipReader(data: Data(bytes))
        let entry = try #require(reader.entry(named: name))
        do {
            _ = try reader.read(entry)
            return nil
        } catch { return error }
    }

    static let honest: [RawZip.Entry] = [
        .deflated("a.ndjson", TestBytes.text(5_000)),
        .stored("b.bin", TestBytes.noise(300, seed: 2)),
        .stored("c.txt", Array("c".utf8)),
    ]

    /// The builder's honest archive reads: what the other tests change is the only fault.
    @Test func theHonestArchiveReads() throws {
        let bytes = RawZip(Self.honest).bytes
        let reader = try ZipReader(data: Data(bytes))
        #expect(reader.entries.map(\.name) == ["a.ndjson", "b.bin", "c.txt"])
        #expect(try reader.read(try #require(reader.entry(named: "a.ndjson"))) == TestBytes.text(5_000))
        #expect(try reader.read(try #require(reader.entry(named: "b.bin"))) == TestBytes.noise(300, seed: 2))
    }

    // MARK: - Not a zip, truncated, damaged

    @Test func whatIsNotAZipIsSaidToBeNone() {
        for bytes: [UInt8] in [[], Array("PK".utf8), [UInt8](repeating: 0, count: 21), [UInt8](repeating: 0, count: 22), Array("just some text, long enough to search".utf8)] {
            #expect(ArchiveFiles.refusal(bytes) == .notAZip, "\(bytes.count) bytes")
        }
    }

    /// A download cut short at any point has lost its end record.
    @Test func everyTruncationIsRefused() {
        let bytes = RawZip(Self.honest).bytes
        for length in 0..<bytes.count {
            #expect(ArchiveFiles.refusal(Array(bytes[..<length])) == .notAZip, "cut at \(length) of \(bytes.count)")
        }
    }

    /// Bytes lost from the middle (the end record intact) leave offsets that point past what
    /// is there.
    @Test func bytesLostFromTheMiddleAreFound() {
        var bytes = RawZip(Self.honest).bytes
        bytes.removeSubrange(40..<50)
        #expect(ArchiveFiles.refusal(bytes)?.kind == "malformed")
    }

    @Test func aDirectoryThatDoesNotHoldWhatTheEndRecordSaysIsRefused() {
        var more = RawZip(Self.honest)
        more.declaredCount = Self.honest.count + 1
        #expect(ArchiveFiles.refusal(more.bytes)?.kind == "malformed", "more entries declared than the directory holds")
        var elsewhere = RawZip(Self.honest)
        elsewhere.declaredDirectoryOffset = 0
        #expect(ArchiveFiles.refusal(elsewhere.bytes)?.kind == "malformed", "the directory's offset names a local header")
        var beyond = RawZip(Self.honest)
        beyond.declaredDirectoryOffset = 1 << 30
        #expect(ArchiveFiles.refusal(beyond.bytes)?.kind == "malformed", "the directory's offset is past the end")
    }

    /// The local header must say what the central directory says: a reader that trusted one
    /// and extracted by the other could be shown one file and write another.
    @Test func localHeadersThatContradictTheDirectoryAreRefused() {
        var renamed = Self.honest
        renamed[1].localName = Array("evil.sh".utf8)
        #expect(ArchiveFiles.refusal(RawZip(renamed).bytes)?.kind == "malformed")
        var method = Self.honest
        method[2].localMethod = 8
        #expect(ArchiveFiles.refusal(RawZip(method).bytes)?.kind == "malformed")
        var pointed = Self.honest
        pointed[2].localHeaderOf = 1  // c.txt's directory entry points at b.bin's header
        #expect(ArchiveFiles.refusal(RawZip(pointed).bytes)?.kind == "malformed")
    }

    @Test func sizesThatCannotBeTrueAreRefused() {
        var stored = Self.honest
        stored[2].size = 2  // a stored entry whose two sizes differ
        #expect(ArchiveFiles.refusal(RawZip(stored).bytes)?.kind == "malformed")
        var past = Self.honest
        past[0].compressedSize = past[0].body.count + 100_000  // data running into the directory
        #expect(ArchiveFiles.refusal(RawZip(past).bytes)?.kind == "malformed")
    }

    @Test func aBadCRCIsFoundWhenTheEntryIsRead() throws {
        for (index, name) in [(0, "a.ndjson"), (1, "b.bin")] {
            var entries = Self.honest
            entries[index].crc ^= 0x8000_0000
            #expect(try Self.readRefusal(RawZip(entries).bytes, entry: name) == .crcMismatch(entry: name))
        }
        // A flipped data byte, the CRC left as it was.
        var flipped = Self.honest
        flipped[1].body[17] ^= 0x01
        #expect(try Self.readRefusal(RawZip(flipped).bytes, entry: "b.bin") == .crcMismatch(entry: "b.bin"))
    }

    @Test func aDamagedDeflateStreamIsRefused() throws {
        var entries = Self.honest
        entries[0].body = [0xFF, 0xFF, 0xFF, 0xFF]  // final block of the reserved type 3
        entries[0].size = 10
        guard case .badCompressedData(let entry, _) = try Self.readRefusal(RawZip(entries).bytes, entry: "a.ndjson") else {
            Issue.record("not refused as damaged DEFLATE data")
            return
        }
        #expect(entry == "a.ndjson")
    }

    /// A stream that ends before the declared size is as wrong as one that runs past it.
    @Test func anEntryThatInflatesShortIsRefused() throws {
        let data = Array("hello".utf8)
        var entry = RawZip.Entry.deflated("short.txt", data)
        entry.size = 50
        #expect(try Self.readRefusal(RawZip([entry]).bytes, entry: "short.txt") == .sizeMismatch(entry: "short.txt", declared: 50, actual: data.count))
    }

    // MARK: - Limits and bombs

    @Test func anEntryBeyondTheEntryLimitIsRefused() {
        let bytes = RawZip([.stored("big.bin", TestBytes.noise(100))]).bytes
        #expect(ArchiveFiles.refusal(bytes, limits: ZipLimits(maxEntryBytes: 99)) == .tooLarge(what: "big.bin", size: 100, limit: 99))
        #expect(ArchiveFiles.refusal(bytes, limits: ZipLimits(maxEntryBytes: 100)) == nil, "exactly at the limit is allowed")
    }

    @Test func contentsBeyondTheTotalLimitAreRefused() {
        let entries = (1...3).map { RawZip.Entry.stored("part-\($0)", TestBytes.noise(40, seed: UInt64($0))) }
        #expect(ArchiveFiles.refusal(RawZip(entries).bytes, limits: ZipLimits(maxTotalBytes: 100)) == .tooLarge(what: "the archive's contents", size: 120, limit: 100))
        #expect(ArchiveFiles.refusal(RawZip(entries).bytes, limits: ZipLimits(maxTotalBytes: 120)) == nil)
    }

    @Test func moreEntriesThanTheLimitAreRefused() throws {
        let entries = (1...4).map { RawZip.Entry.stored("e\($0)", [UInt8($0)]) }
        #expect(ArchiveFiles.refusal(RawZip(entries).bytes, limits: ZipLimits(maxEntries: 3)) == .tooLarge(what: "the number of entries", size: 4, limit: 3))
        // The default limit, with archives our own writer made.
        let dir = TemporaryDirectory()
        let limit = ZipLimits.default.maxEntries
        let many: [(String, [UInt8])] = (0...limit).map { ("e/\($0)", []) }
        let path = try ArchiveFiles.write(many, in: dir)
        do {
            _ = try ZipReader(path: path)
            Issue.record("\(limit + 1) entries were read")
        } catch {
            #expect(error == .tooLarge(what: "the number of entries", size: limit + 1, limit: limit))
        }
    }

    /// DEFLATE cannot do better than 1032:1, so an entry declaring more is lying to make the
    /// reader allocate: refused from the directory, before anything is inflated.
    @Test func aDeclaredSizeBeyondDeflatesBestRatioIsRefused() {
        var bomb = RawZip.Entry.deflated("bomb.bin", [UInt8](repeating: 0, count: 10_000))
        let compressed = bomb.body.count
        bomb.size = compressed * 1032 + 1
        #expect(
            ArchiveFiles.refusal(RawZip([bomb]).bytes)
                == .tooLarge(what: "bomb.bin's declared size", size: compressed * 1032 + 1, limit: compressed * 1032))
    }

    /// A real bomb (zeros deflated by zlib, about a thousand to one) reads under the default
    /// limits and is refused by a reader that allows a smaller ratio.
    @Test func aHighlyCompressedEntryMeetsTheRatioLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let bytes = RawZip([.deflated("zeros.bin", zeros)]).bytes
        #expect(bytes.count < 4 << 10)
        let reader = try ZipReader(data: Data(bytes))
        #expect(try reader.read(try #require(reader.entry(named: "zeros.bin"))) == zeros)
        #expect(ArchiveFiles.refusal(bytes, limits: ZipLimits(maxRatio: 100))?.kind == "tooLarge")
    }

    /// Overlapping entries are how a "better zip bomb" repeats one stream under many names:
    /// here stored entry `a`'s data is entry `b` whole (its local header and data), and the
    /// directory names both.
    @Test func overlappingEntriesAreRefused() {
        let inner = RawZip.Entry.stored("b", Array("inner".utf8))
        // b's local header and data as RawZip lays them out: the one entry of an archive, up to
        // its central directory.
        let single = RawZip([inner]).bytes
        let bLocal = Array(single[..<(30 + inner.name.count + inner.body.count)])
        let outer = RawZip.Entry.stored("a", bLocal)
        // The directory's b names the copy inside a's data (after a's 30-byte header and name).
        var b = inner
        b.localOffset = 30 + outer.name.count
        let bytes = RawZip([outer, b]).bytes
        #expect(ArchiveFiles.refusal(bytes) == .overlappingEntries("b"))
    }

    // MARK: - What the reader does not take

    @Test func encryptionOtherMethodsAndMultipleDisksAreUnsupported() {
        var encrypted = Self.honest
        encrypted[2].flags |= 0x0001
        var strong = Self.honest
        strong[2].flags |= 0x0040
        var bzip2 = Self.honest
        bzip2[1].method = 12
        bzip2[1].localMethod = 12
        var lzma = Self.honest
        lzma[1].method = 14
        lzma[1].localMethod = 14
        var disk = Self.honest
        disk[0].disk = 1
        for (why, entries) in [("encrypted", encrypted), ("strong encryption", strong), ("bzip2", bzip2), ("LZMA", lzma), ("another disk", disk)] {
            #expect(ArchiveFiles.refusal(RawZip(entries).bytes)?.kind == "unsupported", "\(why)")
        }
        var spanned = RawZip(Self.honest)
        spanned.endDisk = 1
        #expect(ArchiveFiles.refusal(spanned.bytes) == .unsupported("multi-disk archive"))
    }

    /// ZIP64 marks sizes and counts with all ones; the export never needs it, so it is refused
    /// rather than misread as 4 GiB.
    @Test func zip64IsUnsupported() {
        var sizes = Self.honest
        sizes[1].compressedSize = 0xFFFF_FFFF
        sizes[1].size = 0xFFFF_FFFF
        #expect(ArchiveFiles.refusal(RawZip(sizes).bytes)?.kind == "unsupported")
        var count = RawZip(Self.honest)
        count.declaredCount = 0xFFFF
        #expect(ArchiveFiles.refusal(count.bytes) == .unsupported("ZIP64"))
    }

    // MARK: - Names

    @Test(arguments: [
        "", "/", "..", "a/..", "../../etc/cron.d/x", "/tmp/x", "a/./b", "a//b", "a\\..\\b", "D:evil.txt", "a\u{7F}b", "\u{1B}[31mred",
        "tab\tname", "line\nbreak", String(repeating: "n", count: 1025),
    ])
    func namesThatCouldEscapeOrDeceiveAreRefused(name: String) {
        let bytes = RawZip([.stored(name, [1])]).bytes
        #expect(ArchiveFiles.refusal(bytes) == .unsafeName(name))
    }

    /// The rule refuses components, not characters: names that merely look odd are kept.
    @Test func oddButHarmlessNamesAreKept() throws {
        let names = ["...", "a..b/c", ".hidden", "spaces in name.txt", "100%.txt", "ünïcödé/名前.json", String(repeating: "n", count: 1024)]
        let reader = try ZipReader(data: Data(RawZip(names.map { .stored($0, [1]) }).bytes))
        #expect(reader.entries.map(\.name) == names)
    }

    @Test func aNameThatIsNotUTF8IsRefused() {
        var entry = RawZip.Entry.stored("x", [1])
        entry.name = [0x61, 0xFF, 0x62]
        #expect(ArchiveFiles.refusal(RawZip([entry]).bytes) == .unsafeName("a\u{FFFD}b"))
    }

    /// One text in two Unicode forms (é precomposed, e + combining accent) is one file on
    /// systems that normalize names: a second copy is a duplicate.
    @Test func namesEqualAsTextAreDuplicates() {
        let bytes = RawZip([.stored("caf\u{E9}.txt", [1]), .stored("cafe\u{301}.txt", [2])]).bytes
        #expect(ArchiveFiles.refusal(bytes)?.kind == "duplicateName")
    }

    @Test func directoriesAreSkippedUnlessTheyHoldData() throws {
        let reader = try ZipReader(data: Data(RawZip([.stored("folder/", []), .stored("folder/file.txt", [1])]).bytes))
        #expect(reader.entries.map(\.name) == ["folder/file.txt"])
        #expect(ArchiveFiles.refusal(RawZip([.stored("folder/", [1])]).bytes)?.kind == "malformed")
    }

    /// The end record is found from the end, past a comment that itself holds its signature.
    @Test func aCommentHoldingTheEndSignatureDoesNotMisleadTheReader() throws {
        var zip = RawZip(Self.honest)
        zip.comment = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0xFF, count: 30)
        let reader = try ZipReader(data: Data(zip.bytes))
        #expect(reader.entries.map(\.name) == ["a.ndjson", "b.bin", "c.txt"])
        #expect(try reader.read(try #require(reader.entry(named: "c.txt"))) == Array("c".utf8))
    }
}
