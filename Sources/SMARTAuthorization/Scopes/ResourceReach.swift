import FHIR

/// What a token's resource scopes let it read with one interaction (read by id, or search):
/// per FHIR type, every resource of it, or only those in some granular categories.
///
/// This is the scope's half of what an app reads; the person's consent per category is the
/// other half, and a resource is served only when both admit it. A scope on one type never
/// reaches another type of the same consent category: `patient/Goal.rs` reads Goals, not the
/// ServiceRequests filed beside them.
public struct ResourceReach: Sendable, Hashable {
    /// How much of one type the scopes reach.
    public enum Extent: Sendable, Hashable {
        /// Every resource of the type.
        case whole
        /// Only resources whose `category` has a coding in one of these (granular scopes,
        /// e.g. `patient/Observation.rs?category=laboratory`).
        case categories(Set<GranularCategory>)
    }

    /// Whether a `*` scope reaches every type whole.
    public let everyType: Bool
    /// The types named by scopes, with how much of each they reach.
    public let types: [String: Extent]

    /// A reach from its parts.
    public init(everyType: Bool, types: [String: Extent]) {
        self.everyType = everyType
        self.types = everyType ? [:] : types
    }

    /// What `scopes` reach with `interaction`: every resource scope allowing it adds its type
    /// (or all, for `*`); a scope without a query makes its type whole, granular scopes add
    /// their categories.
    public init(_ scopes: ScopeRequest, for interaction: SMARTInteractions) {
        var everyType = false
        var types: [String: Extent] = [:]
        for scope in scopes.resourceScopes where scope.permissions.interactions.isSuperset(of: interaction) {
            switch scope.resourceType {
            case .all:
                everyType = true
            case .named(let name):
                // A query this server does not read was dropped when parsing (it grants nothing),
                // so a scope here has no query or a category.
                if let category = scope.category {
                    if case .categories(let held)? = types[name] {
                        types[name] = .categories(held.union([category]))
                    } else if types[name] == nil {
                        types[name] = .categories([category])
                    }
                } else if scope.query == nil {
                    types[name] = .whole
                }
            }
        }
        self.init(everyType: everyType, types: types)
    }

    /// How much of `type` the scopes reach; `nil` for none of it.
    public func extent(of type: String) -> Extent? {
        everyType ? .whole : types[type]
    }

    /// Whether the scopes reach any resource at all.
    public var isEmpty: Bool { !everyType && types.isEmpty }

    /// Whether some type is reached only in part (a resource of it must be looked at).
    public var isGranular: Bool {
        types.values.contains { if case .categories = $0 { return true } else { return false } }
    }

    /// Whether the scopes reach this resource: its type, and for a granular type a `category`
    /// coding within one of the granted categories (by code, and by system when the scope
    /// names one).
    public func admits(_ resource: JSONObject) -> Bool {
        guard let type = resource.string("resourceType"), let extent = extent(of: type) else { return false }
        switch extent {
        case .whole:
            return true
        case .categories(let granted):
            let codings = resource.codeableConcepts("category").flatMap(\.coding)
            return codings.contains { coding in
                guard let code = coding.code else { return false }
                return granted.contains { GranularCategory(system: coding.system, code: code).isWithin($0) }
            }
        }
    }
}
