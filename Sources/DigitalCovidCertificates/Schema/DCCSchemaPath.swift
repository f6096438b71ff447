import CBOR

/// Paths in the `v[0].dn` form that ``DCCSchemaViolation`` uses.
enum DCCSchemaPath {
    static func member(_ base: String, _ key: String) -> String {
        base.isEmpty ? key : "\(base).\(key)"
    }

    static func element(_ base: String, _ index: Int) -> String {
        "\(base)[\(index)]"
    }

    /// A map key as a path component; only text keys can matter to the schema, the rest are
    /// named so a decoding problem under them can still be located.
    static func key(_ key: CBORValue) -> String {
        if let text = SchemaInstance.textKey(key) { return text }
        if let n = key.int64 { return "<\(n)>" }
        return "<key>"
    }
}
