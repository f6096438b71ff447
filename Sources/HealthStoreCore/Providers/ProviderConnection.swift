import Foundation

/// A provider the person downloads records from: where its FHIR server is, how this product
/// signs in to it, the tokens it holds and how the last sync went.
///
/// The store keeps the whole value sealed (``RecordSealer``): client secrets, private keys and
/// tokens are as private as the records they open.
public struct ProviderConnection: Sendable, Hashable, Codable {
    /// How access to the provider is obtained.
    public enum Access: String, Sendable, Hashable, Codable {
        /// SMART App Launch: the person signs in at the provider (authorization code, PKCE).
        case signIn = "sign-in"
        /// SMART Backend Services: `client_credentials` with a signed client assertion.
        case backend
        /// A token the person already holds, used as it is until it stops working.
        case heldToken = "held-token"
    }

    /// How this product authenticates to the provider's token endpoint.
    public enum ClientAuthentication: Sendable, Hashable, Codable {
        /// A public client: only `client_id` is sent.
        case publicClient
        /// `client_secret_basic`.
        case secret(String)
        /// `private_key_jwt`: the private key (a JWK or PEM, as given) and its `kid`.
        case privateKey(String, keyID: String?)
    }

    /// Whether the connection works.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Never signed in (or the sign-in was abandoned).
        case notConnected = "not-connected"
        /// Holds a token that worked last time.
        case connected
        /// The provider refused the refresh token (`invalid_grant`) or the held token: the
        /// person has to sign in again. Nothing downloaded is deleted.
        case needsSignIn = "needs-sign-in"
    }

    /// The tokens the provider issued.
    public struct Tokens: Sendable, Hashable, Codable {
        /// The bearer access token.
        public var accessToken: String
        /// The refresh token, when the provider issued one.
        public var refreshToken: String?
        /// When the access token expires, when the provider said.
        public var expires: Date?
        /// The scopes granted, as the provider answered them.
        public var scope: String?
        /// When to refresh: before ``expires`` by a minute, or by a quarter of a short lifetime.
        public var refreshAt: Date?

        /// Makes a token set.
        public init(accessToken: String, refreshToken: String? = nil, expires: Date? = nil, scope: String? = nil) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expires = expires
            self.scope = scope
        }
    }

    /// A sign-in waiting for the provider's redirect (the server's "Connect" flow).
    public struct PendingSignIn: Sendable, Hashable, Codable {
        /// The `state` sent, checked on the way back.
        public var state: String
        /// The PKCE verifier whose challenge was sent.
        public var codeVerifier: String
        /// The redirect URI sent, sent again with the code.
        public var redirectURI: String
        /// When the sign-in started; old ones are refused.
        public var started: Date

        /// Makes a pending sign-in.
        public init(state: String, codeVerifier: String, redirectURI: String, started: Date) {
            self.state = state
            self.codeVerifier = codeVerifier
            self.redirectURI = redirectURI
            self.started = started
        }
    }

    /// A short, stable name the person types (`providers remove ID`, `sync ID`).
    public var id: String
    /// The organization's name; the source people see is named after it.
    public var name: String
    /// The FHIR base URL, without a trailing slash.
    public var fhirBase: String
    /// The client id registered with the provider.
    public var clientID: String?
    /// How the client authenticates.
    public var client: ClientAuthentication
    /// The scopes asked for.
    public var scope: String
    /// How access is obtained.
    public var access: Access
    /// Whether an `http://` loopback provider may be reached (tests, a provider on this machine).
    public var allowLoopback: Bool
    /// The provider's id of the person's Patient, from the token response or as given.
    public var patientID: String?
    /// The tokens held.
    public var tokens: Tokens?
    /// Whether the connection works.
    public var status: Status
    /// Why it does not, in words (the provider's error).
    public var statusDetail: String?
    /// A sign-in under way.
    public var pending: PendingSignIn?
    /// When the provider was added.
    public var added: Date
    /// When the last sync finished.
    public var lastSync: Date?
    /// When the last full download finished (deletions are only seen by full downloads).
    public var lastFullSync: Date?
    /// The provider's own time (its `Date` header) when the last finished sync began: the next
    /// incremental sync asks for what changed since then, less an overlap.
    public var syncedSince: Date?

    /// The source the provider's records are stored under: `provider:<id>`, stable across
    /// syncs and renames.
    public var sourceIdentifier: String { "provider:" + id }

    /// Makes a connection that has not signed in yet.
    public init(
        id: String, name: String, fhirBase: String, clientID: String?, client: ClientAuthentication, scope: String, access: Access,
        allowLoopback: Bool, patientID: String? = nil, tokens: Tokens? = nil, status: Status = .notConnected, added: Date
    ) {
        self.id = id
        self.name = name
        self.fhirBase = fhirBase
        self.clientID = clientID
        self.client = client
        self.scope = scope
        self.access = access
        self.allowLoopback = allowLoopback
        self.patientID = patientID
        self.tokens = tokens
        self.status = status
        self.added = added
    }
}
