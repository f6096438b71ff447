/// A FHIR `Quantity`: a decimal value with its exact text, and a unit.
public struct Quantity: Sendable, Hashable {
    /// The value, exact text kept.
    public var value: FHIRDecimal?
    /// `<`, `<=`, `>=` or `>` when the value is a bound.
    public var comparator: String?
    /// The unit as displayed.
    public var unit: String?
    /// The unit's code system (UCUM is `http://unitsofmeasure.org`).
    public var system: String?
    /// The unit's code in ``system`` (e.g. `mm[Hg]` in UCUM), as opposed to the displayed ``unit``.
    public var code: String?

    /// Makes a quantity; nothing checks that the unit and the code agree.
    public init(value: FHIRDecimal? = nil, comparator: String? = nil, unit: String? = nil, system: String? = nil, code: String? = nil) {
        self.value = value
        self.comparator = comparator
        self.unit = unit
        self.system = system
        self.code = code
    }

    /// Reads a quantity from JSON; `nil` when the value is not an object.
    ///
    /// A value written as a string (`"6.0"`, seen in sloppy exports) keeps its text when it is a valid number.
    public init?(json: JSONValue) {
        guard let o = json.objectValue else { return nil }
        switch o["value"] {
        case .number(let n)?: value = FHIRDecimal(n)
        case .string(let s)?: value = FHIRDecimal(text: s)
        default: value = nil
        }
        comparator = o["comparator"]?.stringValue
        unit = o["unit"]?.stringValue
        system = o["system"]?.stringValue
        code = o["code"]?.stringValue
    }
}
