import Crypto
import Foundation
import _CryptoExtras

/// A link's passcode as stored: a salted scrypt hash and its parameters, never the passcode.
public struct LinkPasscode: Sendable, Hashable {
    /// The fewest and most bytes a passcode may have (UTF-8, as typed).
    public static let lengthRange = 4...256
    /// The most wrong attempts a link may allow in its lifetime, and the default.
    public static let maximumAttempts = 10
    public static let defaultAttempts = 5

    public let salt: Data
    public let hash: Data
    public let kdf: KDFParameters

    public init(salt: Data, hash: Data, kdf: KDFParameters) {
        (self.salt, self.hash, self.kdf) = (salt, hash, kdf)
    }

    /// Hashes a new passcode with a fresh salt.
    ///
    /// - Throws: ``HealthStoreError/invalidArgument(_:)`` for a passcode of the wrong length.
    public static func make(_ passcode: String, kdf: KDFParameters = .standard) throws(HealthStoreError) -> LinkPasscode {
        let count = passcode.utf8.count
        guard lengthRange.contains(count) else {
            throw .invalidArgument("a passcode needs \(lengthRange.lowerBound) to \(lengthRange.upperBound) bytes; this one has \(count)")
        }
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return LinkPasscode(salt: salt, hash: try derive(passcode, salt: salt, kdf: kdf), kdf: kdf)
    }

    /// Whether a passcode is this one (the comparison takes the same time wherever they differ).
    /// A passcode of an impossible length is wrong without hashing.
    public func matches(_ passcode: String) throws(HealthStoreError) -> Bool {
        guard Self.lengthRange.contains(passcode.utf8.count) else { return false }
        let candidate = try Self.derive(passcode, salt: salt, kdf: kdf)
        guard candidate.count == hash.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, hash) { difference |= a ^ b }
        return difference == 0
    }

    private static func derive(_ passcode: String, salt: Data, kdf: KDFParameters) throws(HealthStoreError) -> Data {
        guard kdf.isAcceptable else { throw .corruptRecord("passcode parameters out of range (log2 N \(kdf.logN), r \(kdf.r), p \(kdf.p))") }
        do {
            let key = try KDF.Scrypt.deriveKey(
                from: Data(passcode.utf8), salt: salt, outputByteCount: 32, rounds: 1 << kdf.logN, blockSize: kdf.r, parallelism: kdf.p)
            return key.withUnsafeBytes { Data($0) }
        } catch {
            throw .invalidArgument("scrypt failed: \(error)")
        }
    }

    /// The stored form: `logN r p` as three bytes, the 16-byte salt, the hash.
    var stored: Data { Data([UInt8(kdf.logN), UInt8(kdf.r), UInt8(kdf.p)]) + salt + hash }

    init(stored data: Data) throws(HealthStoreError) {
        let bytes = [UInt8](data)
        guard bytes.count == 3 + 16 + 32 else { throw .corruptRecord("a link's passcode hash has \(bytes.count) bytes") }
        self.init(salt: Data(bytes[3..<19]), hash: Data(bytes[19...]), kdf: KDFParameters(logN: Int(bytes[0]), r: Int(bytes[1]), p: Int(bytes[2])))
    }
}
