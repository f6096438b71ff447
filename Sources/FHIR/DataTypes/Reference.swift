/// A FHIR `Reference` to another resource.
public struct Reference: Sendable, Hashable {
    /// The literal reference: relative (`Patient/123`), absolute URL, `urn:uuid:…`, `#contained` or `resource:N`.
    public var reference: String?
    /// The referenced type, when given.
    public var type: String?
    /// Text for the referenced resource.
    public var display: String?

    /// Makes a reference; nothing is checked (``typeAndIdentifier`` parses `reference` when asked).
    public init(reference: String? = nil, type: String? = nil, display: String? = nil) {
        self.reference = reference
        self.type = type
        self.display = display
    }

    /// Reads a reference from JSON; `nil` when the value is not an object.
    public init?(json: JSONValue) {
        guard let o = json.objectValue else { return nil }
        reference = o["reference"]?.stringValue
        type = o["type"]?.stringValue
        display = o["display"]?.stringValue
    }

    /// The `Type/id` parts of a relative or absolute RESTful reference.
    public var typeAndIdentifier: (type: String, identifier: String)? {
        guard let reference, !reference.hasPrefix("#"), !reference.hasPrefix("urn:") else { return nil }
        let parts = reference.split(separator: "/", omittingEmptySubsequences: false)
        var k = parts.count - 2
        // Skip a `_history/vid` suffix.
        if parts.count >= 4, parts[parts.count - 2] == "_history" { k = parts.count - 4 }
        guard k >= 0, !parts[k].isEmpty, !parts[k + 1].isEmpty else { return nil }
        return (String(parts[k]), String(parts[k + 1]))
    }
}
