extension ScopeRequest {
    /// The special scopes a grant keeps when they were asked for.
    static let grantedSpecialScopes: Set<SpecialScope> = [.openid, .fhirUser, .profile, .launchPatient, .offlineAccess, .onlineAccess]

    /// What this server grants for the request, in the form asked for: each resource scope
    /// that reaches a consent category, without create, update and delete
    /// (``ResourceScope/readOnly``; v1 `patient/X.*` → `patient/X.read`, v2 `patient/X.cruds`
    /// → `patient/X.rs`, granular queries kept), then nothing else but the special scopes
    /// asked for. Unrecognized scopes and scopes that allow neither read nor search are dropped.
    ///
    /// The grant is deliberately not narrowed by the person's answers per category: a denied
    /// category must look like one without data, so the token's `scope` cannot tell an app
    /// which categories the person refused.
    public var granted: ScopeRequest {
        ScopeRequest(scopes: scopes.compactMap { scope -> Scope? in
            switch scope {
            case .resource(let resource):
                guard let kept = resource.readOnly, !kept.consentCategories.isEmpty else { return nil }
                return .resource(kept)
            case .special(let special):
                return Self.grantedSpecialScopes.contains(special) ? scope : nil
            case .unrecognized:
                return nil
            }
        })
    }

    /// ``granted`` as the token response's `scope` string.
    public var grantedScope: String { granted.text }
}
