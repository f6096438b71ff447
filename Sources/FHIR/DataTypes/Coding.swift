/// A FHIR `Coding`: a code from a code system.
public struct Coding: Sendable, Hashable {
    /// The code system URI, e.g. `http://loinc.org`.
    public var system: String?
    /// The version of ``system`` the code comes from, as the sender wrote it.
    public var version: String?
    /// The code within ``system``, e.g. `4548-4`; a code written as a JSON number is kept as its text.
    public var code: String?
    /// The human display the sender chose.
    public var display: String?
    /// Whether the user picked this coding.
    public var userSelected: Bool?

    /// Makes a coding; every field is optional, as in FHIR.
    public init(system: String? = nil, version: String? = nil, code: String? = nil, display: String? = nil, userSelected: Bool? = nil) {
        self.system = system
        self.version = version
        self.code = code
        self.display = display
        self.userSelected = userSelected
    }

    /// Reads a coding from JSON; `nil` when the value is not an object.
    public init?(json: JSONValue) {
        guard let o = json.objectValue else { return nil }
        system = o["system"]?.stringValue
        version = o["version"]?.stringValue
        code = o["code"]?.stringValue ?? o["code"]?.numberValue?.text
        display = o["display"]?.stringValue
        userSelected = o["userSelected"]?.lenientBoolValue
    }
}

/// Well-known code system URIs.
public enum CodeSystem {
    /// LOINC, the system preferred for observation names and the vital-sign codes.
    public static let loinc = "http://loinc.org"
    /// CDC CVX vaccine codes.
    public static let cvx = "http://hl7.org/fhir/sid/cvx"
    /// RxNorm, the system preferred for medication names.
    public static let rxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"
    /// SNOMED CT, the system preferred for condition names.
    public static let snomed = "http://snomed.info/sct"
    /// The R4 observation-category code system.
    public static let observationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// The DSTU2 observation-category code system.
    public static let observationCategoryDSTU2 = "http://hl7.org/fhir/observation-category"
}
