import SMARTAuthorization

/// What a SMART access token's scopes reach: one ``ResourceReach`` for reads by id (`r`) and
/// one for searches and `$everything` (`s`).
struct TokenScopes: Sendable, Hashable {
    /// What reads by id reach.
    let read: ResourceReach
    /// What searches reach.
    let search: ResourceReach

    /// The reach of a granted scope string; a damaged one reaches nothing.
    init(scope: String) {
        let request = (try? ScopeRequest(parsing: scope)) ?? ScopeRequest(scopes: [])
        read = ResourceReach(request, for: .read)
        search = ResourceReach(request, for: .search)
    }
}
