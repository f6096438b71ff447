/// A FHIR `Period`: a start and/or end date.
public struct Period: Sendable, Hashable {
    /// The start, when given and valid.
    public var start: FHIRDate?
    /// The end, when given and valid.
    public var end: FHIRDate?

    /// Makes a period; either end may be open (`nil`).
    public init(start: FHIRDate? = nil, end: FHIRDate? = nil) {
        self.start = start
        self.end = end
    }

    /// Reads a period from JSON; `nil` when the value is not an object.
    public init?(json: JSONValue) {
        guard let o = json.objectValue else { return nil }
        start = o["start"]?.stringValue.flatMap(FHIRDate.init)
        end = o["end"]?.stringValue.flatMap(FHIRDate.init)
    }
}
