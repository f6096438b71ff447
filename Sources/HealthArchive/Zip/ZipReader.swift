import Deflate
import Foundation

/// Reads a zip archive strictly: stored and DEFLATE entries only, no ZIP64, no encryption, one
/// disk; every name a plain relative path; entries' data inside the archive and not
/// overlapping; sizes within ``ZipLimits``; every entry's size and CRC-32 checked when it is read.
///
/// The archive's bytes are read (memory-mapped for a file) once; entries are inflated one at
/// a time, on demand, with the declared size as the inflater's output limit.
public struct ZipReader: Sendable {
    /// One entry of the central directory, checked.
    public struct Entry: Sendable, Hashable {
        /// The entry's name: a relative path with `/` separators.
        public let name: String
        /// 0 (stored) or 8 (DEFLATE).
        let method: UInt16
        /// The CRC-32 of the inflated data.
        let crc: UInt32
        /// Where the compressed data lies in the archive.
        let dataRange: Range<Int>
        /// How many bytes it inflates to.
        public let size: Int
    }

    /// The archive's entries in central-directory order (directories left out).
    public let entries: [Entry]
    private let data: Data
    private let byName: [String: Int]

    /// Reads a zip file.
    public init(path: String, limits: ZipLimits = .default) throws(ArchiveError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(data: data, limits: limits)
    }

    /// Reads a zip archive's directory from its bytes.
    public init(data: Data, limits: ZipLimits = .default) throws(ArchiveError) {
        self.data = data
        let bytes = [UInt8](data)
        let end = try Self.endRecord(bytes)
        var list: [Entry] = []
        var names: [String: Int] = [:]
        var at = end.directoryOffset
        var total = 0
        var spans: [(range: Range<Int>, name: String)] = []
        for _ in 0..<end.count {
            guard at + 46 <= end.directoryEnd, Self.u32(bytes, at) == 0x0201_4B50 else { throw .malformed("central directory entry at \(at)") }
            let flags = Self.u16(bytes, at + 8)
            let method = Self.u16(bytes, at + 10)
            let crc = Self.u32(bytes, at + 16)
            let compressed = Int(Self.u32(bytes, at + 20))
            let size = Int(Self.u32(bytes, at + 24))
            let nameLength = Int(Self.u16(bytes, at + 28))
            let extraLength = Int(Self.u16(bytes, at + 30))
            let commentLength = Int(Self.u16(bytes, at + 32))
            let disk = Self.u16(bytes, at + 34)
            let localOffset = Int(Self.u32(bytes, at + 42))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= end.directoryEnd else { throw .malformed("central directory entry at \(at) runs past the directory") }
            let nameBytes = Array(bytes[(at + 46)..<(at + 46 + nameLength)])
            guard let name = String(validating: nameBytes, as: UTF8.self) else { throw .unsafeName(String(decoding: nameBytes, as: UTF8.self)) }
            at = next
            guard flags & 0x0001 == 0, flags & 0x0040 == 0 else { throw .unsupported("\(name) is encrypted") }
            guard disk == 0 else { throw .unsupported("multi-disk archive") }
            if compressed == 0xFFFF_FFFF || size == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF { throw .unsupported("ZIP64 (\(name))") }
            guard method == 0 || method == 8 else { throw .unsupported("compression method \(method) (\(name))") }
            try Self.checkName(name)
            if name.hasSuffix("/") {
                guard size == 0 else { throw .malformed("directory entry \(name) has data") }
                continue
            }
            guard names[name] == nil else { throw .duplicateName(name) }
            guard size <= limits.maxEntryBytes else { throw .tooLarge(what: name, size: size, limit: limits.maxEntryBytes) }
            total += size
            guard total <= limits.maxTotalBytes else { throw .tooLarge(what: "the archive's contents", size: total, limit: limits.maxTotalBytes) }
            if method == 0, compressed != size { throw .malformed("stored entry \(name) has two sizes") }
            if method == 8, size > max(compressed, 1) * limits.maxRatio { throw .tooLarge(what: "\(name)'s declared size", size: size, limit: max(compressed, 1) * limits.maxRatio) }
            // The local header must agree with the central directory; the data follows it.
            guard localOffset + 30 <= end.directoryOffset, Self.u32(bytes, localOffset) == 0x0403_4B50 else { throw .malformed("local header of \(name)") }
            let localNameLength = Int(Self.u16(bytes, localOffset + 26))
            let localExtra = Int(Self.u16(bytes, localOffset + 28))
            let dataStart = localOffset + 30 + localNameLength + localExtra
            guard dataStart + compressed <= end.directoryOffset else { throw .malformed("data of \(name) runs past the entries") }
            guard Array(bytes[(localOffset + 30)..<(localOffset + 30 + localNameLength)]) == nameBytes,
                Self.u16(bytes, localOffset + 8) == method
            else { throw .malformed("local header of \(name) differs from the central directory") }
            spans.append((localOffset..<(dataStart + compressed), name))
            names[name] = list.count
            list.append(Entry(name: name, method: method, crc: crc, dataRange: dataStart..<(dataStart + compressed), size: size))
            guard list.count <= limits.maxEntries else { throw .tooLarge(what: "the number of entries", size: list.count, limit: limits.maxEntries) }
        }
        spans.sort { $0.range.lowerBound < $1.range.lowerBound }
        for (a, b) in zip(spans, spans.dropFirst()) where a.range.upperBound > b.range.lowerBound { throw .overlappingEntries(b.name) }
        entries = list
        byName = names
    }

