import Foundation

/// A credential read together with the app it was issued to and the app's grants: every app
/// request presents a bearer token and then needs its app's row (to check the access revision
/// and make the app's view) and its grants (to filter what it reads), and reading them in one
/// statement saves two round trips per request on PostgreSQL.
public protocol AppCredentialLookup: Sendable {
    /// The credential of `kind` with `digest`, spent or not, expired or not, with the row of the
    /// app it names (`nil` when it names none or the app is gone) and that app's grants; `nil`
    /// when no such credential is stored.
    func credentialWithApp(_ kind: StoredCredential.Kind, digest: Data) async throws -> CredentialWithApp?
}

/// A stored credential, its app's row and the app's grants, as one statement read them.
public struct CredentialWithApp: Sendable {
    /// The credential.
    public let credential: StoredCredential
    /// The app it was issued to, as stored now; `nil` when it names no app or the app is gone.
    public let app: StoredApp?
    /// The app's grants, as stored now, in no promised order (none without an app).
    public let grants: [ReadGrant]

    /// Pairs a credential with its app's row and grants.
    public init(credential: StoredCredential, app: StoredApp?, grants: [ReadGrant] = []) {
        self.credential = credential
        self.app = app
        self.grants = grants
    }
}
