#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Compress {
    /// Compresses `input` as a raw DEFLATE stream; see `raw(_:level:)`.
    public static func raw(_ input: Data, level: Level = .balanced) -> [UInt8] {
        input.withUnsafeBytes { raw($0, level: level) }
    }

    /// Compresses `input` as a zlib stream; see `zlib(_:level:)`.
    public static func zlib(_ input: Data, level: Level = .balanced) -> [UInt8] {
        input.withUnsafeBytes { zlib($0, level: level) }
    }
}
