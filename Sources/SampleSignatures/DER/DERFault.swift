/// A precise description of why some bytes are not acceptable DER.
///
/// Every parser in this module reports malformed input as a `DERFault`
/// wrapped in its own error type (for example
/// ``SignatureVerificationError/malformedDER(_:)``). It says *what* was wrong
/// (``kind``), *which* structure was being read (``structure``) and *where*
/// (``offset``, a byte offset into the input that was handed to the parser).
public struct DERFault: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the bytes.
    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// The input ends in the middle of a tag, a length or a value.
        case truncated
        /// Bytes follow the end of the outermost value.
        case trailingBytes
        /// A BER indefinite length (`0x80`) where DER requires a definite length.
        case indefiniteLength
        /// A length encoded in more octets than needed, or in long form where the short form fits.
        case nonMinimalLength
        /// A length that cannot be right: more length octets than any input could need, or a value
        /// larger than the maximum input size the parser accepts.
        case lengthTooLarge
        /// A malformed tag: a long-form tag that should be short, or the reserved end-of-contents tag.
        case invalidTag
        /// Values nested deeper than the parser allows.
        case nestingTooDeep
        /// A well-formed value with a different tag than the structure requires at this point.
        case unexpectedTag
        /// An INTEGER that is empty, not minimally encoded, or negative where it must not be.
        case invalidInteger
        /// A string whose bytes are not valid for its string type.
        case invalidString
        /// A value whose contents are not valid for its type, or a structure that is missing an
        /// element or has one too many.
        case invalidValue

        /// A short, human-readable explanation.
        public var description: String {
            switch self {
            case .truncated: "input ends before the value does"
            case .trailingBytes: "unexpected bytes after the end of the value"
            case .indefiniteLength: "BER indefinite length is not allowed in DER"
            case .nonMinimalLength: "length is not minimally encoded"
            case .lengthTooLarge: "length field is impossibly large"
            case .invalidTag: "malformed tag"
            case .nestingTooDeep: "values are nested too deeply"
            case .unexpectedTag: "unexpected tag"
            case .invalidInteger: "invalid INTEGER encoding"
            case .invalidString: "invalid string encoding"
            case .invalidValue: "invalid or missing value"
            }
        }
    }

    /// What is wrong.
    public var kind: Kind
    /// The structure being parsed when the fault was found, if known.
    public var structure: DERStructure?
    /// Byte offset into the parsed input of the value (or header) at fault, if known.
    public var offset: Int?

    /// Creates a fault description.
    public init(kind: Kind, structure: DERStructure? = nil, offset: Int? = nil) {
        self.kind = kind
        self.structure = structure
        self.offset = offset
    }

    /// A human-readable explanation including the structure and offset when known.
    public var description: String {
        var text = kind.description
        if let structure {
            text += " in \(structure)"
        }
        if let offset {
            text += " at byte offset \(offset)"
        }
        return text
    }
}
