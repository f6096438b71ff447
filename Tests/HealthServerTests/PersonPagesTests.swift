import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The person's pages: signed in with the person token; timeline, cards, immunizations,
/// apps with grants and audit log, approve and revoke.
@Suite struct PersonPagesTests {
    @Test(arguments: ServerEngine.all)
    func pagesNeedTheSignInTokenAndASession(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.test { client in
            let anonymous = try await client.call(.get, "/apps")
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/login?next=/apps")
            let wrong = try await client.call(.get, "/login?token=guess")
            #expect(wrong.status == .unauthorized && wrong.headers[.setCookie] == nil)
            let login = try await client.call(.get, "/login?next=%2Fapps")
            #expect(login.status == .ok && login.text.contains(#"name="next" value="/apps""#))
            let right = try await client.call(.post, "/login", form: "token=\(ServerWorld.personToken)&next=%2Fapps")
            #expect(right.status == .seeOther && right.headers[.location] == "/apps")
            let setCookie = try #require(right.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
            let offsite = try await client.call(.post, "/login", form: "token=\(ServerWorld.personToken)&next=%2F%2Fevil.example")
            #expect(offsite.headers[.location] == "/")
            let page = try await client.call(.get, "/apps", cookie: String(setCookie.split(separator: ";")[0]))
            #expect(page.status == .ok)
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.headers[HTTPFields.Element.Name("X-Frame-Options")!] == "DENY")
            #expect(page.headers[.cacheControl] == "no-store")
        }
    }

    @Test(arguments: ServerEngine.all)
    func theTimelineGroupsRecordsByTypeWithNamesDatesAndSources(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([
            Fixtures.record(.labResult, id: "l1", text: "Glucose"), Fixtures.record(.condition, id: "c1", text: "Asthma <severe>"),
            Fixtures.record(.immunization, id: "i1", text: "COVID-19 vaccine"), Fixtures.patient,
        ], source: "North Clinic")
        try await w.test { client in
            let cookie = try await client.signIn()
            let html = try await client.call(.get, "/", cookie: cookie).text
            #expect(html.contains("<h2>Conditions") && html.contains("<h2>Lab Results") && html.contains("<h2>Immunizations"))
            #expect(html.contains("Glucose") && html.contains("2020-03-01") && html.contains("North Clinic"))
            #expect(html.contains("Asthma &lt;severe&gt;") && !html.contains("<severe>"))
            #expect(html.contains(#"name="viewport""#))
            #expect(!html.contains("<script"))
            let labs = try await client.call(.get, "/?type=lab-result", cookie: cookie).text
            #expect(labs.contains("Glucose") && !labs.contains("Asthma"))
            let checklist = try await client.call(.get, "/immunizations", cookie: cookie).text
            #expect(checklist.contains("COVID-19") && checklist.contains("2021-01-02"))
        }
    }

    @Test(arguments: ServerEngine.all)
    func cardsShowTheirVerificationStatus(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        try await w.test { client in
            let cookie = try await client.signIn()
            let list = try await client.call(.get, "/cards", cookie: cookie).text
            #expect(list.contains("Vaccine 1") && list.contains("Vaccine 3") && list.contains("Verified"))
            let id = try #require(list.firstMatch(of: #/href="/cards/([^"]+)"/#)).output.1
            let detail = try await client.call(.get, "/cards/\(id)", cookie: cookie).text
            #expect(detail.contains("Verified — signature valid, issuer trusted") && detail.contains("https://issuer.example"))
            #expect(try await client.call(.get, "/cards/nothing", cookie: cookie).status == .notFound)
        }
    }

    @Test(arguments: ServerEngine.all)
    func anAppsPageShowsGrantsAndAuditAndRevokes(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], deny: [.clinical(.condition)]))
        try await w.test { client in
            let token = try await client.token(creds)
            _ = try await client.call(.get, "/records?type=lab-result", token: token)
            let cookie = try await client.signIn()
            #expect(try await client.call(.get, "/apps", cookie: cookie).text.contains("1 allowed · 1 denied"))
            let (html, csrf) = try await client.page("/apps/\(creds.appID)", cookie: cookie)
            #expect(html.contains("Lab Results") && html.contains("Allowed") && html.contains("Denied") && html.contains("asks first"))
            #expect(html.contains("records · 1 returned"))
            #expect(try await client.call(.post, "/apps/\(creds.appID)/revoke", form: "csrf=bad", cookie: cookie).status == .forbidden)
            #expect(try await w.consent.grants(appID: creds.appID).count == 2)
            let revoked = try await client.call(.post, "/apps/\(creds.appID)/revoke", form: "csrf=\(formEncoded(csrf))", cookie: cookie)
            #expect(revoked.status == .seeOther)
            // Revoking ends the app's tokens at once; a new token sees nothing.
            #expect(try await client.call(.get, "/records", token: token).status == .unauthorized)
            let fresh = try await client.token(creds)
            #expect((try await client.call(.get, "/records", token: fresh).object()["records"] as! [Any]).isEmpty)
            #expect(try await client.call(.get, "/apps/\(creds.appID)", cookie: cookie).text.contains("has no access"))
        }
        #expect(try await w.consent.grants(appID: creds.appID).isEmpty)
    }

    @Test(arguments: ServerEngine.all)
    func approvingNewDataShowsRecordsAddedAfterTheDecision(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        let creds = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .ask))
        try await w.importResources([Fixtures.record(.labResult, id: "l2")])
        try await w.test { client in
            let token = try await client.token(creds)
            func ids() async throws -> [String] {
                (try await client.call(.get, "/records", token: token).object()["records"] as! [[String: Any]]).map { $0["id"] as! String }
            }
            #expect(try await ids() == ["l1"])
            #expect(try await client.call(.get, "/authorization-status?types=lab-result", token: token).object()["status"] as? String == "shouldRequest")
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page("/apps/\(creds.appID)", cookie: cookie)
            _ = try await client.call(.post, "/apps/\(creds.appID)/approve", form: "csrf=\(formEncoded(csrf))", cookie: cookie)
            #expect(try await ids() == ["l1", "l2"])
        }
    }
}
