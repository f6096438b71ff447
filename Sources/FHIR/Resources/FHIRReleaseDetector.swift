/// Tells DSTU2 from R4 by what a resource contains, for data that does not say its version.
///
/// Each rule looks for an element or type that exists in only one release; a resource with no
/// such marker gives `nil` and the caller decides (a bundle takes the majority of its entries).
public enum FHIRReleaseDetector {
    /// The release a resource's content points to, or `nil` when it has no marker.
    public static func release(of object: JSONObject, type: FHIRResourceType) -> FHIRRelease? {
        detect(object, type: type)
    }

    /// The release of a resource still on a tape (the object at `index`), by the same rules.
    static func release(of tape: JSONTape, at index: Int, type: FHIRResourceType) -> FHIRRelease? {
        TapeObject(tape, index).flatMap { detect($0, type: type) }
    }

    private static func detect(_ object: some ReleaseMarkers, type: FHIRResourceType) -> FHIRRelease? {
        for s in object.profiles {
            if s.containsBytes("/DSTU2/") || s.containsBytes("/fhir/DSTU2") { return .dstu2 }
            if s.containsBytes("/R4/") || s.containsBytes("hl7.org/fhir/us/core/") { return .r4 }
        }
        let has = { (key: String) in object.kind(of: key) != nil }
        let kind = { (key: String) in object.kind(of: key) }
        switch type.rawValue {
        case "MedicationOrder", "DiagnosticOrder", "Order", "OrderResponse", "DeviceUseRequest", "ProcedureRequest",
            "ReferralRequest", "ProcessRequest", "ProcessResponse", "Conformance":
            return .dstu2
        case "MedicationRequest", "ServiceRequest", "ExplanationOfBenefit", "CapabilityStatement", "ImmunizationEvaluation":
            return .r4
        case "Immunization":
            if has("occurrenceDateTime") || has("occurrenceString") || has("primarySource") { return .r4 }
            if has("wasNotGiven") || has("reported") || has("date") { return .dstu2 }
        case "Condition":
            if has("recordedDate") || kind("clinicalStatus") == .object || has("subject") { return .r4 }
            if has("dateRecorded") || kind("clinicalStatus") == .string || has("patient") { return .dstu2 }
        case "AllergyIntolerance":
            if has("code") || kind("clinicalStatus") == .object { return .r4 }
            if has("substance") || has("recordedDate") { return .dstu2 }
        case "Encounter":
            if has("subject") || kind("class") == .object { return .r4 }
            if has("patient") || kind("class") == .string { return .dstu2 }
        case "Observation", "DiagnosticReport":
            if kind("category") == .array { return .r4 }
            if kind("category") == .object { return .dstu2 }
        case "MedicationStatement":
            if has("medicationCodeableConcept"), has("subject") { return .r4 }
            if has("patient") || has("wasNotTaken") { return .dstu2 }
        case "Procedure":
            if has("notPerformed") { return .dstu2 }
            if has("performedDateTime") || has("performedPeriod"), has("subject"), has("encounter") {
                return .r4
            }
        case "Patient", "Practitioner":
            if object.firstNameFamily == .array { return .dstu2 }
            if object.firstNameFamily == .string { return .r4 }
        case "Claim":
            if has("patient"), kind("type") == .object { return .r4 }
        default:
            break
        }
        return nil
    }
}

/// What the release rules read of a resource's JSON, whether a tree or still on a tape.
protocol ReleaseMarkers {
    /// The kind of the member `key` (the first of that name), `nil` when there is none.
    func kind(of key: String) -> JSONTape.Kind?
    /// The strings of `meta.profile`, read as a list.
    var profiles: [String] { get }
    /// The kind of `name[0].family` when `name` is an array whose first element is an object.
    var firstNameFamily: JSONTape.Kind? { get }
}

extension JSONValue {
    /// The value's kind, as a tape names it.
    var tapeKind: JSONTape.Kind {
        switch self {
        case .null: return .null
        case .bool(let b): return b ? .true : .false
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }
}

extension JSONObject: ReleaseMarkers {
    func kind(of key: String) -> JSONTape.Kind? { self[key]?.tapeKind }
    var profiles: [String] { object("meta")?.list("profile").compactMap(\.stringValue) ?? [] }
    var firstNameFamily: JSONTape.Kind? { self["name"]?[0]?.objectValue?["family"]?.tapeKind }
}

extension TapeObject: ReleaseMarkers {
    func kind(of key: String) -> JSONTape.Kind? { value(key).map { tape.kind($0) } }

    var profiles: [String] {
        guard let meta = tape.member(token, "meta"), tape.kind(meta) == .object, let profile = tape.member(meta, "profile") else { return [] }
        switch tape.kind(profile) {
        case .null: return []
        case .array: return tape.elements(profile).compactMap { tape.string($0) }
        default: return tape.string(profile).map { [$0] } ?? []
        }
    }

    var firstNameFamily: JSONTape.Kind? {
        guard let name = tape.member(token, "name"), tape.kind(name) == .array, let first = tape.elements(name).first, tape.kind(first) == .object,
            let family = tape.member(first, "family")
        else { return nil }
        return tape.kind(family)
    }
}

extension String {
    /// Byte-wise substring search; Foundation's `contains` is locale-aware and slow on hot paths.
    func containsBytes(_ needle: StaticString) -> Bool {
        var copy = self
        return copy.withUTF8 { hay in
            let n = needle.utf8CodeUnitCount
            guard n <= hay.count else { return false }
            let p = needle.utf8Start
            var i = 0
            while i + n <= hay.count {
                if hay[i] == p[0] {
                    var k = 1
                    while k < n, hay[i + k] == p[k] { k += 1 }
                    if k == n { return true }
                }
                i += 1
            }
            return false
        }
    }
}
