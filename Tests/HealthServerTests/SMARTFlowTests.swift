import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import Logging
import HummingbirdTesting
import SMARTAuthorization
import Testing

extension TestResponse {
    /// The OAuth2 `error` code of a JSON error body.
    var oauthError: String? { (try? object())?["error"] as? String }
}

/// The SMART authorization server against attacks on every step: codes, PKCE, redirect URIs,
/// `aud`, refresh rotation and replay, revocation, and what survives a restart.
@Suite struct SMARTFlowTests {
    static let redirect = "https://app.example/cb"
    static let verifier = String(repeating: "v", count: 20) + "-verifier-0123456789abcdef"

    /// A registered public SMART client.
    static func publicClient(_ w: ServerWorld, name: String = "Chart") async throws -> String {
        try await w.consent.register(
            name: name, purpose: "Charts your results", privacyPolicyURL: ServerWorld.privacy,
            requestedTypes: Set(ConsentCategory.allCases.map(HealthDataType.init)), redirectURIs: [URL(string: redirect)!], clientType: .public
        ).appID
    }

    static func authorizeQuery(
        _ w: ServerWorld, client: String, scope: String = "launch/patient openid fhirUser offline_access patient/Observation.rs",
        challenge: String? = PKCE.challenge(for: verifier), method: String? = "S256", aud: String? = nil, redirect: String = redirect
    ) -> String {
        var items = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("scope", scope), ("state", "st+1/="),
            ("aud", aud ?? w.server.baseURL + "/fhir"),
        ]
        if let challenge { items.append(("code_challenge", challenge)) }
        if let method { items.append(("code_challenge_method", method)) }
        return "/authorize?" + items.map { "\($0.0)=\(formEncoded($0.1))" }.joined(separator: "&")
    }

    /// Runs the consent page with the given categories turned on; returns the redirect's query items.
    static func consent(_ client: some TestClientProtocol, _ uri: String, cookie: String, allow: [String]) async throws -> [String: String] {
        let page = try await client.call(.get, uri, cookie: cookie)
        guard page.status == .ok else { throw TestFailure("authorize page: \(page.status) \(page.text)") }
        let html = page.text
        guard let a = html.range(of: #"action="/authorize/consent/[^"]+""#, options: .regularExpression),
            let c = html.range(of: #"name="csrf" value="([^"]+)""#, options: .regularExpression)
        else { throw TestFailure("no consent form: \(html)") }
        let action = String(html[a].dropFirst(8).dropLast())
        let csrf = String(html[c].split(separator: "\"")[3])
        // Allowing medications, the person ticks every medication the sheet lists.
        let medications = html.matches(of: /name="medication" value="([0-9a-f]+)"/).map { "medication=" + $0.output.1 }
        let form = (["csrf=\(formEncoded(csrf))", "action=allow", "newData=share"] + allow.map { "allow=\($0)" } + medications).joined(separator: "&")
        let answer = try await client.call(.post, action, form: form, cookie: cookie)
        guard answer.status == .seeOther, let location = answer.headers[.location] else { throw TestFailure("consent answer: \(answer.status)") }
        return query(location)
    }

    static func query(_ url: String) -> [String: String] {
        Dictionary(URLComponents(string: url)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? [], uniquingKeysWith: { a, _ in a })
    }

    static func exchange(_ client: some TestClientProtocol, code: String, app: String, verifier: String = verifier, redirect: String = redirect)
        async throws -> TestResponse
    {
        try await client.call(
            .post, "/token",
            form: "grant_type=authorization_code&code=\(formEncoded(code))&client_id=\(app)&redirect_uri=\(formEncoded(redirect))&code_verifier=\(verifier)")
    }

    static func refresh(_ client: some TestClientProtocol, _ token: String, app: String, scope: String? = nil) async throws -> TestResponse {
        try await client.call(
            .post, "/token", form: "grant_type=refresh_token&refresh_token=\(formEncoded(token))&client_id=\(app)" + (scope.map { "&scope=\(formEncoded($0))" } ?? ""))
    }

    @Test func theWholeFlowIssuesScopedRotatingTokens() async throws {
        let w = try await ServerWorld(.sqlite)
        let app = try await Self.publicClient(w)
        try await w.test { client in
            let cookie = try await client.signIn()
            let answer = try await Self.consent(client, Self.authorizeQuery(w, client: app), cookie: cookie, allow: ["lab-result"])
            #expect(answer["state"] == "st+1/=")
            let code = try #require(answer["code"])
            let r = try await Self.exchange(client, code: code, app: app)
            #expect(r.status == .ok)
            #expect(r.headers[.cacheControl] == "no-store")
            let body = try r.object()
            #expect(body["token_type"] as? String == "Bearer")
            #expect((body["expires_in"] as? Int).map { $0 <= 3600 } == true)
            #expect(body["scope"] as? String == "launch/patient openid fhirUser offline_access patient/Observation.rs")
            #expect(body["patient"] as? String == (try await w.store.personPatientID()))
            #expect(body["id_token"] is String)
            let refresh = try #require(body["refresh_token"] as? String)
            // The grant went through the person's consent: lab results allowed, vital signs denied.
            let grants = try await w.consent.grants(appID: app)
            #expect(grants.first { $0.type == .clinical(.labResult) }?.decision == .allowed)
            #expect(grants.first { $0.type == .clinical(.vitalSign) }?.decision == .denied)

            // Refresh rotates; the narrower scope is allowed, a wider one is escalation.
            let wider = try await Self.refresh(client, refresh, app: app, scope: "patient/*.rs offline_access")
            #expect(wider.status == .badRequest && wider.oauthError == "invalid_scope")
            // The refused escalation did not spend the token: it still works once, then never again.
            #expect(try await Self.refresh(client, refresh, app: app).status == .ok)
            let replay = try await Self.refresh(client, refresh, app: app)
            #expect(replay.status == .badRequest && replay.oauthError == "invalid_grant")
        }
    }

    @Test func refreshRotationAndReplayEndTheFamily() async throws {
        let w = try await ServerWorld(.sqlite)
        let app = try await Self.publicClient(w)
        try await w.test { client in
            let cookie = try await client.signIn()
            let code = try #require(try await Self.consent(client, Self.authorizeQuery(w, client: app), cookie: cookie, allow: ["lab-result"])["code"])
            let first = try await Self.exchange(client, code: code, app: app).object()
            let refresh1 = try #require(first["refresh_token"] as? String)
            let narrowed = try await Self.refresh(client, refresh1, app: app, scope: "patient/Observation.rs?category=laboratory offline_access")
            #expect(narrowed.status == .ok)
            let second = try narrowed.object()
            #expect(second["scope"] as? String == "patient/Observation.rs?category=laboratory offline_access")
            let refresh2 = try #require(second["refresh_token"] as? String)
            let access2 = try #require(second["access_token"] as? String)
            // A stolen copy of the spent refresh token is replayed: the whole grant ends.
            #expect(try await Self.refresh(client, refresh1, app: app).status == .badRequest)
            #expect(try await Self.refresh(client, refresh2, app: app).status == .badRequest)
            let introspected = try await client.call(.post, "/introspect", form: "token=\(formEncoded(access2))&client_id=\(app)").object()
            #expect(introspected["active"] as? Bool == false)
        }
    }

    @Test func codesAreSingleUseBoundAndShortLived() async throws {
        let w = try await ServerWorld(.sqlite)
        let app = try await Self.publicClient(w)
        let other = try await Self.publicClient(w, name: "Other")
        try await w.test { client in
            let cookie = try await client.signIn()
            func code() async throws -> String {
                try #require(try await Self.consent(client, Self.authorizeQuery(w, client: app), cookie: cookie, allow: ["lab-result"])["code"])
            }
            // Wrong verifier: refused, and the code is spent.
            let c1 = try await code()
            let wrong = try await Self.exchange(client, code: c1, app: app, verifier: String(repeating: "w", count: 43))
            #expect(wrong.status == .badRequest && wrong.oauthError == "invalid_grant")
            #expect(try await Self.exchange(client, code: c1, app: app).status == .badRequest)
            // Another client's code.
            let c2 = try await code()
            #expect(try await Self.exchange(client, code: c2, app: other).status == .badRequest)
            // Redirect URI differs from the request's.
            let c3 = try await code()
            #expect(try await Self.exchange(client, code: c3, app: app, redirect: "https://app.example/other").status == .badRequest)
            // Reused code: the tokens of the first exchange end too.
            let c4 = try await code()
            let ok = try await Self.exchange(client, code: c4, app: app)
            #expect(ok.status == .ok)
            let access = try #require(try ok.object()["access_token"] as? String)
            #expect(try await Self.exchange(client, code: c4, app: app).status == .badRequest)
            let check = try await client.call(.post, "/introspect", form: "token=\(formEncoded(access))&client_id=\(app)").object()
            #expect(check["active"] as? Bool == false)
            // Expired code.
            let c5 = try await code()
            w.advance(120)
            #expect(try await Self.exchange(client, code: c5, app: app).status == .badRequest)
        }
    }

    @Test func badAuthorizationRequestsAreRefused() async throws {
        let w = try await ServerWorld(.sqlite)
        let app = try await Self.publicClient(w)
        try await w.test { client in
            let cookie = try await client.signIn()
            // Unknown client or unregistered redirect: shown to the person, never redirected.
            let badRedirect = try await client.call(.get, Self.authorizeQuery(w, client: app, redirect: "https://evil.example/cb"), cookie: cookie)
            #expect(badRedirect.status == .badRequest && badRedirect.headers[.location] == nil)
            let unknown = try await client.call(.get, Self.authorizeQuery(w, client: "nobody"), cookie: cookie)
            #expect(unknown.status == .badRequest && unknown.headers[.location] == nil)
            // Everything else goes back to the app with an error and its state.
            for (uri, error) in [
                (Self.authorizeQuery(w, client: app, method: "plain"), "invalid_request"),
                (Self.authorizeQuery(w, client: app, challenge: nil, method: nil), "invalid_request"),
                (Self.authorizeQuery(w, client: app, aud: "https://other.example/fhir"), "invalid_request"),
                (Self.authorizeQuery(w, client: app, scope: "system/Observation.rs"), "invalid_scope"),
            ] {
                let r = try await client.call(.get, uri, cookie: cookie)
                #expect(r.status == .seeOther)
                let q = Self.query(r.headers[.location] ?? "")
                #expect(r.headers[.location]?.hasPrefix(Self.redirect) == true)
                #expect(q["error"] == error && q["state"] == "st+1/=" && q["code"] == nil, "\(uri)")
            }
            // Signed out: sign in first, then back to the same request.
            let signedOut = try await client.call(.get, Self.authorizeQuery(w, client: app))
            #expect(signedOut.status == .seeOther && signedOut.headers[.location]?.hasPrefix("/login?next=/authorize%3F") == true)
        }
    }

    @Test func revocationEndsTheGrantAndTokensSurviveARestart() async throws {
        let w = try await ServerWorld(.sqlite)
        let app = try await Self.publicClient(w)
        let (access, refresh, cookie) = try await w.test { client in
            let cookie = try await client.signIn()
            let code = try #require(try await Self.consent(client, Self.authorizeQuery(w, client: app), cookie: cookie, allow: ["lab-result"])["code"])
            let body = try await Self.exchange(client, code: code, app: app).object()
            return (try #require(body["access_token"] as? String), try #require(body["refresh_token"] as? String), cookie)
        }
        // A new server over the same store: the session, the access and refresh tokens still hold.
        let restarted = try await HealthServer(
            store: w.store, configuration: w.server.configuration, logger: Logger(label: "restart"), webhookSender: w.webhooks)
        try await restarted.application().test(.router) { client in
            #expect(try await client.call(.get, "/", cookie: cookie).status == .ok)
            let live = try await client.call(.post, "/introspect", form: "token=\(formEncoded(access))&client_id=\(app)").object()
            #expect(live["active"] as? Bool == true)
            #expect(live["scope"] as? String == "launch/patient openid fhirUser offline_access patient/Observation.rs")
            let revoked = try await client.call(.post, "/revoke", form: "token=\(formEncoded(access))&client_id=\(app)")
            #expect(revoked.status == .ok)
            let dead = try await client.call(.post, "/introspect", form: "token=\(formEncoded(access))&client_id=\(app)").object()
            #expect(dead["active"] as? Bool == false)
            // Revoking the access token ended its grant: the refresh token fails too.
            #expect(try await Self.refresh(client, refresh, app: app).status == .badRequest)
        }
    }

    @Test func clientsAuthenticateByTheirType() async throws {
        let w = try await ServerWorld(.sqlite)
        let symmetric = try await w.consent.register(
            name: "Confidential", purpose: "p", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: Self.redirect)!])
        let publicApp = try await Self.publicClient(w)
        try await w.test { client in
            let cookie = try await client.signIn()
            let code = try #require(
                try await Self.consent(client, Self.authorizeQuery(w, client: symmetric.appID), cookie: cookie, allow: ["lab-result"])["code"])
            // Without its secret a confidential client is refused (and the code stays unspent).
            let anonymous = try await Self.exchange(client, code: code, app: symmetric.appID)
            #expect(anonymous.status == .unauthorized && anonymous.oauthError == "invalid_client")
            let basic = Data("\(symmetric.appID):\(symmetric.secret)".utf8).base64EncodedString()
            let ok = try await client.call(
                .post, "/token",
                form: "grant_type=authorization_code&code=\(formEncoded(code))&redirect_uri=\(formEncoded(Self.redirect))&code_verifier=\(Self.verifier)",
                headers: [.authorization: "Basic \(basic)"])
            #expect(ok.status == .ok)
            // A public client has no secret to use with client credentials.
            let cc = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=\(publicApp)&client_secret=x")
            #expect(cc.status == .unauthorized)
        }
    }
}

