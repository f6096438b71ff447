import CZlib
import Deflate
import Foundation

/// Raw DEFLATE (RFC 1951, no zlib or gzip wrapper), as SMART Health Cards compress payloads.
///
/// Inflating uses the pure-Swift `Deflate` module; compressing (for issuing) uses system zlib.
public enum RawDeflate {
    /// Why inflating failed.
    public enum InflateError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The output would exceed the cap (an inflate bomb).
        case outputTooLarge(limit: Int)
        /// The stream ends before its final block.
        case truncated
        /// Bytes follow the end of the DEFLATE stream.
        case trailingBytes(count: Int)
        /// Not valid raw DEFLATE (a zlib- or gzip-wrapped stream fails here too).
        case corrupt(String)

        public var description: String {
            switch self {
            case .outputTooLarge(let limit): return "inflated payload exceeds the limit of \(limit) bytes"
            case .truncated: return "DEFLATE stream is truncated"
            case .trailingBytes(let n): return "\(n) bytes follow the end of the DEFLATE stream"
            case .corrupt(let m): return "not a raw DEFLATE stream (\(m))"
            }
        }
    }

    /// The default cap on inflated size: 5 MiB (example 02 inflates to 30 KB).
    public static let defaultLimit = 5 << 20

    /// Inflates raw DEFLATE bytes, never producing more than `limit` bytes.
    public static func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int = defaultLimit) throws(InflateError) -> [UInt8] {
        do {
            return try Inflate.raw(UnsafeRawBufferPointer(input), limit: limit)
        } catch {
            throw InflateError(error)
        }
    }

    /// Inflates raw DEFLATE bytes.
    public static func inflate(_ input: [UInt8], limit: Int = defaultLimit) throws(InflateError) -> [UInt8] {
        let r: Result<[UInt8], InflateError> = input.withUnsafeBufferPointer { p in Result { () throws(InflateError) in try inflate(p, limit: limit) } }
        return try r.get()
    }

    /// Inflates raw DEFLATE bytes with system zlib (a reused `z_stream` per thread): the reference
    /// that `inflate` is benchmarked and cross-checked against. Same limits and errors.
    public static func inflateWithSystemZlib(_ input: UnsafeBufferPointer<UInt8>, limit: Int = defaultLimit) throws(InflateError) -> [UInt8] {
        let result: Result<[UInt8], InflateError> = InflateStream.withThreadStream { stream in
            stream.inflate(input, limit: limit)
        }
        return try result.get()
    }

    /// Inflates raw DEFLATE bytes with system zlib; see `inflateWithSystemZlib(_:limit:)`.
    public static func inflateWithSystemZlib(_ input: [UInt8], limit: Int = defaultLimit) throws(InflateError) -> [UInt8] {
        let r: Result<[UInt8], InflateError> = input.withUnsafeBufferPointer { p in
            Result { () throws(InflateError) in try inflateWithSystemZlib(p, limit: limit) }
        }
        return try r.get()
    }

    /// Compresses bytes as raw DEFLATE, by default at the best compression level (9).
    ///
    /// - Parameter level: zlib's compression level, 0 (stored) to 9 (best).
    public static func deflate(_ input: [UInt8], level: Int = 9) -> [UInt8] {
        precondition((0...9).contains(level), "compression level \(level) is not in 0...9")
        var stream = z_stream()
        let initResult = deflateInit2_(&stream, Int32(level), Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(initResult == Z_OK, "zlib deflateInit2 failed: \(initResult)")
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        var mutableInput = input
        let produced: Int = mutableInput.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                let r = CZlib.deflate(&stream, Z_FINISH)
                precondition(r == Z_STREAM_END, "zlib deflate did not finish: \(r)")
                return o.count - Int(stream.avail_out)
            }
        }
        out.removeSubrange(produced...)
        return out
    }
}

extension RawDeflate.InflateError {
    /// The same failure in this type's terms.
    init(_ error: Deflate.InflateError) {
        switch error {
        case .truncated: self = .truncated
        case .trailingBytes(let count): self = .trailingBytes(count: count)
        case .outputTooLarge(let limit): self = .outputTooLarge(limit: limit)
        case .corrupt(let reason): self = .corrupt(reason.description)
        case .checksumMismatch: self = .corrupt(error.description)  // zlib streams only
        }
    }
}

/// A reusable inflate stream per thread: `inflateReset` is far cheaper than allocating zlib's
/// window again for every card.
final class InflateStream {
    private var stream = z_stream()
    private var ready = false

    nonisolated(unsafe) private static var key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { raw in
            guard let raw else { return }
            Unmanaged<InflateStream>.fromOpaque(raw).release()
        }
        return k
    }()

    static func withThreadStream<T>(_ body: (InflateStream) -> T) -> T {
        if let raw = pthread_getspecific(key) {
            return body(Unmanaged<InflateStream>.fromOpaque(raw).takeUnretainedValue())
        }
        let s = InflateStream()
        pthread_setspecific(key, Unmanaged.passRetained(s).toOpaque())
        return body(s)
    }

    deinit {
        if ready { inflateEnd(&stream) }
    }

    func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Result<[UInt8], RawDeflate.InflateError> {
        if ready {
            inflateReset(&stream)
        } else {
            let r = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            guard r == Z_OK else { return .failure(.corrupt("zlib init \(r)")) }
            ready = true
        }
        var capacity = min(limit, max(1024, input.count * 4))
        var out = [UInt8](repeating: 0, count: capacity)
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = uInt(input.count)
        var produced = 0
        while true {
            let status: Int32 = out.withUnsafeMutableBufferPointer { o in
                stream.next_out = o.baseAddress! + produced
                stream.avail_out = uInt(capacity - produced)
                let r = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced = capacity - Int(stream.avail_out)
                return r
            }
            switch status {
            case Z_STREAM_END:
                if stream.avail_in > 0 { return .failure(.trailingBytes(count: Int(stream.avail_in))) }
                out.removeSubrange(produced...)
                return .success(out)
            case Z_OK, Z_BUF_ERROR:
                if stream.avail_out == 0 {
                    guard capacity < limit else { return .failure(.outputTooLarge(limit: limit)) }
                    capacity = min(limit, capacity * 2)
                    out.append(contentsOf: repeatElement(0, count: capacity - out.count))
                } else if stream.avail_in == 0 {
                    return .failure(.truncated)
                } else if status == Z_BUF_ERROR {
                    return .failure(.truncated)
                }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                return .failure(.corrupt(message))
            }
        }
    }
}
