import ByteEncodings
import Crypto

/// A link's key: 32 random bytes, the AES-256-GCM content key of every file behind the link
/// (JWE `alg: dir`), written in the payload as exactly 43 base64url characters.
///
/// The key travels only inside the link; it is never sent to the sharing server. Its
/// ``description`` does not show it.
public struct SHLKey: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes in a key: 32 (AES-256).
    public static let byteCount = 32
    /// The number of base64url characters a key is written with: 43.
    public static let textLength = 43

    /// The key's 32 bytes.
    public let bytes: [UInt8]

    /// A key from its 32 bytes.
    ///
    /// - Throws: ``SHLError/key(_:)`` with ``SHLError/KeyProblem/byteCount(_:)`` for any other length.
    public init(bytes: some Collection<UInt8>) throws(SHLError) {
        let copy = Array(bytes)
        guard copy.count == Self.byteCount else { throw .key(.byteCount(copy.count)) }
        self.bytes = copy
    }

    /// A key from the payload's `key`: exactly 43 strict base64url characters.
    ///
    /// - Throws: ``SHLError/key(_:)``: another length, or text that is not base64url.
    public init(base64url text: String) throws(SHLError) {
        let length = text.utf8.count
        guard length == Self.textLength else { throw .key(.length(characters: length)) }
        let decoded = Result { () throws(Base64URL.DecodingError) -> [UInt8] in try Base64URL.decode(text) }
        switch decoded {
        case .success(let bytes):
            // 43 characters always decode to 32 bytes; checked anyway.
            guard bytes.count == Self.byteCount else { throw .key(.byteCount(bytes.count)) }
            self.bytes = bytes
        case .failure(let error):
            throw .key(.notBase64URL(error))
        }
    }

    /// A new key from the system's cryptographically secure random source, for a new link.
    public static func random() -> SHLKey {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        while bytes.count < byteCount {
            var word = generator.next()
            for _ in 0..<8 where bytes.count < byteCount {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return SHLKey(checked: bytes)
    }

    /// The key as the payload writes it: 43 base64url characters, no padding.
    public var base64url: String { Base64URL.encode(bytes) }

    /// A description that does not reveal the key.
    public var description: String { "SHLKey(32 bytes)" }

    /// The key as swift-crypto takes it.
    var symmetricKey: SymmetricKey { SymmetricKey(data: bytes) }

    /// A key from bytes known to be 32.
    private init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }
}
