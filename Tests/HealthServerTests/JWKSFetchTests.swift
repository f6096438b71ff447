import Crypto
import Foundation
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import HealthServer

/// Review 2, finding 3: for a `private_key_jwt` client registered with a JWKS URL, every
/// unauthenticated request with a forged assertion fetched the URL — no cache, before the
/// failure throttle (40 requests made 40 fetches) — and the error named addresses and fetch
/// failures. Now the set is kept, concurrent requests share one fetch, failures are kept too, a
/// throttled address fetches nothing, and clients hear only that the keys could not be obtained.
@Suite struct JWKSFetchTests {
    /// A JWKS server on loopback that counts its fetches and answers `status`.
    final class KeyServer: Sendable {
        let fetches = Atomic<Int>(0)
        let body: String
        let status: HTTPResponse.Status
        let cacheControl: String?
        init(body: String, status: HTTPResponse.Status = .ok, cacheControl: String? = nil) {
            self.body = body
            self.status = status
            self.cacheControl = cacheControl
        }
        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("/jwks.json") { [self] _, _ -> Response in
                fetches.add(1, ordering: .sequentiallyConsistent)
                var headers: HTTPFields = [.contentType: "application/json"]
                if let cacheControl { headers[.cacheControl] = cacheControl }
                return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
            }
            return router
        }
    }

    /// A server with one asymmetric client whose keys are at the key server's URL.
    static func world(keyPort: Int) async throws -> (ServerWorld, AppCredentials) {
        let w = try await ServerWorld(.sqlite)
        let app = try await w.consent.register(
            name: "Backend", purpose: "p", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: SMARTFlowTests.redirect)!], clientType: .confidentialAsymmetric,
            jwksURI: URL(string: "http://127.0.0.1:\(keyPort)/jwks.json")!)
        return (w, app)
    }

    static func forged(_ client: String, aud: String, jti: String) throws -> String {
        try PrivateKeyJWTTests.assertion(P384.Signing.PrivateKey(), client: client, aud: aud, jti: jti, exp: Date().addingTimeInterval(60))
    }

    static func introspect(_ client: some TestClientProtocol, app: String, assertion: String) async throws -> TestResponse {
        try await client.call(
            .post, "/introspect",
            form: "token=x&client_id=\(app)&client_assertion_type=\(formEncoded(ClientAuthenticationType.jwtBearer))&client_assertion=\(assertion)")
    }

    @Test func forgedAssertionsFetchTheKeySetOnceNotOncePerRequest() async throws {
        let key = P384.Signing.PrivateKey()
        let keys = KeyServer(body: #"{"keys":[\#(PrivateKeyJWTTests.jwk(key.publicKey, kid: "k1"))]}"#, cacheControl: "max-age=600")
        try await Application(router: keys.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { keyServer in
            let (w, app) = try await Self.world(keyPort: keyServer.port!)
            let aud = w.server.baseURL + "/token"
            try await w.test { client in
                // Twenty at once share one fetch.
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for i in 0..<20 { group.addTask { try await Self.introspect(client, app: app.appID, assertion: Self.forged(app.appID, aud: aud, jti: "a\(i)")).status.code } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
                #expect(keys.fetches.load(ordering: .sequentiallyConsistent) == 1)
                // Twenty more, one after another (the throttle answers most of them): still one fetch.
                var throttled = 0
                for i in 0..<20 {
                    let r = try await Self.introspect(client, app: app.appID, assertion: Self.forged(app.appID, aud: aud, jti: "b\(i)"))
                    if r.status == .tooManyRequests { throttled += 1 }
                    #expect(!r.text.contains("127.0.0.1") && !r.text.contains("jwks.json"), "\(r.text)")
                }
                #expect(throttled > 0)
                #expect(keys.fetches.load(ordering: .sequentiallyConsistent) == 1)
            }
            // The right key, from a fresh world (no throttle), is still checked against the kept set.
            let fetchesBefore = keys.fetches.load(ordering: .sequentiallyConsistent)
            let kept = await w.server.authorization.keySets.keys(at: URL(string: "http://127.0.0.1:\(keyServer.port!)/jwks.json")!, kid: "k1")
            #expect((try? kept.get().keys.count) == 1)
            #expect(keys.fetches.load(ordering: .sequentiallyConsistent) == fetchesBefore)
        }
    }

    @Test func anUnreachableKeySetIsKeptAsAFailureAndNotExplained() async throws {
        let keys = KeyServer(body: "gone", status: .internalServerError)
        try await Application(router: keys.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { keyServer in
            let (w, app) = try await Self.world(keyPort: keyServer.port!)
            let aud = w.server.baseURL + "/token"
            try await w.test { client in
                for i in 0..<5 {
                    let r = try await Self.introspect(client, app: app.appID, assertion: Self.forged(app.appID, aud: aud, jti: "c\(i)"))
                    #expect(r.status == .unauthorized)
                    #expect(r.text.contains("the client's keys could not be obtained"), "\(r.text)")
                    for leak in ["127.0.0.1", "500", "jwks.json", "status", "fetch"] { #expect(!r.text.contains(leak), "\(leak) in \(r.text)") }
                }
            }
            #expect(keys.fetches.load(ordering: .sequentiallyConsistent) == 1)
            #expect(w.logs.all.contains { $0.contains("client keys unavailable") && $0.contains("500") })
        }
    }

    @Test func aKeptSetLivesAsItsCacheControlSaysWithinBounds() {
        #expect(ClientKeySets.lifetime(cacheControl: nil) == .seconds(300))
        #expect(ClientKeySets.lifetime(cacheControl: "public, max-age=900") == .seconds(900))
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=5") == .seconds(60))
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=86400") == .seconds(3600))
        #expect(ClientKeySets.lifetime(cacheControl: "no-store") == .seconds(60))
        #expect(ClientKeySets.lifetime(cacheControl: "no-cache, max-age=900") == .seconds(60))
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=nonsense") == .seconds(300))
    }
}
