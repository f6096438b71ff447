import ByteEncodings
import ClinicalRecords
import Crypto
import Foundation
import HealthServer
import HealthStoreCore
import HummingbirdTesting
import SMARTAuthorization
import TestSupport
import Testing

/// The shared SMART base of a server for many people (`<base>/fhir`): an app of the operator's
/// catalogue set up once, the person whoever signs in or the person a proxy picks on the
/// consent page, and every code and token bound to that one person — tried with forged
/// prefixes, replays and the other person's base. Both engines.
@Suite struct SharedSMARTBaseTests {
    static let base = PeopleWorld.origin

    static func authorize(_ app: String, aud: String = base + "/fhir") -> String {
        let items = [
            ("response_type", "code"), ("client_id", app), ("redirect_uri", SMARTFlowTests.redirect),
            ("scope", "launch/patient openid fhirUser offline_access patient/Observation.rs"), ("state", "s1"), ("aud", aud),
            ("code_challenge", PKCE.challenge(for: SMARTFlowTests.verifier)), ("code_challenge_method", "S256"),
        ]
        return "/authorize?" + items.map { "\($0.0)=\(formEncoded($0.1))" }.joined(separator: "&")
    }

    /// The claims of a JWS's payload.
    static func claims(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".")
        guard parts.count == 3 else { throw TestFailure("not a JWS") }
        return try #require(try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(parts[1])))) as? [String: Any])
    }

    static func header(_ jws: String) throws -> [String: Any] {
        let first = try #require(jws.split(separator: ".").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(first)))) as? [String: Any])
    }

    /// The same secret under another person's prefix.
    static func reprefixed(_ value: String, from: String, to: String) -> String { to + "." + value.dropFirst(from.count + 1) }

    /// A client that signs its assertions (private_key_jwt) names the token endpoint it calls:
    /// the root's at the root, the person's at theirs, never the one for the other.
    @Test(arguments: ServerEngine.plain)
    func aClientAssertionNamesTheTokenEndpointOfTheBaseItCalls(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        let key = P384.Signing.PrivateKey()
        let (app, creds) = try ConsentManager.newApp(
            name: "Backend viewer", purpose: "Shows your labs", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: SMARTFlowTests.redirect)!], clientType: .confidentialAsymmetric,
            jwks: #"{"keys":[\#(PrivateKeyJWTTests.jwk(key.publicKey, kid: "k1"))]}"#, date: w.now)
        try await w.store(w.ana).saveApp(app)
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            func code(_ uri: String) async throws -> String {
                try #require(try await SMARTFlowTests.consent(client, uri, cookie: ana, allow: ["lab-result"])["code"])
            }
            func exchange(_ path: String, _ code: String, aud: String, jti: String) async throws -> TestResponse {
                let jwt = try PrivateKeyJWTTests.assertion(key, client: creds.appID, aud: aud, jti: jti, exp: w.now.addingTimeInterval(120))
                return try await client.call(
                    .post, path,
                    form: "grant_type=authorization_code&code=\(formEncoded(code))&redirect_uri=\(formEncoded(SMARTFlowTests.redirect))"
                        + "&code_verifier=\(SMARTFlowTests.verifier)&client_assertion_type=\(formEncoded(ClientAuthenticationType.jwtBearer))&client_assertion=\(jwt)")
            }
            let root = Self.base + "/token"
            let own = Self.base + "/p/\(w.ana)/token"
            let atRoot = try await code(Self.authorize(creds.appID))
            #expect(try await exchange("/token", atRoot, aud: own, jti: "a").status == .unauthorized)
            #expect(try await exchange("/token", atRoot, aud: root, jti: "b").status == .ok)
            let atHers = try await code(Self.authorize(creds.appID, aud: Self.base + "/p/\(w.ana)/fhir"))
            #expect(try await exchange("/p/\(w.ana)/token", atHers, aud: root, jti: "c").status == .unauthorized)
            #expect(try await exchange("/p/\(w.ana)/token", atHers, aud: own, jti: "d").status == .ok)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func aProxyPicksOnTheConsentPageWhoseRecordsAnAppReadsAtTheSharedBase(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        let patient = { (id: String) in #"{"resourceType":"Patient","id":"\#(id)","name":[{"text":"\#(id)"}]}"# }
        try await w.importResources(w.ana, [patient("ana"), Fixtures.record(.labResult, id: "la", text: "Ana potassium")])
        try await w.importResources(w.ben, [patient("ben"), Fixtures.record(.labResult, id: "lb", text: "Ben sodium")])
        let (app, creds) = try ConsentManager.newApp(
            name: "Clinic viewer", purpose: "Shows your labs to your clinic", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: [URL(string: SMARTFlowTests.redirect)!], clientType: .public, date: w.now)
        // As the operator's catalogue copies it when each is opened (the catalogue itself is a
        // table the PostgreSQL suites share, so the copies are made here).
        for id in [w.ana, w.ben] { try await w.store(id).saveApp(app) }
        let uri = Self.authorize(creds.appID)
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            let anaValue = String(ana.dropFirst("__Host-hr_session=".count))
            let ben = try await w.signIn(client, w.ben)

            // Discovery at the root names the root, whoever asks (a signed-in browser too).
            for cookie in [nil, ana] {
                let o = try await client.call(.get, "/.well-known/smart-configuration", cookie: cookie).object()
                #expect(o["authorization_endpoint"] as? String == Self.base + "/authorize")
                #expect(o["token_endpoint"] as? String == Self.base + "/token")
                #expect(o["jwks_uri"] as? String == Self.base + "/.well-known/jwks.json")
            }
            var r = try await client.call(.get, "/fhir/metadata", cookie: ana)
            #expect(r.status == .ok && r.text.contains(#""url":"\#(Self.base)/fhir""#) && !r.text.contains("/p/"))
            // Nothing of anyone at the root without a person's token.
            #expect(try await client.call(.get, "/fhir/Observation", cookie: ana).status == .unauthorized)
            #expect(try await client.call(.get, "/fhir/Observation", token: "no-person-token").status == .unauthorized)

            // Ben makes Ana his proxy.
            let benCSRF = try await client.page("/household", cookie: ben).csrf
            r = try await client.call(.post, "/household/proxies", form: "csrf=\(formEncoded(benCSRF))&person=\(w.ana)", cookie: ben)
            #expect(r.status == .seeOther)

            // Signed out: sign in first, then the same request.
            r = try await client.call(.get, uri)
            let login = r.headers[.location] ?? ""
            let next = SMARTFlowTests.query(login)["next"] ?? ""
            #expect(r.status == .seeOther && login.hasPrefix("/login?") && next.hasPrefix("/authorize?"))
            // The same request (a form's `+` is a space).
            #expect(SMARTFlowTests.query(next) == SMARTFlowTests.query(uri.replacingOccurrences(of: "+", with: "%20")))
            // Another person's own base is not Ana's to name.
            r = try await client.call(.get, Self.authorize(creds.appID, aud: Self.base + "/p/\(w.ben)/fhir"), cookie: ana)
            #expect(r.status == .seeOther && SMARTFlowTests.query(r.headers[.location] ?? "")["error"] == "invalid_request")

            // Ana's consent page: her own records, and Ben's to choose instead.
            r = try await client.call(.get, uri, cookie: ana)
            #expect(r.status == .ok && r.text.contains("will read <strong>your own</strong> records"))
            #expect(r.text.contains("Choose Ben's records instead") && r.text.contains(#"name="person" value="\#(w.ben)""#))
            let anaCSRF = try await client.page("/", cookie: ana).csrf
            // A forged switch goes nowhere; a real one comes back to the same request as Ben's.
            r = try await client.call(.post, "/act-for", form: "csrf=forged&person=\(w.ben)&next=\(formEncoded(uri))", cookie: ana)
            #expect(r.status == .forbidden && PeopleServerTests.setCookie(r, "__Host-hr_session") == nil)
            r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(anaCSRF))&person=\(w.ben)&next=\(formEncoded(uri))", cookie: ana)
            #expect(r.status == .seeOther && r.headers[.location] == uri)
            let acting = try #require(PeopleServerTests.setCookie(r, "__Host-hr_session"))
            let proxy = "__Host-hr_session=\(acting); __Host-hr_home=\(anaValue)"
            r = try await client.call(.get, uri, cookie: proxy)
            #expect(r.status == .ok && r.text.contains("the records of <strong>Ben</strong>") && r.text.contains("Choose your own records instead"))
            #expect(r.text.contains("would like to access Ben&#39;s health records") || r.text.contains("would like to access Ben's health records"))
            let answer = try await SMARTFlowTests.consent(client, uri, cookie: proxy, allow: ["lab-result"])
            let code = try #require(answer["code"])
            #expect(code.hasPrefix(w.ben + ".") && answer["state"] == "s1")

            // A code nobody issued, or Ben's under Ana's prefix, is nobody's; Ben's own goes to him.
            #expect(try await SMARTFlowTests.exchange(client, code: "nobody", app: creds.appID).status == .badRequest)
            let forgedCode = Self.reprefixed(code, from: w.ben, to: w.ana)
            #expect(try await SMARTFlowTests.exchange(client, code: forgedCode, app: creds.appID).status == .badRequest)
            r = try await SMARTFlowTests.exchange(client, code: code, app: creds.appID)
            #expect(r.status == .ok)
            let tokens = try r.object()
            let token = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let benPatient = try #require(tokens["patient"] as? String)
            #expect(token.hasPrefix(w.ben + ".") && refresh.hasPrefix(w.ben + "."))
            // Used twice: refused, and what the first use got ends.
            #expect(try await SMARTFlowTests.exchange(client, code: code, app: creds.appID).status == .badRequest)
            #expect(try await client.call(.get, "/fhir/Observation", token: token).status == .unauthorized)

            // Again, from the refresh token at the root; the id token of the first answer names
            // the root and is signed with the root's key.
            let idToken = try #require(tokens["id_token"] as? String)
            let claims = try Self.claims(idToken)
            #expect(claims["iss"] as? String == Self.base && claims["fhirUser"] as? String == Self.base + "/fhir/Patient/" + benPatient)
            let jwks = try await client.call(.get, "/.well-known/jwks.json").object()
            let kids = (jwks["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
            #expect(kids.contains(try Self.header(idToken)["kid"] as? String ?? "?"))
            r = try await SMARTFlowTests.refresh(client, Self.reprefixed(refresh, from: w.ben, to: w.ana), app: creds.appID)
            #expect(r.status == .badRequest)
            #expect(try await SMARTFlowTests.refresh(client, refresh, app: creds.appID).status == .badRequest, "the replayed code ended its grant")

            // A new grant for Ben: its token reads Ben's labs at the root, and nothing anywhere else.
            let second = try await SMARTFlowTests.consent(client, uri, cookie: proxy, allow: ["lab-result"])
            r = try await SMARTFlowTests.exchange(client, code: try #require(second["code"]), app: creds.appID)
            let benToken = try #require(try r.object()["access_token"] as? String)
            let benRefresh = try #require(try r.object()["refresh_token"] as? String)
            r = try await client.call(.get, "/fhir/Observation?patient=\(benPatient)", token: benToken)
            #expect(r.status == .ok && r.text.contains("Ben sodium") && !r.text.contains("Ana potassium"))
            // Its links name the base the app came to; the same token reads at Ben's own base,
            // whose links name that one.
            #expect(r.text.contains(#""fullUrl":"\#(Self.base)/fhir/Observation/"#) && !r.text.contains("/p/"))
            r = try await client.call(.get, "/p/\(w.ben)/fhir/Observation?patient=\(benPatient)", token: benToken)
            #expect(r.status == .ok && r.text.contains(#""fullUrl":"\#(Self.base)/p/\#(w.ben)/fhir/Observation/"#))
            for forged in [Self.reprefixed(benToken, from: w.ben, to: w.ana), String(benToken.dropFirst(w.ben.count + 1))] {
                r = try await client.call(.get, "/fhir/Observation?patient=\(benPatient)", token: forged)
                #expect(r.status == .unauthorized && !r.text.contains("Ben sodium"))
            }
            r = try await client.call(.get, "/p/\(w.ana)/fhir/Observation", token: benToken)
            #expect(r.status == .unauthorized && !r.text.contains("Ben sodium"))
            r = try await SMARTFlowTests.refresh(client, benRefresh, app: creds.appID)
            let rotated = try #require(try r.object()["access_token"] as? String)
            #expect(rotated.hasPrefix(w.ben + "."))
            #expect(try await client.call(.get, "/fhir/Observation?patient=\(benPatient)", token: rotated).text.contains("Ben sodium"))
            // Introspection and revocation at the root reach Ben's store alone.
            r = try await client.call(.post, "/introspect", form: "token=\(formEncoded(rotated))&client_id=\(creds.appID)")
            #expect(try r.object()["active"] as? Bool == true && (try r.object()["iss"] as? String) == Self.base)
            r = try await client.call(.post, "/revoke", form: "token=\(formEncoded(Self.reprefixed(rotated, from: w.ben, to: w.ana)))&client_id=\(creds.appID)")
            #expect(r.status == .ok)
            #expect(try await client.call(.get, "/fhir/Observation", token: rotated).status == .ok, "a forged prefix revoked nothing")
            r = try await client.call(.post, "/revoke", form: "token=\(formEncoded(rotated))&client_id=\(creds.appID)")
            #expect(try await client.call(.get, "/fhir/Observation", token: rotated).status == .unauthorized)

            // Ben sees that Ana answered for him.
            let log = try await client.page("/household", cookie: ben).html
            #expect(log.contains("· POST /authorize/consent/") && log.contains("<span class=\"name\">Ana</span>"))

            // Back to her own records, from the same page: her token reads hers, never Ben's.
            let proxyCSRF = try await client.page("/", cookie: proxy).csrf
            r = try await client.call(.post, "/act-for/stop", form: "csrf=\(formEncoded(proxyCSRF))&next=\(formEncoded(uri))", cookie: proxy)
            #expect(r.status == .seeOther && r.headers[.location] == uri && PeopleServerTests.setCookie(r, "__Host-hr_session") == anaValue)
            let own = try await SMARTFlowTests.consent(client, uri, cookie: ana, allow: ["lab-result"])
            let anaCode = try #require(own["code"])
            #expect(anaCode.hasPrefix(w.ana + "."))
            r = try await SMARTFlowTests.exchange(client, code: anaCode, app: creds.appID)
            let anaToken = try #require(try r.object()["access_token"] as? String)
            let anaPatient = try #require(try r.object()["patient"] as? String)
            r = try await client.call(.get, "/fhir/Observation?patient=\(anaPatient)", token: anaToken)
            #expect(r.status == .ok && r.text.contains("Ana potassium") && !r.text.contains("Ben sodium"))
            r = try await client.call(.get, "/fhir/Observation?patient=\(benPatient)", token: anaToken)
            #expect(!r.text.contains("Ben sodium"))
        }
    }
}
