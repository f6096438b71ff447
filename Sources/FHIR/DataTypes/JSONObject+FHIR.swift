extension JSONObject {
    /// The string member `key`.
    public func string(_ key: String) -> String? { self[key]?.stringValue }

    /// The member `key` read as a date.
    public func date(_ key: String) -> FHIRDate? { self[key]?.stringValue.flatMap(FHIRDate.init) }

    /// The member `key` read as a `CodeableConcept`.
    public func codeableConcept(_ key: String) -> CodeableConcept? { self[key].flatMap(CodeableConcept.init(json:)) }

    /// The member `key` read as a list of `CodeableConcept`s; a single object counts as a list of one.
    public func codeableConcepts(_ key: String) -> [CodeableConcept] {
        switch self[key] {
        case .array(let a)?: return a.compactMap(CodeableConcept.init(json:))
        case .object?: return codeableConcept(key).map { [$0] } ?? []
        default: return []
        }
    }

    /// The member `key` read as a `Coding`.
    public func coding(_ key: String) -> Coding? { self[key].flatMap(Coding.init(json:)) }

    /// The member `key` read as a `Quantity`.
    public func quantity(_ key: String) -> Quantity? { self[key].flatMap(Quantity.init(json:)) }

    /// The member `key` read as a `Reference`.
    public func reference(_ key: String) -> Reference? { self[key].flatMap(Reference.init(json:)) }

    /// The member `key` read as a `Period`.
    public func period(_ key: String) -> Period? { self[key].flatMap(Period.init(json:)) }

    /// The member `key` read as an object.
    public func object(_ key: String) -> JSONObject? { self[key]?.objectValue }

    /// The member `key` read as an array (a single value counts as a list of one).
    public func list(_ key: String) -> [JSONValue] {
        switch self[key] {
        case .array(let a)?: return a
        case nil, .null?: return []
        case let v?: return [v]
        }
    }

    /// The member `key` read as a boolean, accepting `"true"`/`"false"` strings.
    public func bool(_ key: String) -> Bool? { self[key]?.lenientBoolValue }
}
