/// The one consent category every stored resource belongs to: one of HealthKit's nine clinical
/// types, or a ``ContextCategory`` for everything else.
///
/// Consent is granted per category, so this is what visibility is decided on. The raw value
/// is the category's name; clinical types and context categories never share a name.
public enum ConsentCategory: Sendable, Hashable, Comparable, RawRepresentable, CustomStringConvertible {
    /// A clinical record of one of HealthKit's types.
    case clinical(ClinicalType)
    /// A resource outside the clinical types.
    case context(ContextCategory)

    /// Reads a category name (`lab-result`, `personal-details`…).
    public init?(rawValue: String) {
        if let t = ClinicalType(rawValue: rawValue) {
            self = .clinical(t)
        } else if let c = ContextCategory(rawValue: rawValue) {
            self = .context(c)
        } else {
            return nil
        }
    }

    /// The category's name.
    public var rawValue: String {
        switch self {
        case .clinical(let t): return t.rawValue
        case .context(let c): return c.rawValue
        }
    }

    public var description: String { rawValue }

    /// A heading for people.
    public var title: String {
        switch self {
        case .clinical(let t): return t.title
        case .context(let c): return c.title
        }
    }

    /// The clinical type, when the category is one.
    public var clinicalType: ClinicalType? {
        if case .clinical(let t) = self { return t }
        return nil
    }

    /// Every category: the clinical types, then the context categories.
    public static var allCases: [ConsentCategory] {
        ClinicalType.allCases.map(ConsentCategory.clinical) + ContextCategory.allCases.map(ConsentCategory.context)
    }

    public static func < (a: ConsentCategory, b: ConsentCategory) -> Bool {
        switch (a, b) {
        case (.clinical(let x), .clinical(let y)): return x < y
        case (.context(let x), .context(let y)): return x < y
        case (.clinical, .context): return true
        case (.context, .clinical): return false
        }
    }
}
