/// A FHIR object's members, read the way classification reads them: a parsed ``JSONObject``,
/// or an object still on its ``JSONTape`` (``TapeObject``), read in place without a tree.
///
/// Both read the first member of a repeated name and give the same values for the same JSON;
/// a test reads every shared example both ways.
public protocol FHIRObjectReading {
    /// The string member `key`.
    func string(_ key: String) -> String?
    /// The member `key` read as a date.
    func date(_ key: String) -> FHIRDate?
    /// The member `key` read as a `CodeableConcept`.
    func codeableConcept(_ key: String) -> CodeableConcept?
    /// The member `key` read as a list of `CodeableConcept`s; a single object counts as a list of one.
    func codeableConcepts(_ key: String) -> [CodeableConcept]
    /// The member `key` read as a `Reference`.
    func reference(_ key: String) -> Reference?
    /// The member `key` read as a `Period`.
    func period(_ key: String) -> Period?
    /// The member `key` read as an object.
    func object(_ key: String) -> Self?
    /// The objects of the list in member `key` (a single value counts as a list of one), other
    /// values left out.
    func objects(_ key: String) -> [Self]
    /// The first value of the list in member `key` (a single value counts as a list of one),
    /// when it is an object.
    func firstObject(_ key: String) -> Self?
}

extension JSONObject: FHIRObjectReading {
    public func objects(_ key: String) -> [JSONObject] { list(key).compactMap(\.objectValue) }

    public func firstObject(_ key: String) -> JSONObject? { list(key).first?.objectValue }
}
