/// A FHIR `CodeableConcept`: codings plus optional plain text.
public struct CodeableConcept: Sendable, Hashable {
    /// The codings, in the order given.
    public var coding: [Coding]
    /// Text the sender wrote for the concept; display names prefer it over any coding's display.
    public var text: String?

    /// Makes a concept; the order of `coding` is kept, and ``coding(system:)`` returns the first match.
    public init(coding: [Coding] = [], text: String? = nil) {
        self.coding = coding
        self.text = text
    }

    /// Reads a concept from JSON; `nil` when the value is not an object.
    ///
    /// A single `coding` object (seen in sloppy exports) is accepted as a one-element list.
    public init?(json: JSONValue) {
        guard let o = json.objectValue else { return nil }
        switch o["coding"] {
        case .array(let a)?: coding = a.compactMap(Coding.init(json:))
        case .object?: coding = Coding(json: o["coding"]!).map { [$0] } ?? []
        default: coding = []
        }
        text = o["text"]?.stringValue
    }

    /// The first coding from a system, if any.
    public func coding(system: String) -> Coding? {
        coding.first { $0.system == system }
    }

    /// Whether any coding has this system and code.
    public func contains(system: String?, code: String) -> Bool {
        coding.contains { $0.code == code && (system == nil || $0.system == system) }
    }
}
