import Foundation

/// A secret the server handed out, as the store keeps it: only the SHA-256 digest of the
/// secret, never the secret, with what it is for, whose it is and until when it holds.
///
/// Authorization codes, access and refresh tokens, the person's browser sessions, pending
/// authorization requests and seen client-assertion ids all live here, so a restart signs
/// nobody out and every process serving the store agrees on what is valid.
public struct StoredCredential: Sendable, Hashable {
    /// What a credential is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An OAuth2 authorization code (single use).
        case authorizationCode = "code"
        /// A bearer access token.
        case accessToken = "access"
        /// A refresh token (single use: each use rotates it).
        case refreshToken = "refresh"
        /// The person's signed-in browser session.
        case personSession = "session"
        /// An authorization request waiting on the person's consent page.
        case pendingAuthorization = "authorize"
        /// A client assertion's `jti`, kept until the assertion expires so it cannot be replayed.
        case assertionID = "jti"
        /// A passkey ceremony's challenge (single use, short-lived): taken when the browser
        /// answers, by whichever process it reaches.
        case passkeyChallenge = "webauthn"
        /// A one-time enrolment link an operator made for a person (`people invite`): it signs
        /// them in once, to enrol a passkey.
        case enrolmentInvite = "invite"
        /// An app API authorization request waiting for the person (and then their answer).
        case appAuthorizationRequest = "app-request"
        /// An app's request for verifiable records waiting for the person's pick.
        case cardRequest = "card-request"
    }

    /// What the credential is.
    public let kind: Kind
    /// SHA-256 of the secret (or of what identifies it, for assertion ids).
    public let digest: Data
    /// The app it was issued to; `nil` for the person's sessions.
    public let appID: String?
    /// The grant it descends from: a code, the tokens made from it and every rotated refresh
    /// token share one family, so a replayed refresh token can end them all.
    public let family: Data
    /// When it stops being valid.
    public let expires: Date
    /// Whether a single-use credential was used already.
    public let spent: Bool
    /// What the issuer needs to know about it (JSON bytes of the issuer's own shape: scopes,
    /// redirect URI, PKCE challenge…). Never health data.
    public let details: Data

    /// Makes a credential; a new one is unspent.
    public init(kind: Kind, digest: Data, appID: String?, family: Data, expires: Date, spent: Bool = false, details: Data) {
        self.kind = kind
        self.digest = digest
        self.appID = appID
        self.family = family
        self.expires = expires
        self.spent = spent
        self.details = details
    }
}

/// What trying to use a single-use credential found.
public enum CredentialUse: Sendable, Hashable {
    /// It was unspent and is now spent: the caller may honour it.
    case used(StoredCredential)
    /// It had been used before: a replay (the caller ends its family).
    case replayed(StoredCredential)
    /// No such credential.
    case missing
}
