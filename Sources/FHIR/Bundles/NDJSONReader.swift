import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads an NDJSON file (one JSON value per line, as FHIR bulk export writes) as a stream.
///
/// Memory is bounded by the longest line, never by the file: the file is read in chunks and a
/// line longer than ``maxLineBytes`` is an error.
public struct NDJSONReader: ~Copyable {
    /// One line of the file.
    public struct Line: Sendable {
        /// The 1-based line number.
        public let number: Int
        /// The line's bytes, without the line break.
        public let data: Data
    }

    /// The file read from; `nil` for bytes held in memory.
    private let handle: FileHandle?
    private var buffer = Data()
    private var position = 0
    private var lineNumber = 0
    private var atEnd = false
    /// The longest line allowed, in bytes.
    public let maxLineBytes: Int
    private let chunkSize = 1 << 16

    /// Opens a file for reading.
    public init(url: URL, maxLineBytes: Int = 64 << 20) throws {
        self.handle = try FileHandle(forReadingFrom: url)
        self.maxLineBytes = maxLineBytes
    }

    /// Reads lines from bytes in memory (an upload, pasted text).
    public init(data: Data, maxLineBytes: Int = 64 << 20) {
        self.handle = nil
        self.buffer = data
        self.atEnd = true
        self.maxLineBytes = maxLineBytes
    }

    deinit { try? handle?.close() }

    /// The next non-blank line, or `nil` at the end of the file.
    public mutating func next() throws -> Line? {
        while true {
            let start = position
            let newline: Int? = buffer.withUnsafeBytes { raw -> Int? in
                guard start < raw.count, let base = raw.baseAddress else { return nil }
                guard let hit = memchr(base + start, 0x0A, raw.count - start) else { return nil }
                return base.distance(to: UnsafeRawPointer(hit))
            }
            if let nl = newline {
                var end = nl
                if end > position, buffer[end - 1] == 0x0D { end -= 1 }
                position = nl + 1
                lineNumber += 1
                if end - start > maxLineBytes { throw FHIRError.lineTooLong(line: lineNumber, limit: maxLineBytes) }
                let line = buffer.subdata(in: start..<end)
                if Self.isBlank(line) { continue }
                return Line(number: lineNumber, data: line)
            }
            if buffer.count - position > maxLineBytes { throw FHIRError.lineTooLong(line: lineNumber + 1, limit: maxLineBytes) }
            if atEnd {
                guard position < buffer.count else { return nil }
                let line = buffer.subdata(in: position..<buffer.count)
                position = buffer.count
                lineNumber += 1
                if Self.isBlank(line) { return nil }
                return Line(number: lineNumber, data: line)
            }
            // Compact what was consumed before reading more.
            if position > 0 {
                buffer.removeSubrange(0..<position)
                position = 0
            }
            let chunk = try handle?.read(upToCount: chunkSize) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
        }
    }

    private static func isBlank(_ d: Data) -> Bool {
        d.withUnsafeBytes { raw in raw.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }
    }
}
