import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The authorization sheet: the app asks, the person answers on the consent page, the app
/// sees exactly what was allowed.
@Suite struct ConsentFlowTests {
    static let asked: Set<HealthDataType> = [.clinical(.labResult), .clinical(.condition), .clinical(.immunization), .clinical(.allergy)]

    static func world(_ engine: ServerEngine, required: Set<HealthDataType> = []) async throws -> (ServerWorld, AppCredentials) {
        let w = try await ServerWorld(engine)
        try await w.importResources([
            Fixtures.record(.labResult, id: "l1"), Fixtures.record(.condition, id: "c1"), Fixtures.record(.immunization, id: "i1"),
            Fixtures.record(.allergy, id: "a1"),
        ])
        return (w, try await w.register(asked, required: required))
    }

    @Test(arguments: ServerEngine.all)
    func thePersonTogglesTwoTypesAndTheAppSeesExactlyThose(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let status = try await client.call(.get, "/authorization-status?types=lab-result,condition", token: token).object()
            #expect(status["status"] as? String == "shouldRequest")
            let created = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result","condition","immunization","allergy"]}"#)
            #expect(created.status == .created)
            let request = try created.object()
            #expect(request["status"] as? String == "pending")
            let url = request["url"] as! String
            #expect(url.hasPrefix("http://127.0.0.1:0/consent/"))
            let path = String(url.dropFirst("http://127.0.0.1:0".count))

            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            #expect(html.contains("Tracker") && html.contains("Charts your results for you") && html.contains("https://example.org/privacy"))
            #expect(html.components(separatedBy: #"type="checkbox" name="allow""#).count - 1 == 4)
            #expect(html.contains("Highly sensitive"))
            #expect(html.contains(#"name="newData" value="ask""#) && html.contains(#"name="newData" value="share""#))
            #expect(!html.localizedCaseInsensitiveContains("allow all"))

            let answer = try await client.call(
                .post, path, form: "csrf=\(formEncoded(csrf))&allow=lab-result&allow=immunization&newData=share&action=allow", cookie: cookie)
            #expect(answer.status == .ok)
            let id = request["id"] as! String
            #expect(try await client.call(.get, "/authorization-requests/\(id)", token: token).object()["status"] as? String == "completed")
            let records = try await client.call(.get, "/records", token: token).object()["records"] as! [[String: Any]]
            #expect(Set(records.map { $0["clinicalType"] as! String }) == ["lab-result", "immunization"])
            #expect(try await client.call(.get, "/authorization-status?types=lab-result,condition", token: token).object()["status"] as? String == "unnecessary")
            // Answered requests are gone from the person's side.
            #expect(try await client.call(.get, path, cookie: cookie).status == .notFound)
        }
        let grants = try await w.consent.grants(appID: creds.appID)
        #expect(grants.filter { $0.decision == .allowed }.map(\.type) == [.clinical(.immunization), .clinical(.labResult)].sorted())
        #expect(grants.filter { $0.decision == .denied }.count == 2)
        #expect(grants.allSatisfy { $0.newData == .share })
    }

    @Test(arguments: ServerEngine.all)
    func anAppIsRedirectedBackWhenItGaveARedirectURI(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let request = try await client.call(
                .post, "/authorization-requests", token: token, json: #"{"types":["lab-result"],"redirectUri":"https://app.example/done?x=1"}"#
            ).object()
            let path = "/consent/\(request["id"] as! String)"
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page(path, cookie: cookie)
            let answer = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&action=deny", cookie: cookie)
            #expect(answer.status == .seeOther)
            #expect(answer.headers[.location] == "https://app.example/done?x=1&authorization_request=\(request["id"] as! String)")
            #expect((try await client.call(.get, "/records", token: token).object()["records"] as! [Any]).isEmpty)
        }
    }

    @Test(arguments: ServerEngine.all)
    func denyingARequiredTypeFailsTheRequestWithoutSayingWhich(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine, required: [.clinical(.labResult), .clinical(.condition), .clinical(.immunization)])
        try await w.test { client in
            let token = try await client.token(creds)
            let request = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result","condition","immunization"]}"#).object()
            let path = "/consent/\(request["id"] as! String)"
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            #expect(html.contains("required by the app"))
            _ = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&allow=lab-result&allow=immunization&action=allow", cookie: cookie)
            let status = try await client.call(.get, "/authorization-requests/\(request["id"] as! String)", token: token)
            #expect(status.text.contains(#""status":"failed","error":"requiredAuthorizationDenied""#))
            #expect(try status.object().keys.sorted() == ["error", "id", "status", "types", "url"])
            // Asking again when everything is decided completes at once, with the same answer.
            let again = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result","condition","immunization"]}"#).object()
            #expect(again["status"] as? String == "failed" && again["url"] is NSNull)
        }
    }

    @Test(arguments: ServerEngine.all)
    func formsWithoutTheSessionsTokenChangeNothing(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let request = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result"]}"#).object()
            let path = "/consent/\(request["id"] as! String)"
            let cookie = try await client.signIn()
            let forged = try await client.call(.post, path, form: "csrf=guess&allow=lab-result&action=allow", cookie: cookie)
            #expect(forged.status == .forbidden)
            let noSession = try await client.call(.post, path, form: "allow=lab-result&action=allow")
            #expect(noSession.status == .forbidden)
            #expect(try await client.call(.get, "/authorization-requests/\(request["id"] as! String)", token: token).object()["status"] as? String == "pending")
        }
        #expect(try await w.consent.grants(appID: creds.appID).isEmpty)
    }

    @Test(arguments: ServerEngine.all)
    func requestsNameOnlyTypesTheAppRegisteredFor(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            for body in [#"{"types":["coverage"]}"#, #"{"types":[]}"#, #"{"types":["nonsense"]}"#, #"{"nope":1}"#, "not json"] {
                let r = try await client.call(.post, "/authorization-requests", token: token, json: body)
                #expect(r.status == .badRequest, "\(body)")
            }
            #expect(try await client.call(.get, "/authorization-requests/unknown", token: token).status == .notFound)
        }
    }
}
