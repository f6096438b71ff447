import ClinicalRecords

/// Which consent categories the resources of a FHIR type can be stored under, as
/// `ClinicalClassifier` sorts them: the categories the consent page asks the person about for
/// a scope on that type. What a token then reads is narrower: only the types its scopes name
/// (``ResourceReach``), within the categories the person allowed.
///
/// The sources of truth are `ClinicalType.resourceTypes` and `ContextCategory.byResourceType`.
/// Observations land in four categories: lab result (category `laboratory` or `LAB`, or no
/// category and no vital-sign code), vital sign (`vital-signs`, or a vital-sign LOINC code),
/// social history, and other observations (any other category). DiagnosticReport and
/// DocumentReference are always clinical notes. A type named nowhere is `other`.
public enum ResourceTypeCategories {
    /// Every category a resource of `resourceType` can be stored under; never empty.
    public static func categories(ofResourceType resourceType: String) -> Set<ConsentCategory> {
        var result = Set<ConsentCategory>()
        for type in ClinicalType.allCases where type.resourceTypes.contains(resourceType) {
            result.insert(.clinical(type))
        }
        if resourceType == "Observation" {
            // The non-clinical Observations, sorted by their category codes.
            result.insert(.context(ContextCategory(observationCategories: ["social-history"])))
            result.insert(.context(ContextCategory(observationCategories: [])))
        }
        if let context = ContextCategory.byResourceType[resourceType] {
            result.insert(.context(context))
        }
        if result.isEmpty { result.insert(.context(.other)) }
        return result
    }

    /// The categories a granular scope on `resourceType` with category `code` reaches.
    ///
    /// For Observation the code picks one category: `laboratory` and `LAB` → lab result,
    /// `vital-signs` → vital sign, `social-history` → social history, any other code → other
    /// observations. This is the category of an Observation carrying only that code, and never
    /// more than the app asked for: an Observation the classifier files elsewhere (say an
    /// `exam` Observation with a vital-sign LOINC code, a vital sign) stays outside the scope.
    /// Other types' category codes do not decide where they are stored (every Condition is a
    /// condition, every DiagnosticReport a clinical note), so they reach the whole type's
    /// categories.
    public static func categories(ofResourceType resourceType: String, categoryCode code: String) -> Set<ConsentCategory> {
        guard resourceType == "Observation" else { return categories(ofResourceType: resourceType) }
        switch code {
        case "laboratory", "LAB": return [.clinical(.labResult)]
        case "vital-signs": return [.clinical(.vitalSign)]
        default: return [.context(ContextCategory(observationCategories: [code]))]
        }
    }
}
