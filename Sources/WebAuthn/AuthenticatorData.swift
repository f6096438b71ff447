import CBOR
import Foundation

/// The authenticator's signed statement (WebAuthn §6.1): the relying party's id hash, the
/// flags, the signature counter and, at registration, the new credential.
public struct AuthenticatorData: Sendable, Hashable {
    /// The bits of ``flags``.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: a user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (PIN, biometrics).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (a synced passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// A credential made at registration.
    public struct AttestedCredential: Sendable, Hashable {
        /// The authenticator model's id (zeros under `none` attestation).
        public let aaguid: [UInt8]
        /// The credential's id, at most 1023 bytes.
        public let credentialID: [UInt8]
        /// Its public key.
        public let publicKey: CredentialPublicKey
    }

    /// The bytes as signed.
    public let bytes: [UInt8]
    /// SHA-256 of the relying party id the credential is scoped to.
    public let rpIDHash: [UInt8]
    public let flags: Flags
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// The new credential (registration only).
    public let attestedCredential: AttestedCredential?

    /// Reads authenticator data, every field bounded by the bytes there are.
    ///
    /// - Throws: ``WebAuthnError/authenticatorDataTruncated(length:)``,
    ///   ``WebAuthnError/authenticatorDataTrailingBytes(count:)``,
    ///   ``WebAuthnError/credentialIDTooLong(length:)``, ``WebAuthnError/cbor(_:in:)`` and the
    ///   key's errors.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .authenticatorDataTruncated(length: bytes.count) }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .authenticatorDataTruncated(length: bytes.count) }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length <= 1023 else { throw .credentialIDTooLong(length: length) }
            guard bytes.count >= offset + length else { throw .authenticatorDataTruncated(length: bytes.count) }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let (key, end) = try Self.item(bytes, from: offset, in: "the credential public key")
            let publicKey = try CredentialPublicKey(key, encoded: Array(bytes[offset..<offset + end]))
            offset += end
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: publicKey)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            let (extensions, end) = try Self.item(bytes, from: offset, in: "the extensions")
            guard extensions.mapEntries != nil else { throw .cbor(.trailingBytes(offset: offset), in: "the extensions (not a map)") }
            offset += end
        }
        guard offset == bytes.count else { throw .authenticatorDataTrailingBytes(count: bytes.count - offset) }
    }

    /// One CBOR item starting at `offset`, and how many bytes it took.
    private static func item(_ bytes: [UInt8], from offset: Int, in place: String) throws(WebAuthnError) -> (CBORValue, Int) {
        guard offset < bytes.count else { throw .authenticatorDataTruncated(length: bytes.count) }
        let result: Result<(CBORValue, end: Int), CBORError> = bytes[offset...].withUnsafeBytes { raw in
            Result { () throws(CBORError) in try CBORReader.decodePrefix(raw, limits: .init(maxDepth: 4, maxItems: 256)) }
        }
        switch result {
        case .success(let (value, end)): return (value, end)
        case .failure(let error): throw .cbor(error, in: place)
        }
    }
}
