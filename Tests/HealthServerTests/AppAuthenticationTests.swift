import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /token` and the bearer check on every API route.
@Suite struct AppAuthenticationTests {
    @Test(arguments: ServerEngine.all)
    func clientCredentialsGetABearerTokenInTheFormOrBasicAuth(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test { client in
            let r = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
            #expect(r.status == .ok)
            #expect(r.headers[.cacheControl] == "no-store")
            let body = try r.object()
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 3600)
            #expect((body["access_token"] as? String)?.count == 43)
            let basic = Data("\(creds.appID):\(creds.secret)".utf8).base64EncodedString()
            let viaBasic = try await client.call(.post, "/token", form: "grant_type=client_credentials", headers: [.authorization: "Basic \(basic)"])
            #expect(viaBasic.status == .ok)
            let token = try viaBasic.object()["access_token"] as! String
            #expect(try await client.call(.get, "/records", token: token).status == .ok)
        }
    }

    @Test(arguments: ServerEngine.all)
    func wrongCredentialsAndGrantTypesAreRefused(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test { client in
            let wrong = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=nope")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text == #"{"error":"invalid_client"}"#)
            let unknown = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=someone&client_secret=x")
            #expect(unknown.text == wrong.text)
            let grant = try await client.call(.post, "/token", form: "grant_type=password&client_id=\(creds.appID)&client_secret=\(creds.secret)")
            #expect(grant.status == .badRequest)
            #expect(try grant.object()["error"] as? String == "unsupported_grant_type")
        }
    }

    @Test(arguments: ServerEngine.all)
    func missingWrongAndExpiredTokensGet401WithNoDetail(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        let creds = try await w.register([.clinical(.labResult)])
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        try await w.test { client in
            let token = try await client.token(creds)
            for uri in ["/records", "/records?type=lab-result", "/changes", "/authorization-status?types=lab-result", "/webhooks", "/observe"] {
                let missing = try await client.call(.get, uri)
                #expect(missing.status == .unauthorized, "\(uri)")
                #expect(missing.text == #"{"error":"invalid_token"}"#)
                #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                let wrong = try await client.call(.get, uri, token: token + "x")
                #expect(wrong.status == .unauthorized && wrong.text == missing.text)
            }
            #expect(try await client.call(.get, "/records", token: token).status == .ok)
            w.advance(3601)
            let expired = try await client.call(.get, "/records", token: token)
            #expect(expired.status == .unauthorized)
            #expect(expired.text == #"{"error":"invalid_token"}"#)
            #expect(try await client.call(.get, "/records", token: try await client.token(creds)).status == .ok)
        }
    }
}
