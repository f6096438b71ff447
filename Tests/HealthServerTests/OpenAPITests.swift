import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The OpenAPI document served at /openapi.json describes exactly the app API's routes, and
/// real responses match its schemas.
@Suite struct OpenAPITests {
    /// The person's HTML pages, which are not part of the app API.
    static let pageRoutes: Set<String> = [
        "GET /login", "POST /login", "POST /logout", "GET /", "GET /cards", "GET /cards/{id}", "GET /immunizations", "GET /apps",
        "GET /apps/{id}", "POST /apps/{id}/approve", "POST /apps/{id}/revoke", "GET /consent/{id}", "POST /consent/{id}", "GET /share/{id}",
        "POST /share/{id}", "GET /static/style.css", "GET /authorize", "POST /authorize", "POST /authorize/consent/{id}", "GET /apps/register",
        "POST /apps/register", "GET /providers", "POST /providers", "POST /providers/{id}/connect", "GET /providers/callback",
        "POST /providers/{id}/sync", "POST /providers/{id}/remove", "GET /record", "GET /trend", "GET /summary", "GET /search",
        "GET /upload", "POST /upload", "GET /export.zip", "GET /links", "GET /links/new", "POST /links", "GET /links/{handle}",
        "POST /links/{handle}/revoke", "GET /view", "GET /static/viewer.js", "GET /medication-list", "POST /medication-list/{id}", "GET /apps/review", "POST /apps/review/{id}", "POST /apps/review-settings",
        "GET /passkeys", "POST /passkeys/options", "POST /passkeys", "POST /passkeys/{id}/rename", "POST /passkeys/{id}/remove",
        "POST /passkeys/recovery-codes", "POST /login/passkey/options", "POST /login/passkey", "POST /login/recovery", "GET /static/passkeys.js", "GET /enrol",
        "GET /household", "POST /household/proxies", "POST /household/proxies/{id}/remove", "POST /household/represented/{id}/remove",
    ]

    /// Whether a route belongs to the FHIR API, which its CapabilityStatement (`/fhir/metadata`)
    /// and SMART configuration describe instead.
    static func isFHIR(_ route: String) -> Bool {
        let path = route.split(separator: " ").last.map(String.init) ?? ""
        return path.hasPrefix("/fhir") || path == "/.well-known/smart-configuration"
    }

    static func document(_ client: some TestClientProtocol) async throws -> [String: Any] {
        let r = try await client.call(.get, "/openapi.json")
        #expect(r.status == .ok)
        return try r.object()
    }

    @Test func theDocumentListsExactlyTheAPIRoutes() async throws {
        let w = try await ServerWorld(.sqlite)
        let routed = Set(w.server.router().routes.map { "\($0.method.rawValue) \(Self.template($0.path.description))" }).subtracting(Self.pageRoutes)
            .filter { !Self.isFHIR($0) }
        try await w.test { client in
            let doc = try await Self.document(client)
            #expect(doc["openapi"] as? String == "3.1.0")
            let paths = doc["paths"] as! [String: [String: Any]]
            let documented = Set(paths.flatMap { path, ops in ops.keys.map { "\($0.uppercased()) \(path)" } })
            #expect(routed == documented)
            #expect(routed.count == 25)
        }
    }

