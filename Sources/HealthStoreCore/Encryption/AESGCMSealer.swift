import Crypto
import Foundation

/// Seals values with AES-256-GCM under keys derived from the store's data key.
///
/// Each sealed value is `version (1 byte) ‖ nonce (12) ‖ ciphertext ‖ tag (16)` with a fresh
/// random nonce, so equal values seal differently. Identity keys and content digests are
/// HMAC-SHA-256 under their own keys (HKDF from the data key): equal identities still give
/// equal keys, so they can sit in unique indexes, but nobody without the data key can compute
/// the key of a guessed identity or confirm a guessed resource.
public struct AESGCMSealer: RecordSealer {
    static let version: UInt8 = 1

    private let sealingKey: SymmetricKey
    private let identityMAC: SymmetricKey
    private let digestMAC: SymmetricKey

    /// Makes a sealer from a 256-bit data key.
    public init(dataKey: SymmetricKey) {
        sealingKey = Self.derive(dataKey, "healthrecords seal v1")
        identityMAC = Self.derive(dataKey, "healthrecords identity v1")
        digestMAC = Self.derive(dataKey, "healthrecords digest v1")
    }

    static func derive(_ key: SymmetricKey, _ label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(label.utf8), outputByteCount: 32)
    }

    public func seal(_ plaintext: Data) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: sealingKey)
        guard let combined = box.combined else { throw HealthStoreError.unreadableSealedValue }
        return Data([Self.version]) + combined
    }

    public func open(_ sealed: Data) throws -> Data {
        guard sealed.first == Self.version, sealed.count >= 1 + 12 + 16 else { throw HealthStoreError.unreadableSealedValue }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed.dropFirst()), using: sealingKey)
        } catch {
            throw HealthStoreError.unreadableSealedValue
        }
    }

    public func identityKey(_ parts: [String]) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: IdentityParts.bytes(parts), using: identityMAC))
    }

    public func contentDigest(_ data: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: digestMAC))
    }
}

/// The sealer of a store that is encrypted but not unlocked: every use fails with
/// ``HealthStoreError/storeLocked(path:)``. Engines check for it before reading, so a locked
/// store never returns garbage or partial answers.
public struct LockedSealer: RecordSealer {
    /// The store's path, for the error.
    public let path: String

    /// Makes the sealer of a locked store.
    public init(path: String) { self.path = path }

    public func seal(_ plaintext: Data) throws -> Data { throw HealthStoreError.storeLocked(path: path) }
    public func open(_ sealed: Data) throws -> Data { throw HealthStoreError.storeLocked(path: path) }
    // Never reaches the database: engines refuse every operation of a locked store first.
    public func identityKey(_ parts: [String]) -> Data { Data(count: 32) }
    public func contentDigest(_ data: Data) -> Data { Data(count: 32) }
}
