import Crypto
import Foundation

/// A data key's raw bytes, for an unlock session to keep (never written into the store).
public struct SymmetricKeyBytes: Sendable {
    /// The store's data key (records are sealed under it with AES-GCM); never written into the store.
    public let key: SymmetricKey

    /// Wraps a key as is; unlike ``init(base64:)``, nothing checks its size.
    public init(_ key: SymmetricKey) { self.key = key }

    /// Reads base64 bytes of a 256-bit key.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64), data.count == 32 else { return nil }
        key = SymmetricKey(data: data)
    }

    /// The key as standard base64 (not base64url), which ``init(base64:)`` reads back.
    public var base64: String { key.withUnsafeBytes { Data($0) }.base64EncodedString() }

    /// Credentials that unlock the store with this key.
    public var credentials: StoreCredentials { .dataKey(key) }
}
