import Crypto
import Foundation

/// What unlocks an encrypted store.
public enum StoreCredentials: Sendable {
    /// A passphrase; the key that wraps the data key is derived from it with scrypt.
    case passphrase(String)
    /// The bytes of a key file (at least 32 random bytes); the wrapping key is derived from
    /// them with HKDF, since they are already high in entropy.
    case keyFile(Data)
    /// The unwrapped data key itself, as an unlock session keeps it.
    case dataKey(SymmetricKey)

    /// Reads a key file, checking that it holds enough key material.
    public static func keyFile(at path: String) throws(HealthStoreError) -> StoreCredentials {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidArgument("cannot read key file \(path)")
        }
        guard data.count >= 32 else { throw .invalidArgument("key file \(path) holds \(data.count) bytes; it needs at least 32 random bytes") }
        return .keyFile(data)
    }
}

/// The cost of scrypt, the memory-hard function that turns a passphrase into the key that
/// wraps the data key. Memory is `128 × r × 2^logN` bytes (32 MiB for the default).
public struct KDFParameters: Sendable, Hashable {
    /// log2 of scrypt's N (CPU/memory cost).
    public var logN: Int
    /// scrypt's block size r.
    public var r: Int
    /// scrypt's parallelism p.
    public var p: Int

    /// Makes parameters as given; nothing checks that they are costly enough (``standard`` is).
    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// N = 2^15, r = 8, p = 1: 32 MiB and a fraction of a second per unlock.
    public static let standard = KDFParameters(logN: 15, r: 8, p: 1)

    /// N = 2^10: cheap, for tests only.
    public static let testing = KDFParameters(logN: 10, r: 8, p: 1)

    /// Whether the parameters are within what this version accepts from a store file
    /// (so a damaged or hostile store cannot ask for gigabytes).
    var isAcceptable: Bool { (10...20).contains(logN) && (1...32).contains(r) && (1...16).contains(p) }
}
