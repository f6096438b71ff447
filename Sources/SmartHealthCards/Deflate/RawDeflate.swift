import Deflate
import Foundation

/// Inflating a card's payload: raw DEFLATE (RFC 1951, no zlib or gzip wrapper) under the cards'
/// size cap, with failures described in the terms a card verification reports.
///
/// The inflater is the `Deflate` target's; issuing compresses with its `Compress.raw` at `.best`.
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
