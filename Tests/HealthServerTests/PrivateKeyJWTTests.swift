import ByteEncodings
import ClinicalRecords
import Crypto
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import SMARTAuthorization
import Testing

/// An asymmetric client (private_key_jwt, ES384) through real HTTP: the assertion is checked,
/// its `jti` is refused the second time, and another key or audience is refused.
@Suite struct PrivateKeyJWTTests {
    static func jwk(_ key: P384.Signing.PublicKey, kid: String) -> String {
        let raw = key.rawRepresentation
        return #"{"kty":"EC","crv":"P-384","kid":"\#(kid)","alg":"ES384","x":"\#(Base64URL.encode(raw.prefix(48)))","y":"\#(Base64URL.encode(raw.suffix(48)))"}"#
    }

    static func assertion(_ key: P384.Signing.PrivateKey, client: String, aud: String, jti: String, exp: Date) throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"ES384","kid":"k1","typ":"JWT"}"#.utf8))
        let claims = #"{"iss":"\#(client)","sub":"\#(client)","aud":"\#(aud)","jti":"\#(jti)","exp":\#(Int(exp.timeIntervalSince1970))}"#
        let input = header + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    @Test func assertionsAuthenticateOnceAndOnlyWithTheRegisteredKey() async throws {
        let w = try await ServerWorld(.sqlite)
        let key = P384.Signing.PrivateKey()
        let app = try await w.consent.register(
            name: "Backend", purpose: "p", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: SMARTFlowTests.redirect)!], clientType: .confidentialAsymmetric,
            jwks: #"{"keys":[\#(Self.jwk(key.publicKey, kid: "k1"))]}"#)
        let token = w.server.baseURL + "/token"
        try await w.test { client in
            func call(_ jwt: String, code: String) async throws -> TestResponse {
                try await client.call(
                    .post, "/token",
                    form: "grant_type=authorization_code&code=\(formEncoded(code))&redirect_uri=\(formEncoded(SMARTFlowTests.redirect))"
                        + "&code_verifier=\(SMARTFlowTests.verifier)&client_assertion_type=\(formEncoded(ClientAuthenticationType.jwtBearer))&client_assertion=\(jwt)")
            }
            let cookie = try await client.signIn()
            func code() async throws -> String {
                try #require(
                    try await SMARTFlowTests.consent(client, SMARTFlowTests.authorizeQuery(w, client: app.appID), cookie: cookie, allow: ["lab-result"])["code"])
            }
            let now = w.store.clock.now
            let c1 = try await code()
            // Another key, another audience, a lifetime over five minutes: refused, the code unspent.
            let stranger = try Self.assertion(P384.Signing.PrivateKey(), client: app.appID, aud: token, jti: "a", exp: now.addingTimeInterval(60))
            #expect(try await call(stranger, code: c1).status == .unauthorized)
            let elsewhere = try Self.assertion(key, client: app.appID, aud: "https://other.example/token", jti: "b", exp: now.addingTimeInterval(60))
            #expect(try await call(elsewhere, code: c1).status == .unauthorized)
            let long = try Self.assertion(key, client: app.appID, aud: token, jti: "c", exp: now.addingTimeInterval(600))
            #expect(try await call(long, code: c1).status == .unauthorized)
            let good = try Self.assertion(key, client: app.appID, aud: token, jti: "d", exp: now.addingTimeInterval(120))
            let ok = try await call(good, code: c1)
            #expect(ok.status == .ok, "\(ok.text)")
            // The same assertion again (a replayed jti) is refused even with a fresh code.
            let c2 = try await code()
            let replay = try await call(good, code: c2)
            #expect(replay.status == .unauthorized && replay.oauthError == "invalid_client")
        }
    }
}

/// A client whose keys are at a JWKS URL: the server fetches them (under the webhook address
/// rules, loopback allowed in tests) from a real HTTP server when the client authenticates.
@Suite struct JWKSURLTests {
    @Test func keysAreFetchedFromTheClientsJWKSURL() async throws {
        let key = P384.Signing.PrivateKey()
        let router = Router()
        let jwks = #"{"keys":[\#(PrivateKeyJWTTests.jwk(key.publicKey, kid: "k1"))]}"#
        router.get("/jwks.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: jwks)))
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { keys in
            let w = try await ServerWorld(.sqlite)
            let app = try await w.consent.register(
                name: "Backend", purpose: "p", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
                redirectURIs: [URL(string: SMARTFlowTests.redirect)!], clientType: .confidentialAsymmetric,
                jwksURI: URL(string: "http://127.0.0.1:\(keys.port!)/jwks.json")!)
            let token = w.server.baseURL + "/token"
            try await w.test { client in
                let cookie = try await client.signIn()
                let code = try #require(
                    try await SMARTFlowTests.consent(client, SMARTFlowTests.authorizeQuery(w, client: app.appID), cookie: cookie, allow: ["lab-result"])["code"])
                func exchange(_ jwt: String) async throws -> TestResponse {
                    try await client.call(
                        .post, "/token",
                        form: "grant_type=authorization_code&code=\(formEncoded(code))&redirect_uri=\(formEncoded(SMARTFlowTests.redirect))"
                            + "&code_verifier=\(SMARTFlowTests.verifier)&client_assertion_type=\(formEncoded(ClientAuthenticationType.jwtBearer))&client_assertion=\(jwt)")
                }
                let now = w.store.clock.now
                let stranger = try PrivateKeyJWTTests.assertion(P384.Signing.PrivateKey(), client: app.appID, aud: token, jti: "x", exp: now.addingTimeInterval(60))
                #expect(try await exchange(stranger).status == .unauthorized)
                let signed = try PrivateKeyJWTTests.assertion(key, client: app.appID, aud: token, jti: "y", exp: now.addingTimeInterval(60))
                let ok = try await exchange(signed)
                #expect(ok.status == .ok, "\(ok.text)")
            }
        }
    }
}

/// The client-assertion type of RFC 7523.
enum ClientAuthenticationType {
    static let jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
}
