import Foundation
import Testing
import TestSupport

@testable import HealthArchive

/// An export is a person's copy of their records: any unzip must open it, and archives other
/// tools wrote must open here. Info-ZIP's `zip`/`unzip` and Python's `zipfile` (which uses the
/// system zlib) stand for the rest of the world.
@Suite struct ZipInteropTests {
    /// Entries our writer deflates and stores, an empty one, and names beyond ASCII.
    static let entries: [(String, [UInt8])] = [
        ("manifest.json", Array("{\"format\":\"healthrecords-export\"}\n".utf8)),
        ("resources/001-clinic/Observation.ndjson", TestBytes.text(200_000)),
        ("cards/001.smart-health-card", TestBytes.noise(3_000, seed: 4)),
        ("samples/samples.ndjson", []),
        ("résumé/日本語/カルテ.ndjson", Array("{}\n".utf8)),
    ]

    /// What Python's `zipfile` says of an archive: each entry's header fields and the SHA-256
    /// of its data, and the first entry whose CRC fails (`testzip`).
    struct PythonListing: Decodable {
        struct Entry: Decodable {
            let name: String
            let size: Int
            let method: Int
            let crc: UInt32
            let date: [Int]
            let utf8: Bool
            let sha256: String
        }
        let bad: String?
        let entries: [Entry]
    }

    static let listScript = """
        import hashlib, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            entries = [{"name": i.filename, "size": i.file_size, "method": i.compress_type, "crc": i.CRC,
                        "date": list(i.date_time), "utf8": bool(i.flag_bits & 0x800),
                        "sha256": hashlib.sha256(z.read(i)).hexdigest()} for i in z.infolist()]
            print(json.dumps({"bad": z.testzip(), "entries": entries}))
        """

    @Test(.enabled(if: ExternalTool.python3 != nil, "python3 reads our archives"))
    func pythonReadsWhatWeWrite() throws {
        let dir = TemporaryDirectory()
        // A local time with even seconds: DOS time keeps two-second steps.
        let date = try #require(Calendar.current.date(from: DateComponents(year: 2024, month: 7, day: 14, hour: 9, minute: 41, second: 26)))
        let path = try ArchiveFiles.write(Self.entries, in: dir, date: date)
        let run = try ExternalTool.run(ExternalTool.python3!, ["-c", Self.listScript, path], in: dir.url)
        #expect(run.status == 0, "\(run.stderr)")
        let listing = try JSONDecoder().decode(PythonListing.self, from: run.stdout)
        #expect(listing.bad == nil, "zipfile's CRC check passes every entry")
        #expect(listing.entries.map(\.name) == Self.entries.map(\.0))
        let reader = try ZipReader(path: path)
        for (theirs, (name, bytes)) in zip(listing.entries, Self.entries) {
            #expect(theirs.size == bytes.count, "\(name)")
            #expect(theirs.sha256 == ExportManifest.sha256Hex(bytes), "\(name)")
            #expect(theirs.crc == zlibCRC32(bytes), "\(name)")
            #expect(theirs.utf8, "\(name): names are flagged UTF-8, so no tool reads them as CP437")
            #expect(theirs.date == [2024, 7, 14, 9, 41, 26], "\(name)")
            let ours = try #require(reader.entry(named: name))
            #expect(theirs.method == Int(ours.method), "\(name)")
        }
        #expect(Set(listing.entries.map(\.method)) == [0, 8], "both stored and deflated entries were checked")
    }

    @Test(.enabled(if: ExternalTool.unzip != nil, "Info-ZIP's unzip tests our archives"))
    func unzipTestsWhatWeWrite() throws {
        let dir = TemporaryDirectory()
        let path = try ArchiveFiles.write(Self.entries, in: dir)
        let run = try ExternalTool.run(ExternalTool.unzip!, ["-t", path], in: dir.url)
        #expect(run.status == 0, "\(run.text)\(run.stderr)")
        #expect(run.text.contains("No errors detected"))
        // And extracts them as written (names included).
        let out = dir.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let extract = try ExternalTool.run(ExternalTool.unzip!, ["-q", path, "-d", out.path], in: dir.url, environment: ["LC_ALL": "C.UTF-8"])
        #expect(extract.status == 0, "\(extract.stderr)")
        for (name, bytes) in Self.entries where name.allSatisfy(\.isASCII) {
            #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(bytes), "\(name)")
        }
    }

