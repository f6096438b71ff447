import ClinicalRecords
import FHIR

/// One SMART resource scope: `context/Type.permissions[?category=…]`, e.g. `patient/Observation.read`,
/// `user/*.rs` or `patient/Observation.rs?category=laboratory`.
public struct ResourceScope: Sendable, Hashable, CustomStringConvertible {
    /// Whose data the scope is about. Both mean the person's own records here: the store holds
    /// one person, who is both the patient and the user.
    public enum Context: String, Sendable, Hashable {
        /// `patient/`: the launch patient's data.
        case patient
        /// `user/`: what the signed-in user may see.
        case user
    }

    /// The resource type a scope names: one FHIR type, or `*` for all.
    public enum ResourceType: Sendable, Hashable, CustomStringConvertible {
        /// `*`.
        case all
        /// One type, e.g. `Observation`.
        case named(String)

        public var description: String {
            switch self {
            case .all: return "*"
            case .named(let name): return name
            }
        }
    }

    /// `patient` or `user`.
    public let context: Context
    /// The type, or `*`.
    public let resourceType: ResourceType
    /// What the scope allows.
    public let permissions: ScopePermissions
    /// The query after `?`, as written (without the `?`); nil for a scope without one.
    public let query: String?
    /// The granular category the query selects; nil without a query, or for a query this
    /// server does not understand (such scopes are kept as unrecognized by ``ScopeRequest``).
    public let category: GranularCategory?

    /// A scope from its parts; `query` is written as given, and `category` is what it selects.
    public init(context: Context, resourceType: ResourceType, permissions: ScopePermissions, query: String? = nil, category: GranularCategory? = nil) {
        self.context = context
        self.resourceType = resourceType
        self.permissions = permissions
        self.query = query
        self.category = category
    }

    /// The scope as a token: `patient/Observation.rs?category=laboratory`.
    public var text: String {
        "\(context.rawValue)/\(resourceType).\(permissions.text)" + (query.map { "?\($0)" } ?? "")
    }

    public var description: String { text }

    /// The consent categories this scope reaches: none unless it allows read or search; for
    /// `*` every category; else the categories of its type (``ResourceTypeCategories``),
    /// narrowed by a granular category.
    public var consentCategories: Set<ConsentCategory> {
        guard permissions.allowsReading else { return [] }
        switch resourceType {
        case .all:
            return Set(ConsentCategory.allCases)
        case .named(let name):
            if let category { return ResourceTypeCategories.categories(ofResourceType: name, categoryCode: category.code) }
            return ResourceTypeCategories.categories(ofResourceType: name)
        }
    }

    /// What this server grants for the scope: the same scope without create, update and
    /// delete (v1 `*` → `read`, v2 `cruds` → `rs`), granular query kept; nil when the scope
    /// allows neither read nor search.
    public var readOnly: ResourceScope? {
        guard let kept = permissions.readOnly else { return nil }
        return ResourceScope(context: context, resourceType: resourceType, permissions: kept, query: query, category: category)
    }

    /// Whether a refresh asking for `self` asks for nothing beyond `grant` on `interaction`:
    /// the same context, `grant`'s type is `*` or the same, `grant` allows the interaction, and
    /// `grant` is either not granular or granular on a category `self` stays within.
    func isCovered(by grant: ResourceScope, for interaction: SMARTInteractions) -> Bool {
        guard context == grant.context, grant.permissions.interactions.contains(interaction) else { return false }
        if grant.resourceType != .all, grant.resourceType != resourceType { return false }
        guard grant.query != nil else { return true }
        guard let granted = grant.category, let mine = category else { return false }
        return mine.isWithin(granted)
    }
}

extension ResourceScope {
    /// Reads a token that starts with `patient/`, `user/` or `system/`.
    ///
    /// - Returns: the scope, or nil when the context is another one, or when its query asks
    ///   for something other than one `category` (a server may ignore scopes it does not
    ///   support; reading such a scope as the whole type would grant more than was asked).
    /// - Throws: ``ScopeError`` when the token is malformed or a `system/` scope.
    init?(parsing token: String) throws(ScopeError) {
        guard let slash = token.firstIndex(of: "/") else { throw .missingResourceType(scope: token) }
        let contextText = token[..<slash]
        let context: Context
        switch contextText {
        case "patient": context = .patient
        case "user": context = .user
        case "system": throw .systemScope(scope: token)
        default: return nil
        }
        let rest = token[token.index(after: slash)...]
        let beforeQuery: Substring
        let query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            beforeQuery = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        } else {
            beforeQuery = rest
            query = nil
        }
        guard let dot = beforeQuery.firstIndex(of: ".") else {
            if beforeQuery.isEmpty { throw .missingResourceType(scope: token) }
            throw .missingPermissions(scope: token)
        }
        let typeText = beforeQuery[..<dot]
        let resourceType: ResourceType
        if typeText.isEmpty {
            throw .missingResourceType(scope: token)
        } else if typeText == "*" {
            resourceType = .all
        } else if Self.isResourceTypeName(typeText) {
            resourceType = .named(String(typeText))
        } else {
            throw .invalidResourceType(scope: token, type: String(typeText))
        }
        let permissions = try ScopePermissions(parsing: beforeQuery[beforeQuery.index(after: dot)...], scope: token)
        var category: GranularCategory?
        if let query {
            guard permissions.notation == .version2 else { throw .granularScopeWithVersion1Permissions(scope: token) }
            guard resourceType != .all else { throw .granularScopeOnWildcard(scope: token) }
            guard !query.isEmpty else { throw .malformedQuery(scope: token, query: String(query)) }
            let parameters = query.split(separator: "&", omittingEmptySubsequences: false)
            for parameter in parameters {
                guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex,
                    parameter.index(after: equals) != parameter.endIndex
                else { throw .malformedQuery(scope: token, query: String(query)) }
            }
            guard parameters.count == 1, let parameter = parameters.first, parameter.hasPrefix("category=") else { return nil }
            guard let parsed = GranularCategory(parameterValue: parameter.dropFirst("category=".count)) else {
                throw .malformedQuery(scope: token, query: String(query))
            }
            category = parsed
        }
        self.init(context: context, resourceType: resourceType, permissions: permissions, query: query.map(String.init), category: category)
    }

    /// Whether `name` can be a FHIR resource type: a capital ASCII letter, then ASCII letters
    /// or digits, at most 64 in all.
    static func isResourceTypeName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, (0x41...0x5A).contains(first) else { return false }
        return FHIRResourceType(String(name)).isWellFormed
    }
}
