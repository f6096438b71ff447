import SwiftASN1

/// One extra key–value pair of a signed sample, defined in ASN.1 as:
/// ```
/// SampleExtra ::= SEQUENCE {
///   key    UTF8String (SIZE (1..MAX)),
///   value  UTF8String }
/// ```
public struct SampleExtra: DERImplicitlyTaggable, Hashable, Sendable {
    /// `SEQUENCE`.
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    /// The key; never empty.
    public let key: String
    /// The value; unlike the key, it may be empty.
    public let value: String

    /// Creates a pair. - Throws: ``SampleContentError/emptyField(_:)`` for an empty key.
    public init(key: String, value: String) throws(SampleContentError) {
        guard !key.isEmpty else { throw .emptyField(.extras) }
        self.key = key
        self.value = value
    }

    /// Parses a `SampleExtra`.
    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.sampleExtra, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let key = try ASN1UTF8String(derEncoded: &nodes).validatedString(.extras)
                let value = try ASN1UTF8String(derEncoded: &nodes).validatedString(.extras)
                return try SampleExtra(key: key, value: value)
            }
        }
    }

    /// Serializes as a `SampleExtra`.
    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(ASN1UTF8String(key))
            try coder.serialize(ASN1UTF8String(value))
        }
    }

    /// Orders keys by their UTF-8 bytes, the order the encoding uses.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}

extension ASN1UTF8String {
    /// The string, failing with ``SampleContentError/invalidUTF8(_:)`` when the bytes are not UTF-8.
    func validatedString(_ field: SampleField) throws(SampleContentError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw .invalidUTF8(field)
        }
        return string
    }
}
