extension ScopeRequest {
    /// Whether this request (a refresh's `scope`) asks for nothing beyond `grant` (the scope
    /// granted before), as RFC 6749 §6 requires; anything else is escalation (`invalid_scope`).
    ///
    /// Every special and unrecognized scope must be in `grant`. Every interaction of every
    /// resource scope must be covered by a resource scope of `grant` with the same context
    /// (`patient/` or `user/`), the same type or `*`, that interaction, and either no granular
    /// category or one this scope stays within. So `patient/Observation.r` and
    /// `patient/Observation.rs?category=laboratory` narrow `patient/Observation.rs`, which
    /// narrows `patient/*.rs`; `patient/Observation.rs` does not narrow
    /// `patient/Observation.rs?category=laboratory`, and `patient/Observation.cruds` does not
    /// narrow `patient/Observation.rs`. v1 `read` is `rs`, so `patient/X.read` and
    /// `patient/X.rs` narrow each other.
    public func isNarrowing(of grant: ScopeRequest) -> Bool {
        let grantedScopes = Set(grant.scopes)
        let grantedResources = grant.resourceScopes
        for scope in scopes {
            switch scope {
            case .special, .unrecognized:
                guard grantedScopes.contains(scope) else { return false }
            case .resource(let resource):
                for interaction in SMARTInteractions.ordered where resource.permissions.interactions.contains(interaction) {
                    guard grantedResources.contains(where: { resource.isCovered(by: $0, for: interaction) }) else { return false }
                }
            }
        }
        return true
    }
}
