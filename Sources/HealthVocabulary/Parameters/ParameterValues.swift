import ClinicalRecords
import FHIR
import HealthStoreCore

/// Readers for the values several queries share: type names, counts, sort orders.
extension QueryParameters {
    /// A clinical type (`lab-result` or HealthKit's identifier); `nil` when absent.
    public func clinicalType(_ name: ParameterName = .type) throws(ParameterError) -> ClinicalType? {
        guard let text = try single(name) else { return nil }
        guard let type = ClinicalType(name: text) else { throw .notOneOf(name, value: text, choices: ClinicalType.allCases.map(\.name)) }
        return type
    }

    /// Clinical types of a list parameter; `nil` when none is named (every type).
    public func clinicalTypes(_ name: ParameterName = .types) throws(ParameterError) -> Set<ClinicalType>? {
        let names = list(name)
        guard !names.isEmpty else { return nil }
        var types = Set<ClinicalType>()
        for text in names {
            guard let type = ClinicalType(name: text) else { throw .notOneOf(name, value: text, choices: ClinicalType.allCases.map(\.name)) }
            types.insert(type)
        }
        return types
    }

    /// Grantable types of a list parameter (clinical types, context categories, quantity
    /// types), each once, in their order.
    public func dataTypes(_ name: ParameterName = .types) throws(ParameterError) -> [HealthDataType] {
        var types = Set<HealthDataType>()
        for text in list(name) {
            guard let type = HealthDataType(name: text) else { throw .notOneOf(name, value: text, choices: HealthDataType.allCases.map(\.name)) }
            types.insert(type)
        }
        return types.sorted()
    }

    /// A quantity type (`blood-glucose` or HealthKit's identifier); `nil` when absent.
    public func quantityType(_ name: ParameterName = .type) throws(ParameterError) -> QuantityType? {
        guard let text = try single(name) else { return nil }
        guard let type = QuantityType(name: text) else { throw .notOneOf(name, value: text, choices: QuantityType.allCases.map(\.name)) }
        return type
    }

    /// A FHIR resource type name; `nil` when absent.
    public func resourceType(_ name: ParameterName = .resourceType) throws(ParameterError) -> FHIRResourceType? {
        guard let text = try single(name) else { return nil }
        let type = FHIRResourceType(text)
        guard type.isWellFormed else { throw .notAResourceType(name, value: text) }
        return type
    }

    /// A non-empty text value (a source identifier); `nil` when absent or empty, as an empty
    /// value in a URL (`source=`) asks for nothing in particular.
    public func text(_ name: ParameterName) throws(ParameterError) -> String? {
        guard let text = try single(name), !text.isEmpty else { return nil }
        return text
    }

    /// The most items to return: the value given, cut to `cap` (a server's limit per query);
    /// `cap` when absent (`nil`: no limit).
    public func limit(_ name: ParameterName = .limit, cap: Int? = nil) throws(ParameterError) -> Int? {
        guard let text = try single(name) else { return cap }
        guard let n = Int(text), n >= 0 else { throw .notACount(name, value: text) }
        return cap.map { min(n, $0) } ?? n
    }

    /// A sort order: a key, or `-` and a key for newest first; `nil` when absent.
    public func sort<Key: RawRepresentable<String> & CaseIterable>(
        _ name: ParameterName = .sort, keys: Key.Type
    ) throws(ParameterError) -> (key: Key, ascending: Bool)? {
        guard let text = try single(name) else { return nil }
        let descending = text.hasPrefix("-")
        guard let key = Key(rawValue: descending ? String(text.dropFirst()) : text) else {
            let names = Key.allCases.map(\.rawValue)
            throw .notOneOf(name, value: text, choices: names + names.map { "-" + $0 })
        }
        return (key, !descending)
    }
}
