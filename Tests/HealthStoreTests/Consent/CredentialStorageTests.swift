import ClinicalRecords
import Crypto
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// The server's credentials in the store, on every engine: single use, replay detection,
/// families, apps, expiry, and that they outlive the store object (a restart).
@Suite struct CredentialStorageTests {
    static let privacy = URL(string: "https://example.org/privacy")!

    static func digest(_ s: String) -> Data { Data(SHA256.hash(data: Data(s.utf8))) }

    /// Requests waiting for the person: counted per app while live, answered once by a
    /// compare-and-set of their details however many answers race, removed per kind and app.
    @Test(arguments: StoreEngine.all)
    func pendingRequestsAreCountedAndAnsweredOnce(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let app = try await w.consent.register(
            name: "Chart", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: "https://chart.example/cb")!], clientType: .public)
        let now = w.store.clock.now
        for n in 0..<3 {
            let digest = Self.digest("request-\(n)")
            #expect(
                try await w.store.insertCredential(
                    StoredCredential(
                        kind: .appAuthorizationRequest, digest: digest, appID: app.appID, family: digest, expires: now.addingTimeInterval(n == 2 ? -1 : 60),
                        details: Data("pending".utf8))))
        }
        // The expired one does not count; another kind does not count.
        #expect(try await w.store.countCredentials(.appAuthorizationRequest, appID: app.appID, liveAt: now) == 2)
        #expect(try await w.store.countCredentials(.cardRequest, appID: app.appID, liveAt: now) == 0)
        // Eight answers at once: one changes the request.
        let store = w.store
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<8 {
                group.addTask {
                    try await store.replaceCredentialDetails(
                        .appAuthorizationRequest, digest: Self.digest("request-0"), from: Data("pending".utf8), to: Data("answer \(n)".utf8))
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try await w.store.credential(.appAuthorizationRequest, digest: Self.digest("request-0"))?.details.starts(with: Data("answer".utf8)) == true)
        #expect(try await !w.store.replaceCredentialDetails(.appAuthorizationRequest, digest: Self.digest("nothing"), from: Data("pending".utf8), to: Data()))
        #expect(try await w.store.deleteCredentials(.cardRequest, appID: app.appID) == 0)
        #expect(try await w.store.deleteCredentials(.appAuthorizationRequest, appID: app.appID) == 3)
    }

    @Test(arguments: StoreEngine.all)
    func singleUseFamiliesAndExpiry(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let app = try await w.consent.register(
            name: "Chart", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: "https://chart.example/cb")!], clientType: .public)
        #expect(app.secret.isEmpty)
        let family = Self.digest("family-1")
        let now = w.store.clock.now
        let code = StoredCredential(
            kind: .authorizationCode, digest: Self.digest("code"), appID: app.appID, family: family, expires: now.addingTimeInterval(60),
            details: Data("{\"scope\":\"patient/Observation.rs\"}".utf8))
        #expect(try await w.store.insertCredential(code))
        // The same digest again is refused, without changing the first.
        #expect(try await !w.store.insertCredential(code))
        guard case .used(let used) = try await w.store.useCredential(.authorizationCode, digest: code.digest) else {
            Issue.record("a fresh code was not usable")
            return
        }
        #expect(used.details == code.details && used.appID == app.appID && used.family == family)
        guard case .replayed = try await w.store.useCredential(.authorizationCode, digest: code.digest) else {
            Issue.record("a spent code was usable again")
            return
        }
        #expect(try await w.store.useCredential(.authorizationCode, digest: Self.digest("other")) == .missing)

        let access = StoredCredential(
            kind: .accessToken, digest: Self.digest("access"), appID: app.appID, family: family, expires: now.addingTimeInterval(3600), details: Data("{}".utf8))
        let stale = StoredCredential(
            kind: .accessToken, digest: Self.digest("stale"), appID: app.appID, family: Self.digest("f2"), expires: now.addingTimeInterval(-1),
            details: Data("{}".utf8))
        #expect(try await w.store.insertCredential(access))
        #expect(try await w.store.insertCredential(stale))
        #expect(try await w.store.deleteCredentials(expiredBefore: now) == 1)
        #expect(try await w.store.credential(.accessToken, digest: stale.digest) == nil)
        #expect(try await w.store.deleteCredentials(family: family) == 2)
        #expect(try await w.store.credential(.accessToken, digest: access.digest) == nil)

        // A session (no app) and an app's token; revoking the app ends the token only.
        let session = StoredCredential(
            kind: .personSession, digest: Self.digest("cookie"), appID: nil, family: Self.digest("cookie"), expires: now.addingTimeInterval(3600),
            details: Data("{\"csrf\":\"x\"}".utf8))
        #expect(try await w.store.insertCredential(session))
        #expect(try await w.store.insertCredential(access))
        _ = try await w.consent.revoke(appID: app.appID)
        #expect(try await w.store.credential(.accessToken, digest: access.digest) == nil)
        #expect(try await w.store.credential(.personSession, digest: session.digest) == session)
        #expect(try await w.store.deleteCredential(.personSession, digest: session.digest))
        #expect(try await !w.store.deleteCredential(.personSession, digest: session.digest))
    }

    /// The token and its app's row in one read: the app as stored now (a revocation's new
    /// revision shows at once), none for a credential of no app, nothing for an unknown digest.
    @Test(arguments: StoreEngine.all)
    func aCredentialIsReadWithItsAppsCurrentRow(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let app = try await w.consent.register(name: "Chart", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.clinical(.labResult)])
        let other = try await w.consent.register(name: "Other", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: [.clinical(.labResult)])
        let now = w.store.clock.now
        let token = StoredCredential(
            kind: .accessToken, digest: Self.digest("token"), appID: app.appID, family: Self.digest("f"), expires: now.addingTimeInterval(60),
            details: Data("{\"revision\":0}".utf8))
        #expect(try await w.store.insertCredential(token))
        let found = try #require(try await w.store.credentialWithApp(.accessToken, digest: token.digest))
        #expect(found.credential == token)
        #expect(found.app?.registration.id == app.appID && found.app?.registration.name == "Chart" && found.app?.accessRevision == 0)
        #expect(found.app?.secretDigest == (try await w.store.app(id: app.appID))?.secretDigest)
        _ = try await w.consent.revoke(appID: other.appID)
        _ = try await w.consent.revoke(appID: app.appID)
        // Revoking ends the app's credentials; one issued under the new revision reads it.
        #expect(try await w.store.credentialWithApp(.accessToken, digest: token.digest) == nil)
        #expect(try await w.store.insertCredential(token))
        #expect(try await w.store.credentialWithApp(.accessToken, digest: token.digest)?.app?.accessRevision == 1)
        // Another kind with the same digest is another credential; a session names no app.
        #expect(try await w.store.credentialWithApp(.refreshToken, digest: token.digest) == nil)
        let session = StoredCredential(
            kind: .personSession, digest: Self.digest("session"), appID: nil, family: Self.digest("s"), expires: now.addingTimeInterval(60), details: Data())
        #expect(try await w.store.insertCredential(session))
        let sessionRow = try #require(try await w.store.credentialWithApp(.personSession, digest: session.digest))
        #expect(sessionRow.credential == session && sessionRow.app == nil)
        #expect(try await w.store.credentialWithApp(.accessToken, digest: Self.digest("unknown")) == nil)
    }

    @Test(arguments: StoreEngine.all)
    func clientTypesAreCheckedAndKept(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let types: Set<HealthDataType> = [.clinical(.labResult)]
        await #expect(throws: ConsentError.self) {
            try await w.consent.register(name: "A", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: types, clientType: .public)
        }
        await #expect(throws: ConsentError.self) {
            try await w.consent.register(
                name: "A", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: types, clientType: .confidentialAsymmetric)
        }
        let keys = #"{"keys":[]}"#
        let creds = try await w.consent.register(
            name: "A", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: types, clientType: .confidentialAsymmetric, jwks: keys)
        let stored = try await w.consent.app(creds.appID).registration
        #expect(stored.clientType == .confidentialAsymmetric && stored.jwks == keys && stored.jwksURI == nil)
        // An asymmetric client has no secret to authenticate with.
        await #expect(throws: ConsentError.invalidAppSecret) { try await w.consent.authenticate(appID: creds.appID, secret: creds.secret) }
        let old = try await w.consent.register(name: "B", purpose: "p", privacyPolicyURL: Self.privacy, requestedTypes: types)
        #expect(try await w.consent.app(old.appID).registration.clientType == .confidentialSymmetric)
    }
}
