/// One token of a scope string, read.
public enum Scope: Sendable, Hashable, CustomStringConvertible {
    /// A resource scope, e.g. `patient/Observation.rs`.
    case resource(ResourceScope)
    /// `openid`, `fhirUser`, `profile`, `launch/patient`, `offline_access` or `online_access`.
    case special(SpecialScope)
    /// A scope this server does not serve, kept as written (SMART lets servers ignore them;
    /// it grants nothing).
    case unrecognized(String)

    /// The token as written (a resource scope in its canonical spelling, which is how it was
    /// written: parsing keeps every character).
    public var text: String {
        switch self {
        case .resource(let scope): return scope.text
        case .special(let scope): return scope.text
        case .unrecognized(let text): return text
        }
    }

    public var description: String { text }
}
