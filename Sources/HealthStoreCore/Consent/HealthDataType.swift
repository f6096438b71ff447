import ClinicalRecords

/// A type an app can be granted read access to: a clinical type or a quantity type, as in
/// HealthKit, where both are `HKObjectType`s granted one by one — and, beyond HealthKit, a
/// context category, so that no stored resource is outside consent.
public enum HealthDataType: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Clinical records of one type.
    case clinical(ClinicalType)
    /// Quantity samples of one type.
    case quantity(QuantityType)
    /// Resources of one context category (Patient, visits, claims…).
    case context(ContextCategory)

    /// The command-line name: `lab-result`, `blood-glucose`, `personal-details`…
    public var name: String {
        switch self {
        case .clinical(let t): return t.name
        case .quantity(let t): return t.name
        case .context(let c): return c.name
        }
    }

    public var description: String { name }

    /// Reads a command-line name or HealthKit identifier of any kind.
    public init?(name: String) {
        if let t = ClinicalType(name: name) {
            self = .clinical(t)
        } else if let t = QuantityType(name: name) {
            self = .quantity(t)
        } else if let c = ContextCategory(rawValue: name) {
            self = .context(c)
        } else {
            return nil
        }
    }

    /// Makes the grantable type of a consent category.
    public init(_ category: ConsentCategory) {
        switch category {
        case .clinical(let t): self = .clinical(t)
        case .context(let c): self = .context(c)
        }
    }

    /// Every grantable type: the clinical types, the context categories, then the quantity types.
    public static var allCases: [HealthDataType] {
        ClinicalType.allCases.map(HealthDataType.clinical) + ContextCategory.allCases.map(HealthDataType.context)
            + QuantityType.allCases.map(HealthDataType.quantity)
    }

    /// The clinical type, when it is one.
    public var clinicalType: ClinicalType? {
        if case .clinical(let t) = self { return t }
        return nil
    }

    /// The quantity type, when it is one.
    public var quantityType: QuantityType? {
        if case .quantity(let t) = self { return t }
        return nil
    }

    /// The consent category of stored resources this grant covers; `nil` for quantity types.
    public var consentCategory: ConsentCategory? {
        switch self {
        case .clinical(let t): return .clinical(t)
        case .context(let c): return .context(c)
        case .quantity: return nil
        }
    }

    private var rank: Int {
        switch self {
        case .clinical: return 0
        case .context: return 1
        case .quantity: return 2
        }
    }

    public static func < (a: HealthDataType, b: HealthDataType) -> Bool {
        switch (a, b) {
        case (.clinical(let x), .clinical(let y)): return x < y
        case (.quantity(let x), .quantity(let y)): return x < y
        case (.context(let x), .context(let y)): return x < y
        default: return a.rank < b.rank
        }
    }
}
