import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Bearer access tokens for apps: from `POST /token` with client credentials (the app API) or
/// from a SMART authorization code or refresh token.
///
/// Tokens are 256 random bits; the store keeps only their SHA-256 digests (``StoredCredential``
/// of kind `access`) with the app, the access revision they were issued under, their expiry
/// and, for SMART tokens, the scope granted (what it reaches is read from it). A restart
/// keeps them; a revocation (of the app, or of the token's grant) ends them at once.
struct AccessTokens: Sendable {
    /// What a live token carries.
    struct Entry: Sendable {
        let appID: String
        /// The app's access revision when the token was issued: a revocation voids it.
        let revision: Int
        let expires: Date
        /// The grant the token came from (its code and refresh tokens share it).
        let family: Data
        /// The scope granted, as the app asked for it; `nil` for a client-credentials token.
        let scope: String?
        /// The person's Patient id, for SMART tokens.
        let patient: String?
    }

    let credentials: any CredentialStorage & AppCredentialLookup
    let clock: HealthClock
    let lifetime: Duration
    /// What begins every token issued (``PersonPrefix``): `""` for one person alone.
    var prefix = ""

    var lifetimeSeconds: Int { Int(lifetime.components.seconds) }

    /// A new token: its value and its lifetime in seconds.
    func issue(
        appID: String, revision: Int, family: Data? = nil, scope: String? = nil, patient: String? = nil
    ) async throws -> (token: String, expiresIn: Int) {
        let token = prefix + SecretToken.make()
        let digest = SecretToken.digest(token)
        var members: [JSONMember] = [JSONMember("revision", .number(JSONNumber(revision)))]
        if let scope { members.append(JSONMember("scope", .string(scope))) }
        if let patient { members.append(JSONMember("patient", .string(patient))) }
        let seconds = lifetimeSeconds
        _ = try await credentials.insertCredential(
            StoredCredential(
                kind: .accessToken, digest: digest, appID: appID, family: family ?? digest,
                expires: clock.now.addingTimeInterval(TimeInterval(seconds)), details: Data(JSONWriter.minified(.object(JSONObject(members))))))
        return (token, seconds)
    }

    /// What a live token carries, its app's row as stored now (`nil` when the app is gone) and
    /// the app's grants, read in one statement; `nil` for an unknown, expired or damaged token.
    func entry(for token: String) async throws -> (entry: Entry, app: StoredApp?, grants: [ReadGrant])? {
        guard let found = try await credentials.credentialWithApp(.accessToken, digest: SecretToken.digest(token)),
            let entry = Self.entry(found.credential, now: clock.now)
        else { return nil }
        return (entry, found.app, found.grants)
    }

    /// Reads a stored access token; `nil` when it expired or is damaged.
    static func entry(_ stored: StoredCredential, now: Date) -> Entry? {
        guard stored.expires > now, let appID = stored.appID, let o = (try? JSONReader().read(stored.details))?.objectValue,
            let revision = o["revision"]?.numberValue?.intValue
        else { return nil }
        return Entry(
            appID: appID, revision: revision, expires: stored.expires, family: stored.family, scope: o.string("scope"),
            patient: o.string("patient"))
    }
}
