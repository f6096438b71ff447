import Deflate
import Foundation

/// Writes a zip archive (PKZIP APPNOTE 6.3: stored or DEFLATE entries, UTF-8 names, no ZIP64)
/// to a file, one whole entry at a time.
///
/// The archive is written beside its destination and renamed into place by ``finish()``, so
/// the destination never holds half an archive; the file is created owner-only, since an
/// export holds health records. Entries are compressed with the project's `Deflate` and
/// stored uncompressed when that is not smaller.
public final class ZipWriter {
    /// An entry already written, for the central directory.
    private struct Written {
        let name: [UInt8]
        let method: UInt16
        let crc: UInt32
        let compressedSize: UInt32
        let size: UInt32
        let offset: UInt32
    }

    /// The most bytes the archive, or one entry, may have without ZIP64.
    public static let maxSize = Int(UInt32.max) - 1

    private let destination: String
    private let temporary: String
    private let handle: FileHandle
    private var written: [Written] = []
    private var offset = 0
    private let dosTime: UInt16
    private let dosDate: UInt16
    private let level: Compress.Level
    private var finished = false

    /// Starts an archive that ``finish()`` will move to `path`.
    ///
    /// - Parameters:
    ///   - date: the modification time every entry carries (local time, as zip stores it).
    ///   - level: the DEFLATE level.
    public init(path: String, date: Date = Date(), level: Compress.Level = .balanced) throws(ArchiveError) {
        destination = path
        let directory = (path as NSString).deletingLastPathComponent
        let name = ".\((path as NSString).lastPathComponent).\(UUID().uuidString.prefix(8)).partial"
        temporary = directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        self.level = level
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = max(1980, min(2107, parts.year ?? 1980))
        dosDate = UInt16((year - 1980) << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        dosTime = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
    }

    deinit {
        if !finished { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// Adds one entry. `name` is a relative path with `/` separators.
    public func add(_ name: String, _ data: [UInt8]) throws(ArchiveError) {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= Int(UInt16.max) else { throw .unsafeName(name) }
        guard data.count <= Self.maxSize else { throw .tooLarge(what: name, size: data.count, limit: Self.maxSize) }
        let crc = CRC32.checksum(data)
        let deflated = data.isEmpty ? [] : Compress.raw(data, level: level)
        let stored = data.isEmpty || deflated.count >= data.count
        let body = stored ? data : deflated
        let entry = Written(
            name: nameBytes, method: stored ? 0 : 8, crc: crc, compressedSize: UInt32(body.count), size: UInt32(data.count), offset: UInt32(offset))
        var header: [UInt8] = []
        header.reserveCapacity(30 + nameBytes.count)
        Self.put32(0x0403_4B50, &header)
        Self.put16(20, &header)  // version needed: 2.0 (DEFLATE)
        Self.put16(0x0800, &header)  // names are UTF-8
        Self.put16(entry.method, &header)
        Self.put16(dosTime, &header)
        Self.put16(dosDate, &header)
        Self.put32(crc, &header)
        Self.put32(entry.compressedSize, &header)
        Self.put32(entry.size, &header)
        Self.put16(UInt16(nameBytes.count), &header)
        Self.put16(0, &header)
        header += nameBytes
        try write(header)
        try write(body)
        written.append(entry)
    }

    /// Writes the central directory, flushes the file to disk and renames it into place.
    public func finish() throws(ArchiveError) {
        guard written.count < Int(UInt16.max) else { throw .tooLarge(what: "the number of entries", size: written.count, limit: Int(UInt16.max) - 1) }
        let directoryOffset = offset
        var directory: [UInt8] = []
        for e in written {
            Self.put32(0x0201_4B50, &directory)
            Self.put16(0x031E, &directory)  // made by: Unix, spec 3.0
            Self.put16(20, &directory)
            Self.put16(0x0800, &directory)
            Self.put16(e.method, &directory)
            Self.put16(dosTime, &directory)
            Self.put16(dosDate, &directory)
            Self.put32(e.crc, &directory)
            Self.put32(e.compressedSize, &directory)
            Self.put32(e.size, &directory)
            Self.put16(UInt16(e.name.count), &directory)
            Self.put16(0, &directory)  // extra
            Self.put16(0, &directory)  // comment
            Self.put16(0, &directory)  // disk
            Self.put16(0, &directory)  // internal attributes
            Self.put32(0o100600 << 16, &directory)  // a regular file, owner read/write
            Self.put32(e.offset, &directory)
            directory += e.name
        }
        try write(directory)
        var end: [UInt8] = []
        Self.put32(0x0605_4B50, &end)
        Self.put16(0, &end)
        Self.put16(0, &end)
        Self.put16(UInt16(written.count), &end)
        Self.put16(UInt16(written.count), &end)
        Self.put32(UInt32(directory.count), &end)
        Self.put32(UInt32(directoryOffset), &end)
        Self.put16(0, &end)
        try write(end)
        do {
            try handle.synchronize()
            try handle.close()
        } catch { throw .io(path: destination, reason: "\(error)") }
        guard rename(temporary, destination) == 0 else { throw .io(path: destination, reason: String(cString: strerror(errno))) }
        finished = true
    }

    private func write(_ bytes: [UInt8]) throws(ArchiveError) {
        guard offset + bytes.count <= Self.maxSize else { throw .tooLarge(what: "the archive", size: offset + bytes.count, limit: Self.maxSize) }
        do { try handle.write(contentsOf: bytes) } catch { throw .io(path: destination, reason: "\(error)") }
        offset += bytes.count
    }

    static func put16(_ v: UInt16, _ out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8))
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(shift)) & 0xFF)) }
    }
}
