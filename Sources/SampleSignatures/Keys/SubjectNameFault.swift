/// Why a subject name such as `CN=Glucose Meter Co, O=Example` was rejected.
public enum SubjectNameFault: Hashable, Sendable, CustomStringConvertible {
    /// The name has no attributes.
    case empty
    /// A component at this character offset has no `=`.
    case missingEquals(offset: Int)
    /// The attribute type at this character offset is not one of CN, O, OU, C, L, ST.
    case unknownAttributeType(offset: Int)
    /// The value at this character offset is empty.
    case emptyValue(offset: Int)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .empty: "no attributes"
        case .missingEquals(let offset): "component at offset \(offset) has no '='"
        case .unknownAttributeType(let offset): "unknown attribute type at offset \(offset) (use CN, O, OU, C, L or ST)"
        case .emptyValue(let offset): "empty value at offset \(offset)"
        }
    }
}
