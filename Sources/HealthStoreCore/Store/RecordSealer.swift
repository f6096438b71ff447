import Crypto
import Foundation

/// Seals what identifies a person or a condition before it reaches the database, and
/// derives the lookup keys that stand in for identities in indexes.
///
/// The plain sealer stores values as they are; the encrypted one (AES-GCM under the store's
/// data key) replaces it without the engines noticing.
public protocol RecordSealer: Sendable {
    /// Seals a value for storage.
    func seal(_ plaintext: Data) throws -> Data
    /// Opens a stored value.
    func open(_ sealed: Data) throws -> Data
    /// A fixed-size key for an identity, equal for equal identities, usable in a unique index.
    func identityKey(_ parts: [String]) -> Data
    /// A digest of a resource's bytes, to tell changed content from unchanged without opening it.
    func contentDigest(_ data: Data) -> Data
    /// Whether ``seal(_:)`` returns its input unchanged, so text can be stored from its own
    /// bytes without making sealed copies first.
    var storesPlainText: Bool { get }
}

extension RecordSealer {
    public var storesPlainText: Bool { false }
}

/// Stores values in the clear; identity keys and digests are plain SHA-256.
public struct PlainSealer: RecordSealer {
    /// Makes a plain sealer; it needs no key.
    public init() {}

    public var storesPlainText: Bool { true }

    public func seal(_ plaintext: Data) throws -> Data { plaintext }
    public func open(_ sealed: Data) throws -> Data { sealed }

    public func identityKey(_ parts: [String]) -> Data { Data(SHA256.hash(data: IdentityParts.bytes(parts))) }

    public func contentDigest(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}

/// The bytes an identity key is made from: each part's UTF-8 followed by a zero byte, in one
/// buffer (one hash call, no buffer per part; a sync computes thousands of keys).
enum IdentityParts {
    static func bytes(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(parts.count) { $0 + $1.utf8.count })
        for p in parts {
            bytes.append(contentsOf: p.utf8)
            bytes.append(0)
        }
        return bytes
    }
}
