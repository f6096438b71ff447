/// The SMART and OpenID Connect scopes that are not about resources.
public enum SpecialScope: String, Sendable, Hashable, CaseIterable {
    /// `openid`: an OpenID Connect id token.
    case openid
    /// `fhirUser`: the id token names the user's FHIR resource (here the person's Patient).
    case fhirUser
    /// `profile`: the OpenID Connect profile scope, SMART v1's way to ask what `fhirUser` asks.
    case profile
    /// `launch/patient`: a patient in context at a standalone launch (the token's `patient`).
    case launchPatient = "launch/patient"
    /// `offline_access`: a refresh token that outlives the person's session.
    case offlineAccess = "offline_access"
    /// `online_access`: a refresh token while the person is signed in.
    case onlineAccess = "online_access"

    /// The scope as written.
    public var text: String { rawValue }
}
