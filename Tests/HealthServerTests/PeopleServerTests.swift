import ByteEncodings
import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthServer
import HealthSharing
import HealthStoreCore
import HealthStorePostgres
import HealthStoreSQLite
import Hummingbird
import HummingbirdTesting
import Logging
import OutboundHTTP
import SmartHealthLinks
import TestSupport
import Testing

/// Two people, Ana and Ben, on one server for many (a folder of SQLite stores, or one
/// PostgreSQL database), at `https://health.example`.
final class PeopleWorld: Sendable {
    static let origin = "https://health.example"
    let dir = TemporaryDirectory()
    let registry: any PeopleRegistry
    let server: PeopleServer
    let ana: String
    let ben: String
    private let time = MovableTime()

    init(_ engine: ServerEngine, maxOpenPeople: Int = 1000, resolver: any HostResolver = SystemResolver()) async throws {
        let time = self.time
        let clock = HealthClock { time.now }
        if engine.name.hasPrefix("postgres") {
            registry = PostgresPeople(database: try ServerTestDatabase.shared())
        } else {
            registry = try SQLitePeople(directory: dir.path("people"))
        }
        ana = try await registry.add(name: "Ana").id
        ben = try await registry.add(name: "Ben").id
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, publicBaseURL: Self.origin)
        server = try await PeopleServer(
            registry: registry, credentials: nil, configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            clock: clock, maxOpenPeople: maxOpenPeople, resolver: resolver)
    }

    var now: Date { time.now }
    var clock: HealthClock {
        let time = self.time
        return HealthClock { time.now }
    }

    /// A store of the person, opened beside the server's (as another process would).
    func store(_ id: String) async throws -> any HealthStore { try await registry.openStore(id: id, credentials: nil, clock: clock) }

    func importResources(_ id: String, _ resources: [String]) async throws {
        let path = try dir.write("in/\(UUID().uuidString).json", Fixtures.bundle(resources))
        let report = await RecordImporter(store: try await store(id), options: .init(source: RecordSource(identifier: "clinic"))).importPaths([path])
        guard report.failed == 0 else { throw TestFailure("the import failed: \(report.files.compactMap(\.error))") }
    }

    /// An app of the person, allowed every type it asks for unless `allowed` is false.
    func allowedApp(_ id: String, _ types: Set<HealthDataType>, allowed: Bool = true) async throws -> AppCredentials {
        let consent = ConsentManager(store: try await store(id))
        let creds = try await consent.register(
            name: "Tracker", purpose: "Charts your results", privacyPolicyURL: ServerWorld.privacy, requestedTypes: types, requiredTypes: [],
            redirectURIs: ServerWorld.redirectURIs)
        if allowed { try await consent.decide(appID: creds.appID, AuthorizationDecision(allow: types, newData: .share)) }
        return creds
    }

    /// Follows a new enrolment invite of the person: their session cookie (`name=value`).
    func signIn(_ client: any TestClientProtocol, _ id: String) async throws -> String {
        let invite = try await EnrolmentInvite.issue(in: try await store(id), publicURL: Self.origin, person: id, now: now)
        #expect(invite.url.hasPrefix(Self.origin + "/p/\(id)/enrol?token="))
        let r = try await client.call(.get, String(invite.url.dropFirst(Self.origin.count)))
        guard r.status == .seeOther, let setCookie = r.headers[.setCookie], let pair = setCookie.split(separator: ";").first else {
            throw TestFailure("the invite did not sign \(id) in: \(r.status)")
        }
        return String(pair)
    }

    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await server.application().test(.router) { client in try await body(client) }
    }
}

