/// Tells DSTU2 from R4 by what a resource contains, for data that does not say its version.
///
/// Each rule looks for an element or type that exists in only one release; a resource with no
/// such marker gives `nil` and the caller decides (a bundle takes the majority of its entries).
public enum FHIRReleaseDetector {
    /// The release a resource's content points to, or `nil` when it has no marker.
    public static func release(of object: JSONObject, type: FHIRResourceType) -> FHIRRelease? {
        if let profiles = object.object("meta")?.list("profile") {
            for p in profiles {
                guard let s = p.stringValue else { continue }
                if s.containsBytes("/DSTU2/") || s.containsBytes("/fhir/DSTU2") { return .dstu2 }
                if s.containsBytes("/R4/") || s.containsBytes("hl7.org/fhir/us/core/") { return .r4 }
            }
        }
        switch type.rawValue {
        case "MedicationOrder", "DiagnosticOrder", "Order", "OrderResponse", "DeviceUseRequest", "ProcedureRequest",
            "ReferralRequest", "ProcessRequest", "ProcessResponse", "Conformance":
            return .dstu2
        case "MedicationRequest", "ServiceRequest", "ExplanationOfBenefit", "CapabilityStatement", "ImmunizationEvaluation":
            return .r4
        case "Immunization":
            if object["occurrenceDateTime"] != nil || object["occurrenceString"] != nil || object["primarySource"] != nil { return .r4 }
            if object["wasNotGiven"] != nil || object["reported"] != nil || object["date"] != nil { return .dstu2 }
        case "Condition":
            if object["recordedDate"] != nil || object["clinicalStatus"]?.objectValue != nil || object["subject"] != nil { return .r4 }
            if object["dateRecorded"] != nil || object["clinicalStatus"]?.stringValue != nil || object["patient"] != nil { return .dstu2 }
        case "AllergyIntolerance":
            if object["code"] != nil || object["clinicalStatus"]?.objectValue != nil { return .r4 }
            if object["substance"] != nil || object["recordedDate"] != nil { return .dstu2 }
        case "Encounter":
            if object["subject"] != nil || object["class"]?.objectValue != nil { return .r4 }
            if object["patient"] != nil || object["class"]?.stringValue != nil { return .dstu2 }
        case "Observation", "DiagnosticReport":
            if object["category"]?.arrayValue != nil { return .r4 }
            if object["category"]?.objectValue != nil { return .dstu2 }
        case "MedicationStatement":
            if object["medicationCodeableConcept"] != nil, object["subject"] != nil { return .r4 }
            if object["patient"] != nil || object["wasNotTaken"] != nil { return .dstu2 }
        case "Procedure":
            if object["notPerformed"] != nil { return .dstu2 }
            if object["performedDateTime"] != nil || object["performedPeriod"] != nil, object["subject"] != nil, object["encounter"] != nil {
                return .r4
            }
        case "Patient", "Practitioner":
            if let name = object["name"]?[0]?.objectValue, name["family"]?.arrayValue != nil { return .dstu2 }
            if let name = object["name"]?[0]?.objectValue, name["family"]?.stringValue != nil { return .r4 }
        case "Claim":
            if object["patient"] != nil, object["type"]?.objectValue != nil { return .r4 }
        default:
            break
        }
        return nil
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
