import CZlib
import Foundation
import HealthArchive
import TestSupport
import ZlibReference

/// Test contents: noise that no compressor shrinks (the writer must store it) and FHIR-like
/// text that every compressor shrinks (the writer must deflate it).
enum TestBytes {
    static func noise(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func text(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 128)
        var i = 0
        while out.count < count {
            out += Array(#"{"resourceType":"Observation","id":"obs-\#(i)","valueQuantity":{"value":\#(i % 97).\#(i % 10),"unit":"mmol/L"}}"#.utf8)
            out.append(0x0A)
            i += 1
        }
        return Array(out.prefix(count))
    }
}

/// zlib's CRC-32 (the system library, not ours): the reference `CRC32` is held to.
func zlibCRC32(_ bytes: [UInt8]) -> UInt32 {
    UInt32(bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
}

extension ArchiveError {
    /// The case alone, for checks that pin which refusal it is but not its wording.
    var kind: String {
        switch self {
        case .io: return "io"
        case .notAZip: return "notAZip"
        case .malformed: return "malformed"
        case .unsupported: return "unsupported"
        case .unsafeName: return "unsafeName"
        case .duplicateName: return "duplicateName"
        case .tooLarge: return "tooLarge"
        case .overlappingEntries: return "overlappingEntries"
        case .badCompressedData: return "badCompressedData"
        case .crcMismatch: return "crcMismatch"
        case .sizeMismatch: return "sizeMismatch"
        case .missingManifest: return "missingManifest"
        case .badManifest: return "badManifest"
        case .hashMismatch: return "hashMismatch"
        case .missingEntry: return "missingEntry"
        case .unlistedEntry: return "unlistedEntry"
        case .badContent: return "badContent"
        }
    }
}

/// Writes archives with the project's writer.
enum ArchiveFiles {
    /// A zip of `entries`, in order, at `dir/name`.
    @discardableResult
    static func write(_ entries: [(String, [UInt8])], in dir: TemporaryDirectory, name: String = "test.zip", date: Date = Date()) throws -> String {
        let path = dir.path(name)
        let writer = try ZipWriter(path: path, date: date)
        for (entryName, bytes) in entries { try writer.add(entryName, bytes) }
        try writer.finish()
        return path
    }

    /// The reader's refusal of some bytes, or `nil` when it reads them.
    static func refusal(_ bytes: [UInt8], limits: ZipLimits = .default) -> ArchiveError? {
        do {
            _ = try ZipReader(data: Data(bytes), limits: limits)
            return nil
        } catch { return error }
    }
}

/// A zip archive laid out byte by byte, so a test can make every field say what it likes: what
/// a hostile or broken archive says. Honest entries get zlib's CRC-32 and zlib's DEFLATE, so
/// nothing here is made by the code under test.
struct RawZip {
    struct Entry {
        /// The name in the central directory.
        var name: [UInt8]
        /// The bytes as they lie in the archive (compressed for method 8).
        var body: [UInt8]
        var method: UInt16
        var flags: UInt16 = 0x0800
        /// The CRC-32 the headers declare.
        var crc: UInt32
        /// The inflated size the headers declare.
        var size: Int
        /// The compressed size the headers declare; the body's length when `nil`.
        var compressedSize: Int? = nil
        /// The disk number in the central directory.
        var disk: UInt16 = 0
        /// The local header's name and method, when they should differ from the central directory's.
        var localName: [UInt8]? = nil
        var localMethod: UInt16? = nil
        /// Point the central directory at another entry's local header (by index) instead.
        var localHeaderOf: Int? = nil
        /// Point the central directory at this offset instead.
        var localOffset: Int? = nil

        /// An honest stored entry.
        static func stored(_ name: String, _ data: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), body: data, method: 0, crc: zlibCRC32(data), size: data.count)
        }

        /// An honest entry deflated by zlib.
        static func deflated(_ name: String, _ data: [UInt8]) -> Entry {
            Entry(name: Array(name.utf8), body: ZlibOracle.compress(data), method: 8, crc: zlibCRC32(data), size: data.count)
        }
    }

    var entries: [Entry]
    /// The end record's disk number.
    var endDisk: UInt16 = 0
    /// The entry count the end record declares; the real count when `nil`.
    var declaredCount: Int? = nil
    /// The central directory's offset the end record declares; the real one when `nil`.
    var declaredDirectoryOffset: Int? = nil
    /// The archive's comment.
    var comment: [UInt8] = []

    init(_ entries: [Entry]) { self.entries = entries }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        var offsets: [Int] = []
        for e in entries {
            offsets.append(out.count)
            let localName = e.localName ?? e.name
            Self.put32(0x0403_4B50, &out)
            Self.put16(20, &out)
            Self.put16(e.flags, &out)
            Self.put16(e.localMethod ?? e.method, &out)
            Self.put16(0, &out)  // time
            Self.put16(0x21, &out)  // 1980-01-01
            Self.put32(e.crc, &out)
            Self.put32(UInt32(truncatingIfNeeded: e.compressedSize ?? e.body.count), &out)
            Self.put32(UInt32(truncatingIfNeeded: e.size), &out)
            Self.put16(UInt16(localName.count), &out)
            Self.put16(0, &out)
            out += localName
            out += e.body
        }
        let directoryOffset = out.count
        for (i, e) in entries.enumerated() {
            Self.put32(0x0201_4B50, &out)
            Self.put16(0x031E, &out)
            Self.put16(20, &out)
            Self.put16(e.flags, &out)
            Self.put16(e.method, &out)
            Self.put16(0, &out)
            Self.put16(0x21, &out)
            Self.put32(e.crc, &out)
            Self.put32(UInt32(truncatingIfNeeded: e.compressedSize ?? e.body.count), &out)
            Self.put32(UInt32(truncatingIfNeeded: e.size), &out)
            Self.put16(UInt16(e.name.count), &out)
            Self.put16(0, &out)  // extra
            Self.put16(0, &out)  // comment
            Self.put16(e.disk, &out)
            Self.put16(0, &out)  // internal attributes
            Self.put32(0, &out)  // external attributes
            Self.put32(UInt32(e.localOffset ?? offsets[e.localHeaderOf ?? i]), &out)
            out += e.name
        }
        let directorySize = out.count - directoryOffset
        let count = UInt16(truncatingIfNeeded: declaredCount ?? entries.count)
        Self.put32(0x0605_4B50, &out)
        Self.put16(endDisk, &out)
        Self.put16(0, &out)
        Self.put16(count, &out)
        Self.put16(count, &out)
        Self.put32(UInt32(directorySize), &out)
        Self.put32(UInt32(truncatingIfNeeded: declaredDirectoryOffset ?? directoryOffset), &out)
        Self.put16(UInt16(comment.count), &out)
        out += comment
        return out
    }

    static func put16(_ v: UInt16, _ out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8))
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(shift)) & 0xFF)) }
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
}

/// A command-line program the interoperability tests run (Info-ZIP's `zip` and `unzip`,
/// Python), found on `PATH`; its output goes to files, so a full pipe never stalls it.
enum ExternalTool {
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static let zip: String? = find("zip")
    static let unzip: String? = find("unzip")
    static let python3: String? = find("python3")

    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs a program in a folder and waits for it. (Its output is kept outside that folder,
    /// which `zip -r .` would otherwise take in.)
    static func run(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> Output {
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("healthrecords-tool-stdout-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("healthrecords-tool-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let process = try ChildProcess(
            executable: URL(fileURLWithPath: executable), arguments: arguments, environment: env, directory: directory,
            standardInput: .null, standardOutput: .file(out), standardError: .file(err))
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Output(
            status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