/// Registering a SMART app from the person's page.
@Suite struct RegistrationPageTests {
    @Test func thePageRegistersAPublicClient() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test { client in
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page("/apps/register", cookie: cookie)
            let missing = try await client.call(
                .post, "/apps/register", form: "csrf=\(formEncoded(csrf))&name=Chart&purpose=Charts&privacyUrl=https%3A%2F%2Fchart.example%2Fp&redirectUris=",
                cookie: cookie)
            #expect(missing.status == .badRequest)
            #expect(try await w.consent.apps().isEmpty)
            let forged = try await client.call(
                .post, "/apps/register", form: "csrf=wrong&name=Chart&purpose=Charts&privacyUrl=https%3A%2F%2Fchart.example%2Fp&redirectUris=https%3A%2F%2Fchart.example%2Fcb",
                cookie: cookie)
            #expect(forged.status == .forbidden)
            let ok = try await client.call(
                .post, "/apps/register",
                form: "csrf=\(formEncoded(csrf))&name=Chart&purpose=Charts&privacyUrl=https%3A%2F%2Fchart.example%2Fp&redirectUris=https%3A%2F%2Fchart.example%2Fcb&clientType=public",
                cookie: cookie)
            #expect(ok.status == .ok)
            let apps = try await w.consent.apps()
            #expect(apps.count == 1)
            #expect(apps.first?.registration.clientType == .public)
            #expect(apps.first?.registration.redirectURIs.map(\.absoluteString) == ["https://chart.example/cb"])
            #expect(ok.text.contains(apps.first?.registration.id ?? "-"))
        }
    }
}