    @Test func responsesMatchTheirDocumentedSchemas() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources([Fixtures.record(.labResult, id: "l1"), Fixtures.record(.condition, id: "c1"), Fixtures.patient])
        try await w.saveCards()
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition), .clinical(.immunization), .context(.personalDetails)])
        try await w.consent.decide(
            appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult), .clinical(.condition), .context(.personalDetails)], newData: .share))
        try await w.test { client in
            let doc = try await Self.document(client)
            let validator = SchemaValidator(document: doc)
            let paths = doc["paths"] as! [String: [String: Any]]
            var checked = Set<String>()
            func check(_ r: TestResponse, _ method: String, _ template: String) throws {
                let op = try #require(paths[template]?[method.lowercased()] as? [String: Any])
                let responses = op["responses"] as! [String: Any]
                var response = try #require(responses[String(r.status.code)] as? [String: Any], "\(method) \(template) \(r.status.code) undocumented")
                if let ref = response["$ref"] as? String { response = validator.resolve(ref) }
                guard let content = response["content"] as? [String: Any] else {
                    #expect(r.body.readableBytes == 0)
                    return
                }
                if let json = content["application/json"] as? [String: Any] {
                    let value = try JSONSerialization.jsonObject(with: Data(r.body.readableBytesView))
                    let problems = validator.problems(value, json["schema"] as! [String: Any])
                    #expect(problems.isEmpty, "\(method) \(template) \(r.status.code): \(problems)")
                }
                checked.insert("\(method) \(template) \(r.status.code)")
            }
            let t = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
            try check(t, "POST", "/token")
            try check(try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=x&client_secret=y"), "POST", "/token")
            let token = try t.object()["access_token"] as! String
            try check(try await client.call(.get, "/records"), "GET", "/records")
            try check(try await client.call(.get, "/records?type=lab-result", token: token), "GET", "/records")
            try check(try await client.call(.get, "/records?limit=x", token: token), "GET", "/records")
            try check(try await client.call(.get, "/records/clinic/Observation/l1", token: token), "GET", "/records/{source}/{resourceType}/{id}")
            try check(try await client.call(.get, "/records/clinic/Patient/p1", token: token), "GET", "/records/{source}/{resourceType}/{id}")
            try check(try await client.call(.get, "/records/clinic/Observation/none", token: token), "GET", "/records/{source}/{resourceType}/{id}")
            let changes = try await client.call(.get, "/changes", token: token)
            try check(changes, "GET", "/changes")
            _ = try await w.store.delete(source: "clinic", resourceType: .condition, identifier: "c1")
            try check(try await client.call(.get, "/changes?anchor=\(try changes.object()["anchor"] as! String)", token: token), "GET", "/changes")
            try check(try await client.call(.get, "/authorization-status?types=lab-result", token: token), "GET", "/authorization-status")
            let auth = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["immunization"]}"#)
            try check(auth, "POST", "/authorization-requests")
            try check(try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result"]}"#), "POST", "/authorization-requests")
            try check(try await client.call(.post, "/authorization-requests", token: token, json: "{}"), "POST", "/authorization-requests")
            let authID = try auth.object()["id"] as! String
            try check(try await client.call(.get, "/authorization-requests/\(authID)", token: token), "GET", "/authorization-requests/{id}")
            try check(try await client.call(.get, "/authorization-requests/none", token: token), "GET", "/authorization-requests/{id}")
            let cards = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#)
            try check(cards, "POST", "/verifiable-record-requests")
            let cardsID = try cards.object()["id"] as! String
            try check(try await client.call(.get, "/verifiable-record-requests/\(cardsID)", token: token), "GET", "/verifiable-record-requests/{id}")
            try check(try await client.call(.post, "/verifiable-record-requests/\(cardsID)/records", token: token), "POST", "/verifiable-record-requests/{id}/records")
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page("/share/\(cardsID)", cookie: cookie)
            let card = String(html.firstMatch(of: #/name="card" value="([^"]+)"/#)!.output.1)
            _ = try await client.call(.post, "/share/\(cardsID)", form: "csrf=\(formEncoded(csrf))&card=\(card)&action=share", cookie: cookie)
            try check(try await client.call(.post, "/verifiable-record-requests/\(cardsID)/records", token: token), "POST", "/verifiable-record-requests/{id}/records")
            try check(try await client.call(.get, "/verifiable-record-requests/\(cardsID)", token: token), "GET", "/verifiable-record-requests/{id}")
            let hook = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"http://127.0.0.1:9/h"}"#)
            try check(hook, "POST", "/webhooks")
            try check(try await client.call(.post, "/webhooks", token: token, json: #"{"url":"ftp://x"}"#), "POST", "/webhooks")
            try check(try await client.call(.get, "/webhooks", token: token), "GET", "/webhooks")
            try check(try await client.call(.delete, "/webhooks/\(try hook.object()["id"] as! String)", token: token), "DELETE", "/webhooks/{id}")
            try check(try await client.call(.get, "/health"), "GET", "/health")
            try check(try await client.call(.get, "/openapi.json"), "GET", "/openapi.json")
            #expect(checked.count == 22)
        }
    }

    /// A router path description as an OpenAPI template (`{name}` parameters).
    static func template(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.joined(separator: "/")
    }
}
