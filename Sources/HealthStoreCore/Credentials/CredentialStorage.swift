import Foundation

/// Where an engine keeps the server's credentials (``StoredCredential``). Policy (lifetimes,
/// rotation, what a replay ends) belongs to the server; these are storage primitives.
public protocol CredentialStorage: Sendable {
    /// Stores a new credential; `false` (and nothing changes) when one of the same kind and
    /// digest exists already — how a replayed client-assertion id is caught.
    func insertCredential(_ credential: StoredCredential) async throws -> Bool
    /// A credential by kind and digest, spent or not, expired or not.
    func credential(_ kind: StoredCredential.Kind, digest: Data) async throws -> StoredCredential?
    /// Marks a single-use credential spent, atomically: of two concurrent uses only one gets
    /// ``CredentialUse/used(_:)``.
    func useCredential(_ kind: StoredCredential.Kind, digest: Data) async throws -> CredentialUse
    /// Removes one credential; returns whether it existed.
    func deleteCredential(_ kind: StoredCredential.Kind, digest: Data) async throws -> Bool
    /// Removes every credential of a family (a grant and all it was exchanged for); returns how many.
    func deleteCredentials(family: Data) async throws -> Int
    /// Removes every credential issued to an app; returns how many.
    func deleteCredentials(appID: String) async throws -> Int
    /// Removes credentials that expired before a date; returns how many.
    func deleteCredentials(expiredBefore date: Date) async throws -> Int
    /// Removes the credentials of one kind issued to an app; returns how many.
    func deleteCredentials(_ kind: StoredCredential.Kind, appID: String) async throws -> Int
    /// How many credentials of a kind an app holds that have not expired at `date`.
    func countCredentials(_ kind: StoredCredential.Kind, appID: String, liveAt date: Date) async throws -> Int
    /// Replaces a credential's details if they are still `old`, atomically: of two processes
    /// answering the same request, one changes it; `false` when it is gone or was changed.
    func replaceCredentialDetails(_ kind: StoredCredential.Kind, digest: Data, from old: Data, to new: Data) async throws -> Bool
}
