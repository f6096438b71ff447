import FHIR

/// Whether a downloaded resource is the connected patient's, read from the elements that name
/// whom a resource is about (`subject`, `patient`, `beneficiary`, `individual`, `candidate`).
///
/// A server that ignores `patient=`, or returns a bundle mixing people, must not fill the
/// person's store with someone else's records, so the rule keeps only what is shown to be the
/// patient's: every such reference must resolve to the connected Patient. A reference is read
/// as FHIR defines it: `_history` is stripped, `urn:uuid:` and absolute URLs resolve against
/// the Bundle's `fullUrl`s, `#id` names a contained resource (a contained Patient is never the
/// connected one). A reference that cannot be resolved to a Patient (an identifier alone,
/// `Group/…`, a display), and a patient-compartment resource with no such element at all, are
/// left out too: the store cannot tell whose they are.
enum PatientCompartment {
    /// Why a resource was left out.
    enum LeftOut: Sendable, Hashable {
        /// It is, or names, another Patient.
        case otherPatient
        /// It names someone the rule cannot resolve to a Patient.
        case unresolvable
        /// A patient-compartment type that names nobody.
        case noSubject
    }

    /// The elements that name whom a resource is about, across R4 and DSTU2.
    static let elements = ["subject", "patient", "beneficiary", "individual", "candidate"]

    /// Types of FHIR's patient compartment (R4 and DSTU2) that are about the patient through
    /// one of ``elements``: such a resource naming nobody is not known to be the patient's.
    static let types: Set<String> = [
        "Account", "AdverseEvent", "AllergyIntolerance", "BodySite", "BodyStructure", "CarePlan", "CareTeam", "ChargeItem", "Claim",
        "ClaimResponse", "ClinicalImpression", "Communication", "CommunicationRequest", "Composition", "Condition", "Consent", "Coverage",
        "CoverageEligibilityRequest", "CoverageEligibilityResponse", "DetectedIssue", "DeviceRequest", "DeviceUseRequest", "DeviceUseStatement",
        "DiagnosticOrder", "DiagnosticReport", "DocumentManifest", "DocumentReference", "EligibilityRequest", "Encounter", "EnrollmentRequest",
        "EpisodeOfCare", "ExplanationOfBenefit", "FamilyMemberHistory", "Flag", "Goal", "ImagingObjectSelection", "ImagingStudy", "Immunization",
        "ImmunizationEvaluation", "ImmunizationRecommendation", "List", "Media", "MedicationAdministration", "MedicationDispense",
        "MedicationOrder", "MedicationRequest", "MedicationStatement", "NutritionOrder", "Observation", "Procedure", "ProcedureRequest",
        "QuestionnaireResponse", "ReferralRequest", "RelatedPerson", "RequestGroup", "ResearchSubject", "RiskAssessment", "ServiceRequest",
        "Specimen", "SupplyDelivery", "VisionPrescription",
    ]

    /// What a reference resolves to.
    enum Resolved: Equatable {
        case connected
        case otherPatient
        case unresolvable
    }

    /// Why `resource` is left out, or `nil` to keep it.
    ///
    /// - Parameters:
    ///   - patient: the connected Patient's id at the provider.
    ///   - resolve: the Bundle entry a reference names (by `fullUrl`, else `Type/id`), if any.
    static func leftOut<Object: FHIRObjectReading>(
        _ resource: FHIRResource, _ object: Object, patient: String, resolve: (String) -> Object?
    ) -> LeftOut? {
        if resource.resourceType == .patient { return resource.identifier == patient ? nil : .otherPatient }
        var named = 0
        for element in elements {
            for reference in object.objects(element) {
                named += 1
                switch resolved(reference.string("reference"), patient: patient, resolve: resolve) {
                case .connected: continue
                case .otherPatient: return .otherPatient
                case .unresolvable: return .unresolvable
                }
            }
        }
        if named == 0, types.contains(resource.resourceType.rawValue) { return .noSubject }
        return nil
    }

    /// What one reference's text resolves to; `nil` (no `reference`: an identifier or a display
    /// alone) is unresolvable.
    static func resolved<Object: FHIRObjectReading>(_ reference: String?, patient: String, resolve: (String) -> Object?) -> Resolved {
        guard let reference, !reference.isEmpty, !reference.hasPrefix("#") else { return .unresolvable }
        if let entry = resolve(reference) {
            guard entry.string("resourceType") == "Patient" else { return .unresolvable }
            return entry.string("id") == patient ? .connected : .otherPatient
        }
        guard !reference.hasPrefix("urn:"), let (type, id) = typeAndID(reference) else { return .unresolvable }
        guard type == "Patient" else { return .unresolvable }
        return id == patient ? .connected : .otherPatient
    }

    /// The type and id of a literal reference, `[base/]Type/id[/_history/version]`.
    static func typeAndID(_ reference: String) -> (type: Substring, id: Substring)? {
        var parts = reference.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 4, parts[parts.count - 2] == "_history" { parts.removeLast(2) }
        guard parts.count >= 2, !parts[parts.count - 1].isEmpty, !parts[parts.count - 2].isEmpty else { return nil }
        return (parts[parts.count - 2], parts[parts.count - 1])
    }
}
