#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Inflate {
    /// Inflates a raw DEFLATE stream (RFC 1951, no header or trailer); see `raw(_:limit:)`.
    public static func raw(_ input: Data, limit: Int) throws(InflateError) -> [UInt8] {
        let result = input.withUnsafeBytes { p in Result { () throws(InflateError) in try raw(p, limit: limit) } }
        return try result.get()
    }

    /// Inflates a zlib stream (RFC 1950); see `zlib(_:limit:)`.
    public static func zlib(_ input: Data, limit: Int) throws(InflateError) -> [UInt8] {
        let result = input.withUnsafeBytes { p in Result { () throws(InflateError) in try zlib(p, limit: limit) } }
        return try result.get()
    }
}
