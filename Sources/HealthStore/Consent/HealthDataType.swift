import ClinicalRecords

/// A type an app can be granted read access to: a clinical type or a quantity type, as in
/// HealthKit, where both are `HKObjectType`s granted one by one.
public enum HealthDataType: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Clinical records of one type.
    case clinical(ClinicalType)
    /// Quantity samples of one type.
    case quantity(QuantityType)

    /// The command-line name: `lab-result`, `blood-glucose`…
    public var name: String {
        switch self {
        case .clinical(let t): return t.name
        case .quantity(let t): return t.name
        }
    }

    public var description: String { name }

    /// Reads a command-line name or HealthKit identifier of either kind.
    public init?(name: String) {
        if let t = ClinicalType(name: name) {
            self = .clinical(t)
        } else if let t = QuantityType(name: name) {
            self = .quantity(t)
        } else {
            return nil
        }
    }

    /// Every grantable type: the clinical types, then the quantity types.
    public static var allCases: [HealthDataType] {
        ClinicalType.allCases.map(HealthDataType.clinical) + QuantityType.allCases.map(HealthDataType.quantity)
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

    public static func < (a: HealthDataType, b: HealthDataType) -> Bool {
        switch (a, b) {
        case (.clinical(let x), .clinical(let y)): return x < y
        case (.quantity(let x), .quantity(let y)): return x < y
        case (.clinical, .quantity): return true
        case (.quantity, .clinical): return false
        }
    }
}
