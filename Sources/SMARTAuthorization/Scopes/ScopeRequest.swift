import ClinicalRecords

/// A space-separated scope string, read: what an app asks for at `/authorize` or `/token`, or
/// what was granted.
///
/// Tokens are kept in the order written, each once. Resource scopes with a `patient/` or
/// `user/` context are read strictly (a malformed one is a ``ScopeError``); `system/` scopes
/// are refused; scopes this server does not know are kept as ``Scope/unrecognized(_:)`` and
/// grant nothing.
public struct ScopeRequest: Sendable, Hashable, CustomStringConvertible {
    /// The scopes, in the order written, without repeats.
    public let scopes: [Scope]

    /// Scopes already read; repeats are dropped.
    public init(scopes: [Scope]) {
        var seen = Set<Scope>()
        self.scopes = scopes.filter { seen.insert($0).inserted }
    }

    /// Reads a scope string (RFC 6749 §3.3: tokens separated by spaces; runs of spaces and
    /// leading or trailing spaces are tolerated). An empty string reads as no scopes.
    public init(parsing text: String) throws(ScopeError) {
        var scopes: [Scope] = []
        for token in text.split(separator: " ") {
            scopes.append(try Self.parse(String(token)))
        }
        self.init(scopes: scopes)
    }

    private static func parse(_ token: String) throws(ScopeError) -> Scope {
        // scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
        guard token.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }) else {
            throw .invalidCharacter(scope: token)
        }
        if let special = SpecialScope(rawValue: token) { return .special(special) }
        if token.hasPrefix("patient/") || token.hasPrefix("user/") || token.hasPrefix("system/") {
            if let scope = try ResourceScope(parsing: token) { return .resource(scope) }
        }
        return .unrecognized(token)
    }

    /// The resource scopes, in order.
    public var resourceScopes: [ResourceScope] {
        scopes.compactMap { if case .resource(let s) = $0 { return s } else { return nil } }
    }

    /// The special scopes asked for.
    public var specialScopes: Set<SpecialScope> {
        Set(scopes.compactMap { if case .special(let s) = $0 { return s } else { return nil } })
    }

    /// The tokens this server ignores, in order.
    public var unrecognized: [String] {
        scopes.compactMap { if case .unrecognized(let s) = $0 { return s } else { return nil } }
    }

    /// Whether a special scope was asked for.
    public func contains(_ special: SpecialScope) -> Bool { scopes.contains(.special(special)) }

    /// Whether there are no scopes at all.
    public var isEmpty: Bool { scopes.isEmpty }

    /// Whether `offline_access` was asked for: the contract issues a refresh token only then.
    public var asksForOfflineAccess: Bool { contains(.offlineAccess) }

    /// Whether the token response carries an id token: `openid` with `fhirUser` (or SMART v1's
    /// `profile`).
    public var asksForIDToken: Bool { contains(.openid) && (contains(.fhirUser) || contains(.profile)) }

    /// Whether the token response names the patient: `launch/patient`.
    ///
    /// The server has one patient, so it may name it anyway; SMART lets it.
    public var asksForPatientContext: Bool { contains(.launchPatient) }

    /// The consent categories the request reaches: the union of its resource scopes'
    /// (``ResourceScope/consentCategories``), wildcards expanded. Sort with `.sorted()` for
    /// the consent page.
    public var consentCategories: Set<ConsentCategory> {
        resourceScopes.reduce(into: Set<ConsentCategory>()) { $0.formUnion($1.consentCategories) }
    }

    /// The consent categories reachable with one interaction (``SMARTInteractions/read`` or
    /// ``SMARTInteractions/search``): for a FHIR layer that serves a read only under a scope
    /// with `r` and a search only under one with `s`.
    public func consentCategories(for interaction: SMARTInteractions) -> Set<ConsentCategory> {
        resourceScopes.reduce(into: Set<ConsentCategory>()) { result, scope in
            if scope.permissions.interactions.isSuperset(of: interaction) { result.formUnion(scope.consentCategories) }
        }
    }

    /// The scope string written back, space-separated, in order.
    public var text: String { scopes.map(\.text).joined(separator: " ") }

    public var description: String { text }
}
