import Foundation
import HealthStoreCore

/// A one-time enrolment link for a person (`healthrecords people invite`): `/p/<id>/enrol?token=…`
/// on the server's public URL (their part of a server for many people) signs them in once, on the passkey page, before it expires. The store
/// keeps the token's digest only (a ``StoredCredential`` of kind `invite`).
public enum EnrolmentInvite {
    /// How long an invite works unless told otherwise.
    public static let defaultLifetime: TimeInterval = 24 * 3600

    /// Makes an invite in a person's store; returns the link (under `/p/<person>` when a person is
    /// named) and when it expires.
    public static func issue(
        in store: any CredentialStorage, publicURL: String, person: String? = nil, lifetime: TimeInterval = defaultLifetime, now: Date = Date()
    ) async throws
        -> (url: String, expires: Date)
    {
        let token = SecretToken.make()
        let digest = SecretToken.digest(token)
        let expires = now.addingTimeInterval(lifetime)
        _ = try await store.insertCredential(
            StoredCredential(kind: .enrolmentInvite, digest: digest, appID: nil, family: digest, expires: expires, details: Data()))
        var base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        if let person { base += "/p/" + person }
        return (base + "/enrol?token=" + token, expires)
    }
}
