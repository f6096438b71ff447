import Foundation
@testable import HealthServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Review finding 9 (issue 28): browser-based SMART apps (public clients) on another origin can
/// use the SMART surface — preflights answered, `Access-Control-Allow-Origin` on answers and
/// errors, the headers SMART clients read exposed — while the person's pages, the consent flow
/// and the app API send no CORS headers at all, so another origin's script cannot read them.
@Suite struct SMARTCORSTests {
    static let origin: HTTPFields = [.origin: "https://app.example"]

    @Test(arguments: ServerEngine.all)
    func aBrowserAppOnAnotherOriginCanUseTheSMARTSurface(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            // Preflights, including for a route that has no OPTIONS handler of its own.
            for path in ["/fhir/Patient/\(person)", "/fhir/Observation?category=laboratory", "/token", "/introspect", "/revoke", "/fhir/metadata"] {
                var headers = Self.origin
                headers[.accessControlRequestMethod] = path.hasPrefix("/fhir") ? "GET" : "POST"
                headers[.accessControlRequestHeaders] = "authorization, content-type"
                let r = try await client.call(.options, path, headers: headers)
                #expect(r.status == .noContent, "\(path): \(r.status)")
                #expect(r.headers[.accessControlAllowOrigin] == "*", "\(path)")
                #expect(r.headers[.accessControlAllowMethods]?.contains("POST") == true && r.headers[.accessControlAllowMethods]?.contains("GET") == true)
                #expect(r.headers[.accessControlAllowHeaders] == "authorization, content-type")
                #expect(r.headers[.accessControlAllowCredentials] == nil, "no credentials ride on the SMART surface")
            }
            // A preflight asking for a header list that is not a plain list gets the usual one.
            var odd = Self.origin
            odd[.accessControlRequestMethod] = "GET"
            odd[.accessControlRequestHeaders] = "x\r\ninjected: 1"
            #expect(try await client.call(.options, "/fhir/metadata", headers: odd).headers[.accessControlAllowHeaders] == SMARTCORSMiddleware.defaultAllowedHeaders)

            let token = try await client.token(f.app)
            for path in ["/fhir/metadata", "/.well-known/smart-configuration", "/fhir/.well-known/smart-configuration", "/fhir/Patient/\(person)"] {
                let r = try await client.call(.get, path, token: path.contains("Patient") ? token : nil, headers: Self.origin)
                #expect(r.status == .ok, "\(path)")
                #expect(r.headers[.accessControlAllowOrigin] == "*", "\(path)")
                #expect(r.headers[.accessControlExposeHeaders]?.contains("WWW-Authenticate") == true, "\(path)")
            }
            // Errors too: a browser app must be able to read why it was refused.
            let unauthorized = try await client.call(.get, "/fhir/Patient/\(person)", headers: Self.origin)
            #expect(unauthorized.status == .unauthorized)
            #expect(unauthorized.headers[.accessControlAllowOrigin] == "*")
            let badGrant = try await client.call(.post, "/token", form: "grant_type=authorization_code&code=nope", headers: Self.origin)
            #expect(badGrant.status.code >= 400 && badGrant.headers[.accessControlAllowOrigin] == "*", "\(badGrant.status)")
            let missing = try await client.call(.get, "/fhir/Nonsense/1", token: token, headers: Self.origin)
            #expect(missing.status.code >= 400 && missing.headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test(arguments: ServerEngine.all)
    func thePersonsPagesTheConsentFlowAndTheAppAPISendNoCORS(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let cookie = try await client.signIn()
            let token = try await client.token(f.app)
            for (path, cookie, token) in [
                ("/", cookie, nil), ("/apps", cookie, nil), ("/login", nil, nil), ("/authorize?response_type=code", cookie, nil),
                ("/records", nil, token), ("/health", nil, nil), ("/openapi.json", nil, nil), ("/fhirx", nil, nil), ("/fhir-export", cookie, nil),
            ] as [(String, String?, String?)] {
                let r = try await client.call(.get, path, token: token, cookie: cookie, headers: Self.origin)
                #expect(r.headers[.accessControlAllowOrigin] == nil, "\(path) answered \(r.status) with CORS")
                var preflight = Self.origin
                preflight[.accessControlRequestMethod] = "POST"
                let p = try await client.call(.options, path, cookie: cookie, headers: preflight)
                #expect(p.headers[.accessControlAllowOrigin] == nil && p.headers[.accessControlAllowMethods] == nil, "\(path): preflight answered \(p.status)")
            }
        }
    }
}
