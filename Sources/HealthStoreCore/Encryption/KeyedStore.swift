import Foundation

/// What an engine provides for encryption at rest: somewhere to keep the wrapped data key.
/// Unwrapping, wrapping and rotation are engine-independent (``KeyEnvelope``).
public protocol KeyedStore: Sendable {
    /// Where the store is, for error messages.
    var location: String { get }
    /// The wrapped data key; `nil` for a plain store. Readable while the store is locked.
    func keyEnvelope() async throws -> KeyEnvelope?
    /// Replaces the wrapped data key with another wrapping of the same key (same key id).
    func replaceKeyEnvelope(_ envelope: KeyEnvelope) async throws
}

extension KeyedStore {
    /// Re-wraps the data key for new credentials; no row is re-encrypted, and unlock sessions
    /// (which hold the data key itself) stay valid.
    ///
    /// - Throws: ``HealthStoreError/notEncrypted(path:)``, ``HealthStoreError/wrongPassphrase(path:)``.
    public func rotateKey(from current: StoreCredentials, to new: StoreCredentials, kdf: KDFParameters = .standard, date: Date) async throws {
        guard var envelope = try await keyEnvelope() else { throw HealthStoreError.notEncrypted(path: location) }
        let dataKey = try envelope.unwrap(current, path: location)
        try envelope.wrap(dataKey, for: new, kdf: kdf, date: date)
        try await replaceKeyEnvelope(envelope)
    }

    /// Checks credentials and returns the data key they unwrap (what an unlock session keeps).
    ///
    /// - Throws: ``HealthStoreError/notEncrypted(path:)``, ``HealthStoreError/wrongPassphrase(path:)``.
    public func unwrapDataKey(_ credentials: StoreCredentials) async throws -> (keyID: String, key: SymmetricKeyBytes) {
        guard let envelope = try await keyEnvelope() else { throw HealthStoreError.notEncrypted(path: location) }
        let key = try envelope.unwrap(credentials, path: location)
        return (envelope.keyID, SymmetricKeyBytes(key))
    }
}
