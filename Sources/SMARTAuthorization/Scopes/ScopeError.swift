/// Why a requested scope string cannot be served: each case names the scope token at fault.
///
/// The HTTP layer answers these with `invalid_scope` (RFC 6749 §4.1.2.1 at `/authorize`,
/// §5.2 at `/token`). Scopes the server merely does not know are not errors: SMART lets a
/// server ignore them, and ``ScopeRequest`` keeps them as ``Scope/unrecognized(_:)``.
public enum ScopeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token has a character RFC 6749 §3.3 does not allow in a scope (a control
    /// character, a space other than the separator, `"` or `\`).
    case invalidCharacter(scope: String)
    /// A `system/` scope: backend services act without a person, and this server only serves
    /// a person's own records to apps the person approved.
    case systemScope(scope: String)
    /// Nothing between the context and the permissions, as in `patient/.read`.
    case missingResourceType(scope: String)
    /// The resource type is neither `*` nor a FHIR type name (a capital letter, then letters
    /// or digits).
    case invalidResourceType(scope: String, type: String)
    /// No `.` and permissions after the resource type, as in `patient/Observation`.
    case missingPermissions(scope: String)
    /// The permissions are neither v1 (`read`, `write`, `*`) nor v2 letters from `cruds`.
    case unknownPermission(scope: String, permissions: String)
    /// v2 letters repeated or out of the order `c r u d s`, as in `patient/Observation.sr`.
    case permissionsOutOfOrder(scope: String, permissions: String)
    /// A `?` query on a v1 scope: granular scopes are a v2 feature.
    case granularScopeWithVersion1Permissions(scope: String)
    /// A `?` query on the `*` resource type: a category code means something only for one type.
    case granularScopeOnWildcard(scope: String)
    /// The `?` query is empty, has an empty value, or a `category` value with an empty code.
    case malformedQuery(scope: String, query: String)

    /// The scope token at fault.
    public var scope: String {
        switch self {
        case .invalidCharacter(let s), .systemScope(let s), .missingResourceType(let s), .missingPermissions(let s),
            .granularScopeWithVersion1Permissions(let s), .granularScopeOnWildcard(let s):
            return s
        case .invalidResourceType(let s, _), .unknownPermission(let s, _), .permissionsOutOfOrder(let s, _), .malformedQuery(let s, _):
            return s
        }
    }

    public var description: String {
        switch self {
        case .invalidCharacter(let s): return "scope \(s.debugDescription) contains a character scopes cannot have"
        case .systemScope(let s): return "scope \(s): system/ scopes are not served; ask for patient/ or user/ scopes"
        case .missingResourceType(let s): return "scope \(s) names no resource type"
        case .invalidResourceType(let s, let t): return "scope \(s): \(t.debugDescription) is not a FHIR resource type or *"
        case .missingPermissions(let s): return "scope \(s) has no permissions after the resource type (e.g. .read or .rs)"
        case .unknownPermission(let s, let p): return "scope \(s): permissions \(p.debugDescription) are not read, write, * or letters of cruds"
        case .permissionsOutOfOrder(let s, let p): return "scope \(s): permission letters \(p.debugDescription) must follow the order c, r, u, d, s, once each"
        case .granularScopeWithVersion1Permissions(let s): return "scope \(s): a ?query needs v2 permissions (e.g. .rs)"
        case .granularScopeOnWildcard(let s): return "scope \(s): a ?query needs one resource type, not *"
        case .malformedQuery(let s, let q): return "scope \(s): query \(q.debugDescription) is not name=value"
        }
    }
}
