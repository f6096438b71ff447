import SwiftASN1

/// Serializes values to DER bytes.
enum DEREncoding {
    /// The DER encoding of `value`.
    static func encode(_ value: some DERSerializable) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.serialize(value)
        return coder.serializedBytes
    }
}
