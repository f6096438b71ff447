import ByteEncodings
import Foundation

/// The store's key of a stored resource: the identity of its source, FHIR type and id, as the
/// store's ``RecordSealer`` computes it (SHA-256 in a plain store, a keyed MAC in an encrypted
/// one). Unique in a store, the same for the same (source, type, id), and it finds the
/// resource with one indexed lookup.
///
/// In hex it is a valid FHIR id (64 characters of `0-9a-f`), which is how the FHIR server names
/// the resources it serves. It says nothing a reader could turn back into the source or id.
public struct ResourceKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's 32 bytes.
    public let bytes: Data

    /// Wraps key bytes (the store makes these).
    package init(bytes: Data) { self.bytes = bytes }

    /// Reads the hex form; `nil` unless it is exactly 64 lowercase hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let bytes = try? Hex.decode(hex)
        else { return nil }
        self.bytes = Data(bytes)
    }

    /// The hex form: 64 lowercase hex digits.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }
}
