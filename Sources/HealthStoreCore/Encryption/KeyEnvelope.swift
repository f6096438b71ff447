import ByteEncodings
import Crypto
import Foundation
import _CryptoExtras

/// The store's data key, wrapped: what an encrypted store keeps about its key.
///
/// The data key (256 random bits) seals every sensitive value (``AESGCMSealer``). It is never
/// stored in the clear: it is sealed with AES-GCM under a key-encryption key derived from a
/// passphrase (scrypt, memory-hard) or from a key file (HKDF). Rotating the passphrase re-wraps
/// the data key only; rows stay as they are. The key check (an HMAC of the key id under a key
/// derived from the data key) tells a right data key from a wrong one without opening any row.
///
/// This type is engine-independent: an engine stores the fields and hands them back.
public struct KeyEnvelope: Sendable, Hashable {
    /// How the key-encryption key is made.
    public enum Method: Sendable, Hashable {
        /// scrypt over a passphrase, with its cost.
        case passphrase(KDFParameters)
        /// HKDF over a key file's bytes.
        case keyFile

        /// `passphrase` or `key-file`.
        public var name: String {
            switch self {
            case .passphrase: return "passphrase"
            case .keyFile: return "key-file"
            }
        }
    }

    /// A random identifier of the data key (hex), stable across rotations; unlock sessions
    /// are bound to it.
    public var keyID: String
    /// How the wrapping key is derived.
    public var method: Method
    /// The KDF salt (16 random bytes, new at every rotation).
    public var salt: Data
    /// The data key sealed with AES-GCM under the wrapping key (the key id as associated data).
    public var wrappedKey: Data
    /// HMAC-SHA-256 of the key id under a key derived from the data key.
    public var keyCheck: Data
    /// When the key was created or last re-wrapped.
    public var changedDate: Date

    /// Makes an envelope from stored fields.
    public init(keyID: String, method: Method, salt: Data, wrappedKey: Data, keyCheck: Data, changedDate: Date) {
        self.keyID = keyID
        self.method = method
        self.salt = salt
        self.wrappedKey = wrappedKey
        self.keyCheck = keyCheck
        self.changedDate = changedDate
    }

    /// A new random data key wrapped for the credentials.
    public static func create(
        for credentials: StoreCredentials, kdf: KDFParameters = .standard, date: Date
    ) throws(HealthStoreError) -> (KeyEnvelope, SymmetricKey) {
        let dataKey = SymmetricKey(size: .bits256)
        let keyID = Hex.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        var envelope = KeyEnvelope(
            keyID: keyID, method: .keyFile, salt: Data(), wrappedKey: Data(), keyCheck: check(dataKey, keyID: keyID), changedDate: date)
        try envelope.wrap(dataKey, for: credentials, kdf: kdf, date: date)
        return (envelope, dataKey)
    }

    /// Unwraps the data key; `path` names the store in errors.
    ///
    /// - Throws: ``HealthStoreError/wrongPassphrase(path:)`` when the credentials do not open it.
    public func unwrap(_ credentials: StoreCredentials, path: String) throws(HealthStoreError) -> SymmetricKey {
        let key: SymmetricKey
        switch credentials {
        case .dataKey(let k):
            key = k
        case .passphrase, .keyFile:
            let kek = try wrappingKey(for: credentials, path: path)
            do {
                let opened = try AES.GCM.open(AES.GCM.SealedBox(combined: wrappedKey), using: kek, authenticating: Data(keyID.utf8))
                key = SymmetricKey(data: opened)
            } catch {
                throw .wrongPassphrase(path: path)
            }
        }
        guard key.bitCount == 256, Self.check(key, keyID: keyID) == keyCheck else { throw .wrongPassphrase(path: path) }
        return key
    }

    /// Wraps the data key anew for other credentials (key rotation), with a fresh salt.
    public mutating func wrap(_ dataKey: SymmetricKey, for credentials: StoreCredentials, kdf: KDFParameters = .standard, date: Date) throws(HealthStoreError) {
        switch credentials {
        case .passphrase: method = .passphrase(kdf)
        case .keyFile: method = .keyFile
        case .dataKey: throw .invalidArgument("a data key cannot wrap itself; give a passphrase or a key file")
        }
        salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        let kek = try wrappingKey(for: credentials, path: "")
        do {
            let box = try AES.GCM.seal(dataKey.withUnsafeBytes { Data($0) }, using: kek, authenticating: Data(keyID.utf8))
            guard let combined = box.combined else { throw HealthStoreError.invalidArgument("cannot wrap the data key") }
            wrappedKey = combined
        } catch {
            throw .invalidArgument("cannot wrap the data key: \(error)")
        }
        changedDate = date
    }

    private func wrappingKey(for credentials: StoreCredentials, path: String) throws(HealthStoreError) -> SymmetricKey {
        switch (credentials, method) {
        case (.passphrase(let phrase), .passphrase(let kdf)):
            guard !phrase.isEmpty else { throw .invalidArgument("the passphrase is empty") }
            guard kdf.isAcceptable else { throw .corruptRecord("key parameters out of range (log2 N \(kdf.logN), r \(kdf.r), p \(kdf.p))") }
            do {
                return try KDF.Scrypt.deriveKey(
                    from: Data(phrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << kdf.logN, blockSize: kdf.r, parallelism: kdf.p)
            } catch {
                throw .invalidArgument("scrypt failed: \(error)")
            }
        case (.keyFile(let bytes), .keyFile):
            return HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: bytes), salt: salt, info: Data("healthrecords key file v1".utf8), outputByteCount: 32)
        case (.passphrase, .keyFile), (.keyFile, .passphrase):
            // The store was locked with the other kind of secret: it is simply the wrong one.
            throw .wrongPassphrase(path: path)
        case (.dataKey, _):
            throw .invalidArgument("a data key needs no wrapping key")
        }
    }

    static func check(_ dataKey: SymmetricKey, keyID: String) -> Data {
        let checkKey = AESGCMSealer.derive(dataKey, "healthrecords key check v1")
        return Data(HMAC<SHA256>.authenticationCode(for: Data(keyID.utf8), using: checkKey))
    }
}