/// One server for many people, tried from the attacker's side: each person's pages, passkeys,
/// recovery codes, FHIR base, app API and shared links answer only for them, and whatever one
/// person holds (a session, a passkey, a token, a record id, a page token, a link) used on
/// another's path or with another's id reaches nothing of the other. Both engines.
@Suite struct PeopleServerTests {
    static func json(_ object: [String: Any]) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) }

    /// A passkey answer naming a user handle.
    static func assertion(_ device: inout SoftAuthenticator, _ challenge: [UInt8], handle: String) throws -> String {
        let a = try device.assert(challenge, origin: PasskeyServerTests.origin, rpID: PasskeyServerTests.rpID)
        return try json([
            "next": "/",
            "credential": [
                "type": "public-key", "id": Base64URL.encode(device.credentialID), "rawId": Base64URL.encode(device.credentialID),
                "response": [
                    "clientDataJSON": Base64URL.encode(a.client), "authenticatorData": Base64URL.encode(a.data), "signature": Base64URL.encode(a.signature),
                    "userHandle": Base64URL.encode(Array(handle.utf8)),
                ],
            ],
        ])
    }

    static func cookie(_ r: TestResponse) -> String? { r.headers[.setCookie]?.split(separator: ";").first.map(String.init) }

    @Test(arguments: ServerEngine.plain)
    func eachBrowserSeesOnlyItsPersonsPagesAndAForgedPrefixSeesNothing(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        try await w.importResources(w.ana, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Asthma")])
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Gout")])
        try await w.test { client in
            // Nobody signed in: the front's sign-in page, passkeys and an id with the recovery code.
            var r = try await client.call(.get, "/")
            #expect(r.status == .seeOther && r.headers[.location] == "/login")
            r = try await client.call(.get, "/login")
            #expect(r.status == .ok && r.text.contains("name=\"person\"") && !r.text.contains("name=\"token\""))
            #expect(r.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)

            let ana = try await w.signIn(client, w.ana)
            let ben = try await w.signIn(client, w.ben)
            #expect(ana.hasPrefix("__Host-hr_session=\(w.ana).") && ben.hasPrefix("__Host-hr_session=\(w.ben)."))
            r = try await client.call(.get, "/", cookie: ana)
            #expect(r.status == .ok && r.text.contains("Asthma") && !r.text.contains("Gout"))
            r = try await client.call(.get, "/", cookie: ben)
            #expect(r.status == .ok && r.text.contains("Gout") && !r.text.contains("Asthma"))
            // The same through each person's own path.
            r = try await client.call(.get, "/p/\(w.ben)/", cookie: ben)
            #expect(r.status == .ok && r.text.contains("Gout"))

            // Ana's secret with Ben's id in front, and Ana's cookie on Ben's path: nobody's session.
            let secret = ana.split(separator: ".", maxSplits: 1)[1]
            for (cookie, path) in [("__Host-hr_session=\(w.ben).\(secret)", "/"), (ana, "/p/\(w.ben)/"), (ana, "/p/\(w.ben)/export.zip")] {
                r = try await client.call(.get, path, cookie: cookie)
                #expect(r.status == .seeOther && r.headers[.location]?.hasPrefix("/login") == true, "\(path) with \(cookie.prefix(40)): \(r.status)")
                #expect(!r.text.contains("Gout") && !r.text.contains("Asthma"))
            }
            // A made-up person, and no person, in the path.
            for path in ["/p/p-0000000000000000/", "/p/p-0000000000000000/fhir/metadata", "/p/nobody/fhir/metadata", "/p/"] {
                #expect(try await client.call(.get, path, cookie: ana).status == .notFound, "\(path)")
            }
            // An invite works once, and only on its person's path.
            let invite = try await EnrolmentInvite.issue(in: try await w.store(w.ana), publicURL: PeopleWorld.origin, person: w.ana, now: w.now)
            let token = try #require(invite.url.components(separatedBy: "token=").last)
            #expect(try await client.call(.get, "/p/\(w.ben)/enrol?token=\(token)").status == .unauthorized)
            #expect(try await client.call(.get, "/p/\(w.ana)/enrol?token=\(token)").status == .seeOther)
            #expect(try await client.call(.get, "/p/\(w.ana)/enrol?token=\(token)").status == .unauthorized)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func aPasskeyNamesItsPersonAndSignsInNoOther(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        try await w.importResources(w.ana, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Asthma")])
        let made = try SoftAuthenticator.make("ES256")
        try await w.test { client in
            var device = made
            let cookie = try await w.signIn(client, w.ana)
            let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
            var r = try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": csrf]), cookie: cookie)
            let user = try #require(try r.object()["user"] as? [String: Any])
            #expect(user["id"] as? String == Base64URL.encode(Array(w.ana.utf8)))
            r = try await client.call(
                .post, "/passkeys", json: try PasskeyServerTests.registration(device, try PasskeyServerTests.challenge(r), csrf: csrf), cookie: cookie)
            let codes = try #require(try r.object()["recoveryCodes"] as? [String])
            #expect(r.status == .ok && codes.count == 10)
            // The codes' page names the id the front's recovery form asks for.
            #expect(try await client.page("/passkeys", cookie: cookie).html.contains(w.ana))

            // At the front: Ana's passkey under Ben's handle finds nothing in Ben's store.
            let challenge = try PasskeyServerTests.challenge(try await client.call(.post, "/login/passkey/options", json: "{}"))
            r = try await client.call(.post, "/login/passkey", json: try Self.assertion(&device, challenge, handle: w.ben))
            #expect(r.status == .unauthorized && r.headers[.setCookie] == nil)
            // Under her own: signed in as Ana.
            r = try await client.call(.post, "/login/passkey", json: try Self.assertion(&device, challenge, handle: w.ana))
            let signedIn = try #require(Self.cookie(r))
            #expect(r.status == .ok && signedIn.hasPrefix("__Host-hr_session=\(w.ana)."))
            #expect(try await client.call(.get, "/", cookie: signedIn).text.contains("Asthma"))
            // The same challenge again (a replay, with a counter that moved on): taken.
            r = try await client.call(.post, "/login/passkey", json: try Self.assertion(&device, challenge, handle: w.ana))
            #expect(r.status == .unauthorized && r.text.contains("expired or was already used"))
            // A challenge the front never signed.
            r = try await client.call(.post, "/login/passkey", json: try Self.assertion(&device, (0..<40).map { UInt8($0) }, handle: w.ana))
            #expect(r.status == .unauthorized)

            // A recovery code is Ana's: not Ben's, once.
            r = try await client.call(.post, "/login/recovery", form: "person=\(w.ben)&code=\(codes[0])")
            #expect(r.status == .unauthorized && r.headers[.setCookie] == nil)
            r = try await client.call(.post, "/login/recovery", form: "person=\(w.ana)&code=\(codes[0])")
            #expect(r.status == .seeOther && Self.cookie(r)?.hasPrefix("__Host-hr_session=\(w.ana).") == true)
        }
        // The store kept the signed challenge as taken (any process sees it).
        #expect(try await w.store(w.ben).passkeys().isEmpty)
        #expect(try await w.store(w.ana).recoveryCodesLeft() == 9)
    }

    @Test(arguments: ServerEngine.plain)
    func anotherPersonsTokensRecordIdsPageTokensAndLinksReachNothing(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        let labs = (1...3).map { Fixtures.record(.labResult, id: "l\($0)", text: "Lab \($0)") }
        try await w.importResources(w.ana, [Fixtures.patient] + labs + [Fixtures.record(.labResult, id: "la", text: "Ana potassium")])
        try await w.importResources(w.ben, [Fixtures.patient] + labs + [Fixtures.record(.labResult, id: "lb", text: "Ben sodium")])
        let anaApp = try await w.allowedApp(w.ana, [.clinical(.labResult)])
        let benApp = try await w.allowedApp(w.ben, [.clinical(.labResult)])
        let anaToken = try #require(try await w.server.server(for: w.ana).issueAccessToken(appID: anaApp.appID, scope: "patient/Observation.rs"))
        let benToken = try #require(try await w.server.server(for: w.ben).issueAccessToken(appID: benApp.appID, scope: "patient/Observation.rs"))
        let link = try await LinkPublisher(store: try await w.store(w.ana), baseURL: PeopleWorld.origin + "/p/\(w.ana)").publish(
            HostedLinkContent(summary: true), options: LinkOptions(expires: w.now.addingTimeInterval(3600), label: "For Dr Lee"), now: w.now)
        try await w.test { client in
            // Each base serves its person to their token.
            var r = try await client.call(.get, "/p/\(w.ana)/fhir/Observation", token: anaToken)
            #expect(r.status == .ok && r.text.contains("Ana potassium") && !r.text.contains("Ben sodium"))
            #expect(r.text.contains(PeopleWorld.origin + "/p/\(w.ana)/fhir/Observation/"))
            r = try await client.call(.get, "/p/\(w.ben)/fhir/Observation", token: benToken)
            #expect(r.status == .ok && r.text.contains("Ben sodium") && !r.text.contains("Ana potassium"))
            let benIDs = try FHIRAnswerIDs.ids(r)
            let sodium = try #require(try FHIRAnswerIDs.id(r, named: "Ben sodium"))
            #expect(benIDs.count == 4)
            // Each base's discovery names its own endpoints.
            r = try await client.call(.get, "/p/\(w.ben)/fhir/.well-known/smart-configuration")
            #expect(r.status == .ok && r.text.contains("\"token_endpoint\":\"\(PeopleWorld.origin)/p/\(w.ben)/token\""))

            // Ana's token on Ben's base and on the app API of Ben: nothing.
            for (path, token) in [("/p/\(w.ben)/fhir/Observation", anaToken), ("/p/\(w.ben)/records", anaToken), ("/p/\(w.ben)/changes", anaToken)] {
                r = try await client.call(.get, path, token: token)
                #expect(r.status == .unauthorized, "\(path)")
                #expect(!r.text.contains("Ben sodium"))
            }
            // At the shared base, her token is hers alone: her records, never Ben's.
            r = try await client.call(.get, "/fhir/Observation", token: anaToken)
            #expect(r.status == .ok && r.text.contains("Ana potassium") && !r.text.contains("Ben sodium"))
            // Ben's record ids through Ana's base, with Ana's token: his own record is not found;
            // the ids they both have from the same source are Ana's records there.
            for id in benIDs {
                r = try await client.call(.get, "/p/\(w.ana)/fhir/Observation/\(id)", token: anaToken)
                #expect(!r.text.contains("Ben sodium"))
                #expect(r.status == (id == sodium ? .notFound : .ok))
            }
            // Ana's page token on Ben's base with Ben's token: refused, nothing of either.
            r = try await client.call(.get, "/p/\(w.ana)/fhir/Observation?_count=1", token: anaToken)
            let next = try #require(FHIRAnswerIDs.next(r))
            let page = String(next.dropFirst((PeopleWorld.origin + "/p/\(w.ana)").count))
            #expect(try await client.call(.get, "/p/\(w.ana)" + page, token: anaToken).status == .ok)
            r = try await client.call(.get, "/p/\(w.ben)" + page, token: benToken)
            #expect(r.status != .ok && !r.text.contains("Ana potassium") && !r.text.contains("Ben sodium"))
            // Client credentials of Ana's app: a token at her base only.
            r = try await client.call(.post, "/p/\(w.ben)/token", form: "grant_type=client_credentials&client_id=\(anaApp.appID)&client_secret=\(anaApp.secret)")
            #expect(r.status == .unauthorized || r.status == .badRequest)
            r = try await client.call(.post, "/p/\(w.ana)/token", form: "grant_type=client_credentials&client_id=\(anaApp.appID)&client_secret=\(anaApp.secret)")
            let apiToken = try #require(try r.object()["access_token"] as? String)
            #expect(try await client.call(.get, "/p/\(w.ana)/records", token: apiToken).status == .ok)
            #expect(try await client.call(.get, "/p/\(w.ben)/records", token: apiToken).status == .unauthorized)

            // Ana's shared link lives under her base; its id on Ben's base is nobody's link.
            let url = link.payload.url
            #expect(url.hasPrefix(PeopleWorld.origin + "/p/\(w.ana)/shl/"))
            let path = String(url.dropFirst(PeopleWorld.origin.count))
            r = try await client.call(.get, path + "?recipient=Dr%20Lee")
            #expect(r.status == .ok && r.headers[.contentType] == "application/jose")
            r = try await client.call(.get, path.replacingOccurrences(of: w.ana, with: w.ben) + "?recipient=Dr%20Lee")
            #expect(r.status == .notFound)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func peoplesStoresOpenOnDemandAndCloseWithoutSigningAnyoneOut(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine, maxOpenPeople: 1)
        try await w.importResources(w.ana, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Asthma")])
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Gout")])
        #expect(w.server.openPeople == 0)
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            #expect(w.server.openPeople == 1)
            let ben = try await w.signIn(client, w.ben)
            // One open at most: Ana's closed when Ben's opened; her session is in her store.
            #expect(w.server.openPeople == 1)
            #expect(try await client.call(.get, "/", cookie: ana).text.contains("Asthma"))
            #expect(try await client.call(.get, "/", cookie: ben).text.contains("Gout"))
            #expect(w.server.openPeople == 1)
            await w.server.closeIdle(.zero)
            #expect(w.server.openPeople == 0)
            #expect(try await client.call(.get, "/", cookie: ana).text.contains("Asthma"))
        }
    }

    /// Webhooks live in the server's memory: a person's server holding one is not closed for
    /// being idle (the app, waiting for notices, makes no requests), and others go first when
    /// more than the cap are open.
    @Test(arguments: ServerEngine.plain)
    func aPersonsServerHoldingAWebhookIsNotClosedForBeingIdle(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine, maxOpenPeople: 2, resolver: TableResolver(table: ["hooks.example": "93.184.216.34"]))
        let cleo = try await w.registry.add(name: "Cleo").id
        let benApp = try await w.allowedApp(w.ben, [.clinical(.labResult)])
        try await w.test { client in
            var r = try await client.call(.post, "/p/\(w.ben)/token", form: "grant_type=client_credentials&client_id=\(benApp.appID)&client_secret=\(benApp.secret)")
            let token = try #require(try r.object()["access_token"] as? String)
            r = try await client.call(.post, "/p/\(w.ben)/webhooks", token: token, json: #"{"url":"https://hooks.example/x","types":["lab-result"]}"#)
            #expect(r.status == .created, "\(r.status) \(r.text)")
            let hook = try #require(try r.object()["id"] as? String)
            await w.server.closeIdle(.zero)
            #expect(w.server.openPeople == 1)
            r = try await client.call(.get, "/p/\(w.ben)/webhooks", token: token)
            #expect(r.text.contains(hook))

            // Over the cap: Ana's server (no webhook) goes, though Ben's was used before hers.
            _ = try await w.signIn(client, w.ana)
            #expect(w.server.openPeople == 2)
            _ = try await w.signIn(client, cleo)
            #expect(w.server.openPeople == 2)
            r = try await client.call(.get, "/p/\(w.ben)/webhooks", token: token)
            #expect(r.text.contains(hook))

            // Without its webhook, Ben's server closes when idle like any other.
            #expect(try await client.call(.delete, "/p/\(w.ben)/webhooks/\(hook)", token: token).status == .noContent)
            await w.server.closeIdle(.zero)
            #expect(w.server.openPeople == 0)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func aRemovedPersonsOpenStoreClosesAndTheirSessionReachesNothing(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        try await w.importResources(w.ana, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Asthma")])
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Gout")])
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            let ben = try await w.signIn(client, w.ben)
            #expect(w.server.openPeople == 2)
            // Ana is removed (by `people remove`, here or in another process) while her store is open.
            #expect(try await w.registry.remove(id: w.ana))
            await w.server.closeRemoved()
            #expect(w.server.openPeople == 1)
            let r = try await client.call(.get, "/", cookie: ana)
            #expect(!r.text.contains("Asthma") && r.status != .ok, "\(r.status)")
            #expect(try await client.call(.get, "/p/\(w.ana)/fhir/metadata").status == .notFound)
            // Ben, still registered, is untouched.
            await w.server.closeRemoved()
            #expect(w.server.openPeople == 1)
            #expect(try await client.call(.get, "/", cookie: ben).text.contains("Gout"))
        }
    }

    @Test(arguments: ServerEngine.plain)
    func consentRequestsLinksStreamsWebhooksEverythingAndSMARTStayWithTheirPerson(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        let patient = { (id: String) in #"{"resourceType":"Patient","id":"\#(id)","name":[{"text":"\#(id)"}]}"# }
        try await w.importResources(w.ana, [patient("ana"), Fixtures.record(.labResult, id: "la", text: "Ana potassium")])
        try await w.importResources(w.ben, [patient("ben"), Fixtures.record(.labResult, id: "lb", text: "Ben sodium")])
        let types: Set<HealthDataType> = [.clinical(.labResult), HealthDataType(name: "personal-details")!]
        let anaApp = try await w.allowedApp(w.ana, types)
        let benApp = try await w.allowedApp(w.ben, types)
        let benAsking = try await w.allowedApp(w.ben, types, allowed: false)
        let benLink = try await LinkPublisher(store: try await w.store(w.ben), baseURL: PeopleWorld.origin + "/p/\(w.ben)").publish(
            HostedLinkContent(summary: true), options: LinkOptions(expires: w.now.addingTimeInterval(3600), label: "Ben's link"), now: w.now)
        try await w.test { client in
            func apiToken(_ id: String, _ app: AppCredentials) async throws -> String {
                let r = try await client.call(.post, "/p/\(id)/token", form: "grant_type=client_credentials&client_id=\(app.appID)&client_secret=\(app.secret)")
                return try #require(try r.object()["access_token"] as? String)
            }
            let anaToken = try await apiToken(w.ana, anaApp)
            let benToken = try await apiToken(w.ben, benApp)
            let askingToken = try await apiToken(w.ben, benAsking)
            let ana = try await w.signIn(client, w.ana)
            let anaCSRF = try await client.page("/", cookie: ana).csrf

            // Ben's app asks Ben; Ana's session finds no such request, and cannot answer it.
            var r = try await client.call(.post, "/p/\(w.ben)/authorization-requests", token: askingToken, json: #"{"types":["lab-result"]}"#)
            let request = try r.object()
            let requestID = try #require(request["id"] as? String)
            #expect((request["url"] as? String)?.hasPrefix(PeopleWorld.origin + "/p/\(w.ben)/consent/") == true)
            #expect(try await client.call(.get, "/consent/\(requestID)", cookie: ana).status == .notFound)
            r = try await client.call(.post, "/consent/\(requestID)", form: "csrf=\(formEncoded(anaCSRF))&allow=lab-result&newData=share&action=allow", cookie: ana)
            #expect(r.status == .notFound)
            r = try await client.call(.get, "/p/\(w.ben)/authorization-requests/\(requestID)", token: askingToken)
            #expect(try r.object()["status"] as? String == "pending")
            #expect(try await client.call(.get, "/p/\(w.ana)/authorization-requests/\(requestID)", token: anaToken).status == .notFound)

            // Ben's link page is nobody's in Ana's session.
            #expect(try await client.call(.get, "/links/\(benLink.link.handle)", cookie: ana).status == .notFound)

            // Streams, webhooks and $everything on Ben's base with Ana's token.
            #expect(try await client.call(.get, "/p/\(w.ben)/observe", token: anaToken).status == .unauthorized)
            r = try await client.call(.post, "/p/\(w.ben)/webhooks", token: anaToken, json: #"{"url":"https://hooks.example/x","types":["lab-result"]}"#)
            #expect(r.status == .unauthorized)
            r = try await client.call(.get, "/p/\(w.ben)/fhir/Patient", token: benToken)
            let benPatient = try #require(try FHIRAnswerIDs.ids(r).first)
            r = try await client.call(.get, "/p/\(w.ben)/fhir/Patient/\(benPatient)/$everything", token: benToken)
            #expect(r.status == .ok && r.text.contains("Ben sodium"))
            r = try await client.call(.get, "/p/\(w.ben)/fhir/Patient/\(benPatient)/$everything", token: anaToken)
            #expect(r.status == .unauthorized && !r.text.contains("Ben sodium"))
            r = try await client.call(.get, "/p/\(w.ana)/fhir/Patient/\(benPatient)/$everything", token: anaToken)
            #expect(r.status == .notFound && !r.text.contains("Ben sodium"))

            // Ben's pages and his SMART sheet with Ana's session: sign in first.
            #expect(try await client.call(.get, "/p/\(w.ben)/upload", cookie: ana).status == .seeOther)
            let authorize = "/p/\(w.ben)/authorize?response_type=code&client_id=\(benApp.appID)&redirect_uri=https%3A%2F%2Fx.example%2F"
                + "&scope=patient%2FObservation.rs&state=s&aud=\(formEncoded(PeopleWorld.origin + "/p/\(w.ben)/fhir"))"
                + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
            r = try await client.call(.get, authorize, cookie: ana)
            #expect(r.status == .seeOther && r.headers[.location]?.hasPrefix("/login") == true && !r.text.contains("Ben"))
        }
    }

    @Test(arguments: ServerEngine.plain)
    func anAppOfTheOperatorsCatalogueIsEachPersonsToAllow(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        try await w.importResources(w.ana, [Fixtures.patient, Fixtures.record(.labResult, id: "la", text: "Ana potassium")])
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.labResult, id: "lb", text: "Ben sodium")])
        let (app, creds) = try ConsentManager.newApp(
            name: "Clinic app", purpose: "Shows your labs to your clinic", privacyPolicyURL: ServerWorld.privacy, requestedTypes: [.clinical(.labResult)],
            redirectURIs: ServerWorld.redirectURIs, date: w.now)
        try await w.registry.addCatalogueApp(app)
        #expect(try await w.registry.catalogueApps().map(\.registration.id) == [creds.appID])
        try await w.test { client in
            // Opening each person copies the app into their store, undecided.
            for id in [w.ana, w.ben] { #expect(try await client.call(.get, "/p/\(id)/healthz").status == .ok) }
            for id in [w.ana, w.ben] {
                #expect(try await w.store(id).app(id: creds.appID)?.registration.name == "Clinic app")
                #expect(try await w.store(id).grants(appID: creds.appID).isEmpty)
            }
            // Ana allows it; Ben does not.
            try await ConsentManager(store: try await w.store(w.ana)).decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
            func token(_ id: String) async throws -> String {
                let r = try await client.call(.post, "/p/\(id)/token", form: "grant_type=client_credentials&client_id=\(creds.appID)&client_secret=\(creds.secret)")
                return try #require(try r.object()["access_token"] as? String)
            }
            let anaToken = try await token(w.ana)
            let benToken = try await token(w.ben)
            #expect(anaToken != benToken)
            var r = try await client.call(.get, "/p/\(w.ana)/records?type=lab-result", token: anaToken)
            #expect(r.status == .ok && r.text.contains("Ana potassium") && !r.text.contains("Ben sodium"))
            r = try await client.call(.get, "/p/\(w.ben)/records?type=lab-result", token: benToken)
            #expect(!r.text.contains("Ben sodium") && !r.text.contains("Ana potassium"))
            #expect(try await client.call(.get, "/p/\(w.ben)/records?type=lab-result", token: anaToken).status == .unauthorized)
        }
        // What it read is in Ana's audit log only.
        #expect(try await !ConsentManager(store: try await w.store(w.ana)).auditLog(appID: creds.appID).isEmpty)
        #expect(try await ConsentManager(store: try await w.store(w.ben)).auditLog(appID: creds.appID).allSatisfy { $0.count == 0 })
        // Out of the catalogue: people who have it keep it.
        #expect(try await w.registry.removeCatalogueApp(id: creds.appID))
        #expect(try await !w.registry.removeCatalogueApp(id: creds.appID))
        #expect(try await w.store(w.ana).app(id: creds.appID) != nil)
    }

    /// The value a response sets for a cookie.
    static func setCookie(_ r: TestResponse, _ name: String) -> String? {
        r.headers[values: .setCookie].compactMap { header -> String? in
            guard let pair = header.split(separator: ";").first, pair.hasPrefix(name + "=") else { return nil }
            return String(pair.dropFirst(name.count + 1))
        }.first
    }

    @Test(arguments: ServerEngine.plain)
    func aProxyActsForSomeoneWhoSeesAllTheyDidAndCanEndItAtOnce(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        let cleo = try await w.registry.add(name: "Cleo").id
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Gout")])
        try await w.importResources(cleo, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Eczema")])
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            let ben = try await w.signIn(client, w.ben)
            let anaValue = String(ana.dropFirst("__Host-hr_session=".count))
            // Ben makes Ana his proxy, by her id.
            var (html, csrf) = try await client.page("/household", cookie: ben)
            #expect(html.contains(w.ben))
            var r = try await client.call(.post, "/household/proxies", form: "csrf=\(formEncoded(csrf))&person=\(w.ana)", cookie: ben)
            #expect(r.status == .seeOther)
            r = try await client.call(.post, "/household/proxies", form: "csrf=\(formEncoded(csrf))&person=p-0000000000000000", cookie: ben)
            #expect(r.status == .badRequest)
            (html, csrf) = try await client.page("/household", cookie: ana)
            #expect(html.contains("Act for Ben") && !html.contains("Act for Cleo"))

            // Cleo never made Ana her proxy: no switch.
            r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(csrf))&person=\(cleo)", cookie: ana)
            #expect(r.status == .forbidden)
            // A forged form: no switch.
            r = try await client.call(.post, "/act-for", form: "csrf=forged&person=\(w.ben)", cookie: ana)
            #expect(r.status == .forbidden && Self.setCookie(r, "__Host-hr_session") == nil)
            r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(csrf))&person=\(w.ben)", cookie: ana)
            let acting = try #require(Self.setCookie(r, "__Host-hr_session"))
            #expect(r.status == .seeOther && acting.hasPrefix(w.ben + ".") && Self.setCookie(r, "__Host-hr_home") == anaValue)
            let proxy = "__Host-hr_session=\(acting); __Host-hr_home=\(anaValue)"

            // Acting for Ben: his records, a banner, an export; never his passkeys or household.
            r = try await client.call(.get, "/", cookie: proxy)
            #expect(r.status == .ok && r.text.contains("Gout") && r.text.contains("you are acting for <strong>Ben</strong>"))
            #expect(try await client.call(.get, "/export.zip", cookie: proxy).status == .ok)
            let proxyCSRF = try await client.page("/", cookie: proxy).csrf
            for (method, path) in [(HTTPRequest.Method.get, "/passkeys"), (.get, "/household")] {
                #expect(try await client.call(method, path, cookie: proxy).status == .forbidden, "\(path)")
            }
            r = try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": proxyCSRF]), cookie: proxy)
            #expect(r.status == .forbidden)
            r = try await client.call(.post, "/passkeys/recovery-codes", form: "csrf=\(formEncoded(proxyCSRF))", cookie: proxy)
            #expect(r.status == .forbidden)
            r = try await client.call(.post, "/household/proxies", form: "csrf=\(formEncoded(proxyCSRF))&person=\(cleo)", cookie: proxy)
            #expect(r.status == .forbidden)
            // Cleo's path with Ben's proxy session: nothing.
            r = try await client.call(.get, "/p/\(cleo)/", cookie: proxy)
            #expect(r.status == .seeOther && !r.text.contains("Eczema"))

            // Back to her own records.
            r = try await client.call(.post, "/act-for/stop", form: "csrf=\(formEncoded(proxyCSRF))", cookie: proxy)
            #expect(r.status == .seeOther && Self.setCookie(r, "__Host-hr_session") == anaValue)
            #expect(try await client.call(.get, "/", cookie: proxy).status == .seeOther, "the proxy session ended")

            // Ben sees everything she did, under her name.
            html = try await client.page("/household", cookie: ben).html
            for action in ["GET /", "GET /export.zip", "GET /passkeys", "POST /passkeys/options", "POST /household/proxies"] {
                #expect(html.contains("· \(action)</span>"), "\(action) is not in Ben's log")
            }
            #expect(html.contains("<span class=\"name\">Ana</span>"))

            // Ana switches again; Ben removes her; the session she holds ends at once.
            r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(csrf))&person=\(w.ben)", cookie: ana)
            let again = "__Host-hr_session=" + (try #require(Self.setCookie(r, "__Host-hr_session")))
            #expect(try await client.call(.get, "/", cookie: again).status == .ok)
            let benCSRF = try await client.page("/household", cookie: ben).csrf
            r = try await client.call(.post, "/household/proxies/\(w.ana)/remove", form: "csrf=\(formEncoded(benCSRF))", cookie: ben)
            #expect(r.status == .seeOther)
            #expect(try await client.call(.get, "/", cookie: again).status == .seeOther)
            r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(csrf))&person=\(w.ben)", cookie: ana)
            #expect(r.status == .forbidden)
            #expect(!(try await client.page("/household", cookie: ana).html.contains("Act for Ben")))
        }
    }

    /// What a proxy could take with them: an app they register (its secret and redirect URIs
    /// would keep reading), links they make or copy (their URLs outlast any session). A proxy
    /// registers no app and sees a link's text only when making it, and ending the role, from
    /// either side, revokes the links they made and nothing of the person's own. The consent
    /// page a proxy opens (outside the signed-in group) is in the person's log, and household
    /// routes given an id nobody has make no store.
    @Test(arguments: ServerEngine.plain)
    func whatAProxyMadeEndsWithTheirRole(engine: ServerEngine) async throws {
        let w = try await PeopleWorld(engine)
        try await w.importResources(w.ben, [Fixtures.patient, Fixtures.record(.condition, id: "c1", text: "Gout")])
        let benApp = try await w.allowedApp(w.ben, [.clinical(.labResult)])
        let benStore = try await w.store(w.ben)
        @Sendable func active() async throws -> Set<String> { Set(try await benStore.hostedLinks(includeEnded: false).map(\.handle)) }
        try await w.test { client in
            let ana = try await w.signIn(client, w.ana)
            let ben = try await w.signIn(client, w.ben)
            let anaValue = String(ana.dropFirst("__Host-hr_session=".count))
            func makeProxy() async throws -> String {
                let benCSRF = try await client.page("/household", cookie: ben).csrf
                var r = try await client.call(.post, "/household/proxies", form: "csrf=\(formEncoded(benCSRF))&person=\(w.ana)", cookie: ben)
                #expect(r.status == .seeOther)
                let csrf = try await client.page("/household", cookie: ana).csrf
                r = try await client.call(.post, "/act-for", form: "csrf=\(formEncoded(csrf))&person=\(w.ben)", cookie: ana)
                let acting = try #require(Self.setCookie(r, "__Host-hr_session"))
                return "__Host-hr_session=\(acting); __Host-hr_home=\(anaValue)"
            }
            func makeLink(_ cookie: String, label: String) async throws -> String {
                let csrf = try await client.page("/links/new", cookie: cookie).csrf
                let before = try await active()
                let form = LinkPagesTests.form([("csrf", csrf), ("what", "summary"), ("lifetime", "86400"), ("longTerm", "1"), ("label", label)])
                let r = try await client.call(.post, "/links", form: form, cookie: cookie)
                #expect(r.status == .ok && r.text.contains("/view#shlink:/"), "\(r.status)")
                return try #require(try await active().subtracting(before).first)
            }
            let bensOwn = try await makeLink(ben, label: "Ben's own")
            let proxy = try await makeProxy()

            // No app registration for a proxy, on the page or by its form; the apps page offers none.
            #expect(try await client.call(.get, "/apps/register", cookie: proxy).status == .forbidden)
            let apps = try await client.call(.get, "/apps", cookie: proxy)
            #expect(apps.status == .ok && apps.text.contains("Tracker") && !apps.text.contains("/apps/register"))
            #expect(try await client.call(.get, "/apps", cookie: ben).text.contains("/apps/register"))
            let proxyCSRF = try await client.page("/", cookie: proxy).csrf
            let registration = LinkPagesTests.form([
                ("csrf", proxyCSRF), ("name", "Mine"), ("purpose", "Keeps a copy"), ("privacyUrl", "https://evil.example/privacy"),
                ("redirectUris", "https://evil.example/cb"), ("clientType", "confidential-symmetric"),
            ])
            var r = try await client.call(.post, "/apps/register", form: registration, cookie: proxy)
            #expect(r.status == .forbidden && !r.text.contains("client secret"))
            #expect(!(try await benStore.apps().contains { $0.registration.name == "Mine" }))

            // A link the proxy makes shows its text once; Ben's long-term link never does to them.
            let anasLink = try await makeLink(proxy, label: "For the clinic")
            r = try await client.call(.get, "/links/\(bensOwn)", cookie: proxy)
            #expect(r.status == .ok && !r.text.contains("/view#shlink:/") && !r.text.contains("<svg"))
            #expect(try await client.call(.get, "/links/\(bensOwn)", cookie: ben).text.contains("/view#shlink:/"))

            // The consent page a proxy opens is in Ben's log.
            let authorize = "/p/\(w.ben)/authorize?response_type=code&client_id=\(benApp.appID)&redirect_uri=https%3A%2F%2Fx.example%2F"
                + "&scope=patient%2FObservation.rs&state=s&aud=\(formEncoded(PeopleWorld.origin + "/p/\(w.ben)/fhir"))"
                + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
            r = try await client.call(.get, authorize, cookie: proxy)
            #expect(r.status == .ok, "\(r.status)")
            let log = try await client.page("/household", cookie: ben).html
            #expect(log.contains("· GET /authorize</span>") || log.contains("· GET /p/\(w.ben)/authorize</span>"), "the consent page is not in Ben's log")

            // Ben ends the role: the link Ana made ends with it; his own stays.
            var benCSRF = try await client.page("/household", cookie: ben).csrf
            r = try await client.call(.post, "/household/proxies/\(w.ana)/remove", form: "csrf=\(formEncoded(benCSRF))", cookie: ben)
            #expect(r.status == .seeOther)
            #expect(try await active() == [bensOwn])
            #expect(try await benStore.hostedLink(handle: anasLink)?.revoked != nil)

            // Again, and this time Ana steps down herself: the same.
            let again = try await makeProxy()
            let second = try await makeLink(again, label: "Second")
            let anaCSRF = try await client.page("/household", cookie: ana).csrf
            r = try await client.call(.post, "/household/represented/\(w.ben)/remove", form: "csrf=\(formEncoded(anaCSRF))", cookie: ana)
            #expect(r.status == .seeOther)
            #expect(try await active() == [bensOwn])
            #expect(try await benStore.hostedLink(handle: second)?.revoked != nil)

            // Ids nobody has, in the household routes' paths: no store is made for them.
            let nobody = "p-0000000000000000"
            r = try await client.call(.post, "/household/represented/\(nobody)/remove", form: "csrf=\(formEncoded(anaCSRF))", cookie: ana)
            #expect(r.status == .seeOther)
            benCSRF = try await client.page("/household", cookie: ben).csrf
            r = try await client.call(.post, "/household/proxies/\(nobody)/remove", form: "csrf=\(formEncoded(benCSRF))", cookie: ben)
            #expect(r.status == .seeOther)
            #expect(try await w.registry.entry(id: nobody) == nil)
            if !engine.name.hasPrefix("postgres") {
                #expect(!FileManager.default.fileExists(atPath: w.dir.path("people/\(nobody).sqlite")))
            }
        }
    }
}


/// Ids and links of a FHIR searchset.
enum FHIRAnswerIDs {
    static func ids(_ r: TestResponse) throws -> [String] {
        let bundle = try r.object()
        return (bundle["entry"] as? [[String: Any]] ?? []).compactMap { ($0["resource"] as? [String: Any])?["id"] as? String }
    }

    static func id(_ r: TestResponse, named name: String) throws -> String? {
        let bundle = try r.object()
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        return resources.first { (($0["code"] as? [String: Any])?["text"] as? String) == name }?["id"] as? String
    }

    static func next(_ r: TestResponse) -> String? {
        guard let bundle = try? r.object() else { return nil }
        return (bundle["link"] as? [[String: Any]] ?? []).first { $0["relation"] as? String == "next" }?["url"] as? String
    }
}
