import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The attacks of the security review (issue 13), replayed from the attacker's side against a
/// live server on loopback: each one failed before its fix.
@Suite struct SecurityRegressionTests {
    static let patient = #"{"resourceType":"Patient","id":"p1","identifier":[{"system":"http://hl7.org/fhir/sid/us-ssn","value":"999-12-3456"}]}"#
    static let encounter = #"{"resourceType":"Encounter","id":"e1","status":"finished","reasonCode":[{"text":"HIV infection"}]}"#
    static let survey = #"{"resourceType":"Observation","id":"phq","status":"final","category":[{"coding":[{"code":"survey"}]}],"code":{"text":"PHQ-9"},"valueInteger":21}"#
    static let claim = #"{"resourceType":"ExplanationOfBenefit","id":"eob1","status":"active"}"#

    /// Finding 1: an app allowed only vital signs read the Patient (SSN), an Encounter whose
    /// reason is a denied condition, claims and a PHQ-9 score by id; under "ask" new ones at once.
    @Test(arguments: ServerEngine.all)
    func contextResourcesNeedTheirOwnCategory(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.vitalSign, id: "v1"), Self.patient, Self.encounter, Self.survey, Self.claim])
        let creds = try await w.register([.clinical(.vitalSign), .context(.personalDetails)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.vitalSign)], deny: [.context(.personalDetails)], newData: .share))
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            #expect(try await client.call(.get, "/records/clinic/Observation/v1", token: token).status == .ok)
            for path in ["/records/clinic/Patient/p1", "/records/clinic/Encounter/e1", "/records/clinic/Observation/phq", "/records/clinic/ExplanationOfBenefit/eob1"] {
                let r = try await client.call(.get, path, token: token)
                #expect(r.status == .notFound, "\(path)")
                #expect(!r.text.contains("999-12-3456") && !r.text.contains("HIV"))
            }
            // Allowed under "ask": the Patient imported before is readable, one imported after is not.
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.context(.personalDetails)], newData: .ask))
            #expect(try await client.call(.get, "/records/clinic/Patient/p1", token: token).status == .ok)
            try await w.importResources([#"{"resourceType":"Patient","id":"p2","name":[{"family":"New"}]}"#])
            #expect(try await client.call(.get, "/records/clinic/Patient/p2", token: token).status == .notFound)
            _ = try await w.consent.approveNewData(appID: creds.appID)
            #expect(try await client.call(.get, "/records/clinic/Patient/p2", token: token).status == .ok)
        }
    }

    /// Finding 2: `/token` kept a bucket per unauthenticated client id, as long as the body.
    @Test func randomClientIDsLeaveNothingBehind() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test(.live) { client in
            for _ in 0..<300 {
                let id = String(repeating: "x", count: 4000) + UUID().uuidString
                let r = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=\(id)&client_secret=nope")
                #expect([.unauthorized, .tooManyRequests].contains(r.status))
            }
        }
        // Unknown client ids make no keys: only the one address key is held.
        #expect(w.server.throttledKeyCount <= 1)
    }

    /// Finding 2: authorization requests that complete at once were kept and not counted.
    @Test func completedRequestsCountAgainstTheCap() async throws {
        let w = try await ServerWorld(.sqlite) { $0.limits.maxPendingRequestsPerApp = 5 }
        let creds = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<8 { statuses.append(try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result"]}"#).status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == .created })
            #expect(statuses.suffix(3).allSatisfy { $0 == .conflict })
        }
    }

    /// Finding 3: `next=/%09/evil.example/phish` was sent as `Location: /\t/evil.example/phish`.
    @Test func signInNeverRedirectsOffTheServer() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test(.live) { client in
            let hostile = ["/%09/evil.example/phish", "//evil.example", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example", "/%5Cevil.example",
                           "/%0d%0aSet-Cookie:x=1", "javascript:alert(1)", "/ /evil.example"]
            for next in hostile {
                let r = try await client.call(.get, "/login?token=\(ServerWorld.personToken)&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
                #expect(r.status == .seeOther)
                let location = r.headers[.location] ?? ""
                #expect(location == "/", "\(next) → \(location)")
            }
            let ok = try await client.call(.get, "/login?token=\(ServerWorld.personToken)&next=%2Fapps%3Fx%3D1")
            #expect(ok.headers[.location] == "/apps?x=1")
        }
    }

    /// Finding 4: 25 wrong tries from anywhere locked the person (and an app) out.
    @Test func failuresElsewhereLockNobodyOut() async throws {
        // A long first wait, so a slow (loaded) machine cannot outlast it between two requests.
        let w = try await ServerWorld(.sqlite) { $0.limits.authFailureBackoff = .seconds(60) }
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test(.live) { client in
            let port = try #require(client.port)
            // The person signed in on this network before the attack began.
            let earlier = try await SourceBoundHTTP.send(port: port, from: "127.0.0.2", method: "GET", path: "/login?token=\(ServerWorld.personToken)&next=%2F")
            let session = try #require(earlier.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
            var last = 0
            for _ in 0..<30 {
                last = try await SourceBoundHTTP.send(
                    port: port, from: "127.0.0.2", method: "POST", path: "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: "token=wrong&next=%2F").status
                _ = try await SourceBoundHTTP.send(
                    port: port, from: "127.0.0.2", method: "POST", path: "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=wrong")
            }
            #expect(last == 429)
            // The bucket refills one try a second: on a loaded machine a second may pass before
            // the next try, which then spends the refill; the one after is refused again.
            var blocked = try await SourceBoundHTTP.send(port: port, from: "127.0.0.2", method: "GET", path: "/login?token=wrong-again")
            for _ in 0..<3 where blocked.status != 429 {
                blocked = try await SourceBoundHTTP.send(port: port, from: "127.0.0.2", method: "GET", path: "/login?token=wrong-again")
            }
            #expect(blocked.status == 429 && blocked.headers["retry-after"] != nil)
            // Review 2, finding 5: a throttled address's sign-in is not evaluated, so even the right
            // token waits there (guessing from one address is as slow as the backoff)...
            let shared = try await SourceBoundHTTP.send(port: port, from: "127.0.0.2", method: "GET", path: "/login?token=\(ServerWorld.personToken)&next=%2F")
            #expect(shared.status == 429 && shared.headers["set-cookie"] == nil)
            // ...while the session the person's device already holds there still works.
            let page = try await SourceBoundHTTP.send(port: port, from: "127.0.0.2", method: "GET", path: "/", headers: ["Cookie": session])
            #expect(page.status == 200)
            // An app's secret, 256 random bits, is still accepted from a shared throttled address.
            let sharedApp = try await SourceBoundHTTP.send(
                port: port, from: "127.0.0.2", method: "POST", path: "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
            #expect(sharedApp.status == 200)
            // The person and the app, from their own address, get in at once.
            let person = try await SourceBoundHTTP.send(port: port, from: "127.0.0.3", method: "GET", path: "/login?token=\(ServerWorld.personToken)&next=%2F")
            #expect(person.status == 303)
            let app = try await SourceBoundHTTP.send(
                port: port, from: "127.0.0.3", method: "POST", path: "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
            #expect(app.status == 200)
        }
    }

    /// Review 2, finding 5: wrong person tokens were answered at ~635 guesses a second per
    /// connection, and a right guess still signed in from the throttled address. Now, once an
    /// address backs off, its attempts are not evaluated at all until the wait is over.
    @Test func guessesFromOneAddressAreNotEvaluatedWhileItWaits() async throws {
        // A long first wait, so a slow (loaded) machine cannot outlast it between two requests.
        let backoff = 60.0
        let w = try await ServerWorld(.sqlite) { $0.limits.authFailureBurst = 5; $0.limits.authFailureBackoff = .seconds(backoff) }
        try await w.test(.live) { client in
            let port = try #require(client.port)
            var evaluated = 0
            var refused = 0
            let started = ContinuousClock.now
            for i in 0..<40 {
                let r = try await SourceBoundHTTP.send(
                    port: port, from: "127.0.0.4", method: "POST", path: "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: "token=guess-\(i)&next=%2F")
                if r.status == 401 { evaluated += 1 } else if r.status == 429 { refused += 1 }
            }
            // The free tries, then one more each time the backoff (doubling) runs out: within
            // T seconds at most 1 + log2(T / backoff + 1) more, however fast the guesses come.
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            #expect(evaluated >= 5 && evaluated <= 5 + 1 + Int(log2(seconds / backoff + 1)), "\(evaluated) guesses evaluated in \(seconds) s")
            #expect(evaluated + refused == 40)
            let right = try await SourceBoundHTTP.send(port: port, from: "127.0.0.4", method: "GET", path: "/login?token=\(ServerWorld.personToken)&next=%2F")
            #expect(right.status == 429 && right.headers["retry-after"] != nil)
            let elsewhere = try await SourceBoundHTTP.send(port: port, from: "127.0.0.5", method: "GET", path: "/login?token=\(ServerWorld.personToken)&next=%2F")
            #expect(elsewhere.status == 303)
        }
    }

    /// Finding 6: anchors counted writes the app may not see.
    @Test(arguments: ServerEngine.all)
    func anchorsSayNothingAboutHiddenWrites(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition)])
        let other = try await w.register([.clinical(.labResult)], name: "Other")
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], deny: [.clinical(.condition)], newData: .share))
        try await w.consent.decide(appID: other.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            let first = try await client.call(.get, "/changes", token: token).object()
            let anchor = try #require(first["anchor"] as? String)
            #expect(Int(anchor) == nil && anchor.count >= 40)
            // Hidden writes: the app's anchor does not move, and nothing comes back.
            for i in 0..<5 { try await w.importResources([Fixtures.record(.condition, id: "c\(i)")]) }
            let after = try await client.call(.get, "/changes?anchor=\(anchor)", token: token).object()
            #expect(after["anchor"] as? String == anchor)
            #expect((after["added"] as? [Any])?.isEmpty == true)
            // Another app's anchor, a tampered one and a number are refused.
            let otherToken = try await client.token(other)
            let otherAnchor = try #require(try await client.call(.get, "/changes", token: otherToken).object()["anchor"] as? String)
            #expect(try await client.call(.get, "/changes?anchor=\(otherAnchor)", token: token).status == .badRequest)
            var tampered = Array(anchor)
            tampered[10] = tampered[10] == "A" ? "B" : "A"
            #expect(try await client.call(.get, "/changes?anchor=\(String(tampered))", token: token).status == .badRequest)
            #expect(try await client.call(.get, "/changes?anchor=3", token: token).status == .badRequest)
            // A visible write moves it.
            try await w.importResources([Fixtures.record(.labResult, id: "l2")])
            let moved = try await client.call(.get, "/changes?anchor=\(anchor)", token: token).object()
            #expect((moved["added"] as? [[String: Any]])?.map { $0["id"] as? String } == ["l2"])
            #expect(moved["anchor"] as? String != anchor)
        }
    }

    /// Finding 7: the redirect URI was whatever the request said.
    @Test func onlyRegisteredRedirectURIs() async throws {
        let w = try await ServerWorld(.sqlite)
        let creds = try await w.consent.register(
            name: "Tracker", purpose: "Charts", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: "https://app.example/done")!])
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            for bad in ["https://evil.example/", "https://app.example/done/", "https://app.example/done?x=1", "https://app.example/DONE", "http://app.example/done"] {
                let r = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result"],"redirectUri":"\#(bad)"}"#)
                #expect(r.status == .badRequest, "\(bad)")
            }
            let r = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result"],"redirectUri":"https://app.example/done"}"#)
            #expect(r.status == .created)
            let url = try #require(try r.object()["url"] as? String)
            let path = String(url[url.range(of: "/consent/")!.lowerBound...])
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page(path, cookie: cookie)
            let answer = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&allow=lab-result&action=allow", cookie: cookie)
            #expect(answer.headers[.location]?.hasPrefix("https://app.example/done?authorization_request=") == true)
        }
        #expect(throws: ConsentError.self) {
            _ = try AppRegistration(
                id: "x", name: "n", purpose: "p", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)], registeredDate: Date(),
                redirectURIs: [URL(string: "http://evil.example/cb")!])
        }
    }

    /// Finding 9: the session cookie lacked `Secure` behind an https public URL.
    @Test func theCookieIsSecureBehindHTTPS() async throws {
        let w = try await ServerWorld(.sqlite) { $0.publicBaseURL = "https://health.example" }
        try await w.test(.live) { client in
            let r = try await client.call(.get, "/login?token=\(ServerWorld.personToken)&next=%2F")
            let cookie = try #require(r.headers[.setCookie])
            #expect(cookie.hasPrefix("__Host-hr_session="))
            #expect(cookie.lowercased().contains("secure") && cookie.lowercased().contains("httponly") && cookie.contains("Path=/"))
            #expect(!cookie.lowercased().contains("domain"))
            let pair = String(cookie.split(separator: ";")[0])
            #expect(try await client.call(.get, "/", cookie: pair).status == .ok)
        }
        let plain = try await ServerWorld(.sqlite)
        try await plain.test(.live) { client in
            let cookie = try #require(try await client.call(.get, "/login?token=\(ServerWorld.personToken)&next=%2F").headers[.setCookie])
            #expect(cookie.hasPrefix("hr_session=") && !cookie.lowercased().contains("secure"))
        }
    }

    /// Finding 11: a revoked app kept its tokens, streams and webhooks, and collected a card.
    @Test(arguments: ServerEngine.all)
    func revokeEndsEverything(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.saveCards()
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        let creds = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        try await w.test(.live) { client in
            let port = try #require(client.port)
            let token = try await client.token(creds)
            // A card request the person answers, not yet collected.
            let request = try await client.call(.post, "/verifiable-record-requests", token: token, json: #"{"recordTypes":["\#(Fixtures.immunizationCard)"]}"#).object()
            let id = try #require(request["id"] as? String)
            let url = try #require(request["url"] as? String)
            let path = String(url[url.range(of: "/share/")!.lowerBound...])
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            let card = try #require(html.range(of: #"name="card" value="([^"]+)""#, options: .regularExpression).map { String(html[$0].split(separator: "\"")[3]) })
            _ = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&card=\(formEncoded(card))&action=share", cookie: cookie)
            // A webhook and an event stream.
            #expect(try await client.call(.post, "/webhooks", token: token, json: #"{"url":"http://127.0.0.1:9/hook"}"#).status == .created)
            let stream = try RawHTTPStream(port: port, path: "/observe", headers: ["Authorization": "Bearer \(token)"])
            _ = try await stream.read(until: ": observing")

            // Revoked from outside the server (the command line's path).
            try await w.consent.revoke(appID: creds.appID)

            #expect(try await client.call(.get, "/records", token: token).status == .unauthorized)
            #expect(try await stream.closes(within: .seconds(30)))
            #expect(try await client.call(.post, "/verifiable-record-requests/\(id)/records", token: try await client.token(creds)).status != .ok)
            let fresh = try await client.token(creds)
            #expect((try await client.call(.get, "/webhooks", token: fresh).object()["webhooks"] as? [Any])?.isEmpty == true)
            let records = try await client.call(.get, "/records", token: fresh).object()["records"] as? [Any]
            #expect(records?.isEmpty == true)
            // A stale token (an old worker of the app) is refused and ends nothing issued since.
            #expect(try await client.call(.get, "/records", token: token).status == .unauthorized)
            #expect(try await client.call(.get, "/records", token: fresh).status == .ok)
        }
    }

    /// Finding 12: the app page read the whole audit log to show 100 lines.
    @Test(arguments: ServerEngine.all)
    func theAuditLogIsPagedInTheStore(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        let creds = try await w.register([.clinical(.labResult)])
        let view = try await w.consent.view(appID: creds.appID)
        for _ in 0..<130 { _ = try await view.records(RecordQuery(type: .labResult)) }
        let page = try await w.consent.auditLog(appID: creds.appID, newestFirst: 100)
        let all = try await w.consent.auditLog(appID: creds.appID)
        #expect(page.count == 100)
        #expect(page == Array(all.suffix(100).reversed()))
        #expect(try await w.consent.auditLog(appID: creds.appID, newestFirst: 100, offset: 100).count == 30)
    }
}