    /// The entry with a name, if the archive holds one.
    public func entry(named name: String) -> Entry? { byName[name].map { entries[$0] } }

    /// An entry's data, inflated and checked against its size and CRC-32.
    public func read(_ entry: Entry) throws(ArchiveError) -> [UInt8] {
        let body = data[data.startIndex + entry.dataRange.lowerBound..<data.startIndex + entry.dataRange.upperBound]
        let out: [UInt8]
        if entry.method == 0 {
            out = [UInt8](body)
        } else {
            do { out = try Inflate.raw(Data(body), limit: entry.size) } catch {
                if case .outputTooLarge = error { throw .sizeMismatch(entry: entry.name, declared: entry.size, actual: entry.size + 1) }
                throw .badCompressedData(entry: entry.name, reason: error.description)
            }
        }
        guard out.count == entry.size else { throw .sizeMismatch(entry: entry.name, declared: entry.size, actual: out.count) }
        guard CRC32.checksum(out) == entry.crc else { throw .crcMismatch(entry: entry.name) }
        return out
    }

    /// A name is a plain relative path: not empty, no leading `/`, no `\`, no drive letter,
    /// no `.`, `..` or empty components, no control characters.
    static func checkName(_ name: String) throws(ArchiveError) {
        guard !name.isEmpty, name.utf8.count <= 1024, !name.hasPrefix("/"), !name.contains("\\"), !name.contains(":") else { throw .unsafeName(name) }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { throw .unsafeName(name) }
        var components = name.split(separator: "/", omittingEmptySubsequences: false)
        if name.hasSuffix("/") { components.removeLast() }
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { throw .unsafeName(name) }
    }

    private struct EndRecord {
        let count: Int
        let directoryOffset: Int
        let directoryEnd: Int
    }

    /// Finds the end-of-central-directory record: the last one whose comment ends the file.
    private static func endRecord(_ b: [UInt8]) throws(ArchiveError) -> EndRecord {
        guard b.count >= 22 else { throw .notAZip }
        var at = b.count - 22
        let lowest = max(0, b.count - 22 - 0xFFFF)
        while at >= lowest {
            if u32(b, at) == 0x0605_4B50, at + 22 + Int(u16(b, at + 20)) == b.count { break }
            at -= 1
        }
        guard at >= lowest else { throw .notAZip }
        guard u16(b, at + 4) == 0, u16(b, at + 6) == 0 else { throw .unsupported("multi-disk archive") }
        let onDisk = Int(u16(b, at + 8))
        let count = Int(u16(b, at + 10))
        let size = Int(u32(b, at + 12))
        let offset = Int(u32(b, at + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw .unsupported("ZIP64") }
        guard onDisk == count, offset + size <= at else { throw .malformed("end-of-central-directory record") }
        return EndRecord(count: count, directoryOffset: offset, directoryEnd: offset + size)
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
