import Foundation

/// A credential read together with the app it was issued to: every app request presents a
/// bearer token and then needs its app's row (to check the access revision and make the app's
/// view), and reading both in one statement saves a round trip per request on PostgreSQL.
public protocol AppCredentialLookup: Sendable {
    /// The credential of `kind` with `digest`, spent or not, expired or not, with the row of the
    /// app it names (`nil` when it names none or the app is gone); `nil` when no such
    /// credential is stored.
    func credentialWithApp(_ kind: StoredCredential.Kind, digest: Data) async throws -> CredentialWithApp?
}

/// A stored credential and its app's row, as one statement read them.
public struct CredentialWithApp: Sendable {
    /// The credential.
    public let credential: StoredCredential
    /// The app it was issued to, as stored now; `nil` when it names no app or the app is gone.
    public let app: StoredApp?

    /// Pairs a credential with its app's row.
    public init(credential: StoredCredential, app: StoredApp?) {
        self.credential = credential
        self.app = app
    }
}