    /// Files on disk, laid out as the other tools' archives will hold them.
    static func sourceTree(in dir: TemporaryDirectory) throws -> [String: [UInt8]] {
        let files: [String: [UInt8]] = [
            "Observation.ndjson": TestBytes.text(1 << 20),
            "sub/Condition.ndjson": TestBytes.text(3_000),
            "scan.bin": TestBytes.noise(20_000, seed: 11),
            "empty.txt": [],
            "日本/résumé.txt": Array("résumé\n".utf8),
        ]
        for (name, bytes) in files { try dir.write("src/" + name, Data(bytes)) }
        return files
    }

    /// Info-ZIP adds directory entries and extra fields, and stores what does not shrink
    /// (`-n .bin` forces it for the noise); our reader skips the directories and reads the rest.
    @Test(.enabled(if: ExternalTool.zip != nil, "Info-ZIP's zip writes an archive for us to read"))
    func weReadWhatInfoZipWrites() throws {
        let dir = TemporaryDirectory()
        let files = try Self.sourceTree(in: dir)
        let path = dir.path("infozip.zip")
        let run = try ExternalTool.run(ExternalTool.zip!, ["-q", "-r", "-n", ".bin", path, "."], in: dir.url.appendingPathComponent("src"))
        #expect(run.status == 0, "\(run.stderr)")
        let reader = try ZipReader(path: path)
        #expect(Set(reader.entries.map(\.name)) == Set(files.keys), "directory entries are left out")
        for (name, bytes) in files {
            #expect(try reader.read(try #require(reader.entry(named: name))) == bytes, "\(name)")
        }
        #expect(Set(reader.entries.map(\.method)) == [0, 8], "zlib-deflated and stored entries were both read")
    }

    static let writeScript = """
        import json, sys, zipfile
        spec = json.load(open(sys.argv[1], encoding="utf-8"))
        with zipfile.ZipFile(sys.argv[2], "w") as z:
            for d in spec["directories"]:
                z.writestr(zipfile.ZipInfo(d), b"")
            for e in spec["entries"]:
                with open(e["file"], "rb") as f:
                    data = f.read()
                if e["stored"]:
                    z.writestr(e["name"], data, compress_type=zipfile.ZIP_STORED)
                else:
                    z.writestr(e["name"], data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
            z.comment = spec["comment"].encode("utf-8")
        """

    /// Python's `zipfile` flags non-ASCII names UTF-8, deflates with zlib at level 9 and can
    /// end the archive with a comment (the end record is then not the last 22 bytes).
    @Test(.enabled(if: ExternalTool.python3 != nil, "python3 writes an archive for us to read"))
    func weReadWhatPythonWrites() throws {
        let dir = TemporaryDirectory()
        let files = try Self.sourceTree(in: dir)
        let spec: [String: Any] = [
            "directories": ["sub/", "日本/"],
            "entries": files.keys.sorted().map { name in
                ["name": name, "file": dir.path("src/" + name), "stored": name.hasSuffix(".bin") || name.hasSuffix(".txt")] as [String: Any]
            },
            "comment": "written by Python's zipfile — a comment after the end record's fixed part",
        ]
        let specPath = try dir.write("spec.json", try JSONSerialization.data(withJSONObject: spec))
        let path = dir.path("python.zip")
        let run = try ExternalTool.run(ExternalTool.python3!, ["-c", Self.writeScript, specPath, path], in: dir.url)
        #expect(run.status == 0, "\(run.stderr)")
        let reader = try ZipReader(path: path)
        #expect(reader.entries.map(\.name) == files.keys.sorted(), "in the order written, directories left out")
        for (name, bytes) in files {
            let entry = try #require(reader.entry(named: name))
            #expect(entry.method == (name.hasSuffix(".bin") || name.hasSuffix(".txt") ? 0 : 8), "\(name)")
            #expect(try reader.read(entry) == bytes, "\(name)")
        }
    }
}
