/// The Adler-32 checksum of RFC 1950 (zlib's trailer).
public struct Adler32: Sendable, Equatable {
    /// The checksum of the bytes seen so far (1 for none).
    public private(set) var value: UInt32

    /// A checksum of no bytes, or one to continue from.
    public init(_ value: UInt32 = 1) { self.value = value }

    private static let modulus: UInt32 = 65521
    /// The most bytes that can be summed before `b` could overflow 32 bits.
    private static let chunk = 5552

    /// Adds bytes to the checksum.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var a = value & 0xFFFF
        var b = value >> 16
        var remaining = bytes.count
        while remaining > 0 {
            let n = min(remaining, Self.chunk)
            remaining -= n
            var i = 0
            while i &+ 8 <= n {
                a &+= UInt32(p[i]); b &+= a
                a &+= UInt32(p[i &+ 1]); b &+= a
                a &+= UInt32(p[i &+ 2]); b &+= a
                a &+= UInt32(p[i &+ 3]); b &+= a
                a &+= UInt32(p[i &+ 4]); b &+= a
                a &+= UInt32(p[i &+ 5]); b &+= a
                a &+= UInt32(p[i &+ 6]); b &+= a
                a &+= UInt32(p[i &+ 7]); b &+= a
                i &+= 8
            }
            while i < n {
                a &+= UInt32(p[i]); b &+= a
                i &+= 1
            }
            p += n
            a %= Self.modulus
            b %= Self.modulus
        }
        value = b << 16 | a
    }

    /// Adds bytes to the checksum.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = Adler32()
        c.update(bytes)
        return c.value
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
