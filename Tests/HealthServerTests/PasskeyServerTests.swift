import ByteEncodings
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Passkeys over HTTP, with a software authenticator (ES256 and RS256) against the server at
/// `https://health.example`: enrol while signed in (recovery codes come with the first), sign
/// in with the passkey, with a recovery code once; and the attacks: a replayed answer, another
/// origin, a challenge never issued or issued for the other ceremony, an unknown credential,
/// a counter going back, enrolment without the session or its token, a forged rename.
@Suite struct PasskeyServerTests {
    static let origin = "https://health.example"
    static let rpID = "health.example"

    static func world(_ engine: ServerEngine) async throws -> ServerWorld {
        try await ServerWorld(engine) { $0.publicBaseURL = origin }
    }

    static func json(_ object: [String: Any]) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) }

    /// The challenge of an options answer.
    static func challenge(_ r: TestResponse) throws -> [UInt8] {
        guard r.status == .ok, let text = try r.object()["challenge"] as? String else { throw TestFailure("no options: \(r.status) \(r.text)") }
        return try Base64URL.decode(text)
    }

    static func registration(_ device: SoftAuthenticator, _ challenge: [UInt8], csrf: String, name: String = "Laptop", origin: String = origin) throws -> String {
        let r = device.register(challenge, origin: origin, rpID: rpID)
        return try json([
            "csrf": csrf, "name": name,
            "credential": [
                "type": "public-key", "id": Base64URL.encode(device.credentialID), "rawId": Base64URL.encode(device.credentialID),
                "response": ["clientDataJSON": Base64URL.encode(r.client), "attestationObject": Base64URL.encode(r.object)],
            ],
        ])
    }

    static func assertion(_ device: inout SoftAuthenticator, _ challenge: [UInt8], origin: String = origin, next: String = "/cards") throws -> String {
        let a = try device.assert(challenge, origin: origin, rpID: rpID)
        return try json([
            "next": next,
            "credential": [
                "type": "public-key", "id": Base64URL.encode(device.credentialID), "rawId": Base64URL.encode(device.credentialID),
                "response": [
                    "clientDataJSON": Base64URL.encode(a.client), "authenticatorData": Base64URL.encode(a.data), "signature": Base64URL.encode(a.signature),
                    "userHandle": NSNull(),
                ],
            ],
        ])
    }

    /// Signs in with the token, enrols `device`; the recovery codes shown.
    static func enrol(_ client: any TestClientProtocol, _ device: SoftAuthenticator, name: String = "Laptop") async throws -> (cookie: String, codes: [String]) {
        let cookie = try await client.signIn()
        let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
        let challenge = try Self.challenge(try await client.call(.post, "/passkeys/options", json: try json(["csrf": csrf]), cookie: cookie))
        let r = try await client.call(.post, "/passkeys", json: try registration(device, challenge, csrf: csrf, name: name), cookie: cookie)
        guard r.status == .ok else { throw TestFailure("enrolment failed: \(r.status) \(r.text)") }
        return (cookie, try r.object()["recoveryCodes"] as? [String] ?? [])
    }

    @Test(arguments: ServerEngine.plain, ["ES256", "RS256"])
    func enrolThenSignInWithThePasskey(engine: ServerEngine, algorithm: String) async throws {
        let w = try await Self.world(engine)
        let made = try SoftAuthenticator.make(algorithm)
        try await w.test { client in
            var device = made
            let (cookie, codes) = try await Self.enrol(client, device)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.range(of: #"^[a-z2-9]{4}(-[a-z2-9]{4}){3}$"#, options: .regularExpression) != nil })
            let page = try await client.call(.get, "/passkeys", cookie: cookie)
            #expect(page.text.contains("Laptop") && page.text.contains("10 of 10 left"))
            // Scripts run only on the passkey and sign-in pages, and only the server's own.
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(try await client.call(.get, "/", cookie: cookie).headers[.contentSecurityPolicy]?.contains("script-src") == false)
            #expect(try await client.call(.get, "/login").headers[.contentSecurityPolicy] == page.headers[.contentSecurityPolicy])
            // Sign in twice with the passkey (no token).
            for _ in 0..<2 {
                let challenge = try Self.challenge(try await client.call(.post, "/login/passkey/options"))
                let r = try await client.call(.post, "/login/passkey", json: try Self.assertion(&device, challenge))
                #expect(r.status == .ok, "\(r.text)")
                #expect(try r.object()["next"] as? String == "/cards")
                let session = try #require(r.headers[.setCookie]?.split(separator: ";").first.map(String.init))
                #expect(try await client.call(.get, "/cards", cookie: session).status == .ok)
            }
            let stored = try #require(try await w.store.passkeys().first)
            #expect(stored.signCount == device.counter && stored.lastUsed != nil && stored.name == "Laptop")
            // A second passkey gets no new codes: ten are still left. (Listed by when they were
            // added: the test's clock moves on first.)
            w.advance(60)
            let (_, more) = try await Self.enrol(client, try SoftAuthenticator.make(algorithm), name: "Phone")
            #expect(more.isEmpty)
            #expect(try await w.store.passkeys().map(\.name) == ["Laptop", "Phone"])
        }
    }

    @Test(arguments: ServerEngine.plain)
    func bentSignInsAreRefused(engine: ServerEngine) async throws {
        let w = try await Self.world(engine)
        let made = try SoftAuthenticator.make("ES256")
        try await w.test { client in
            var device = made
            _ = try await Self.enrol(client, device)
            func refused(_ body: String, _ status: HTTPResponse.Status, _ contains: String) async throws {
                let r = try await client.call(.post, "/login/passkey", json: body)
                #expect(r.status == status, "\(r.text)")
                #expect(r.headers[.setCookie] == nil)
                let message = (try? r.object())?["error"] as? String ?? ""
                #expect(message.contains(contains), "\(r.text)")
            }
            // A good answer works once; sent again it is refused (its challenge is gone).
            var challenge = try Self.challenge(try await client.call(.post, "/login/passkey/options"))
            let good = try Self.assertion(&device, challenge)
            #expect(try await client.call(.post, "/login/passkey", json: good).status == .ok)
            try await refused(good, .unauthorized, "expired or was already used")
            // Another origin.
            challenge = try Self.challenge(try await client.call(.post, "/login/passkey/options"))
            try await refused(try Self.assertion(&device, challenge, origin: "https://evil.example"), .unauthorized, "evil.example")
            // A challenge this server never issued, and one issued for enrolment.
            try await refused(try Self.assertion(&device, Array(repeating: 7, count: 32)), .unauthorized, "expired or was already used")
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
            let enrolChallenge = try Self.challenge(try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": csrf]), cookie: cookie))
            try await refused(try Self.assertion(&device, enrolChallenge), .unauthorized, "expired or was already used")
            // An unknown credential.
            var stranger = try SoftAuthenticator.make("ES256")
            challenge = try Self.challenge(try await client.call(.post, "/login/passkey/options"))
            try await refused(try Self.assertion(&stranger, challenge), .unauthorized, "not enrolled")
            // The counter going back (a cloned authenticator).
            device.counter = 0
            challenge = try Self.challenge(try await client.call(.post, "/login/passkey/options"))
            try await refused(try Self.assertion(&device, challenge), .unauthorized, "counter")
            // Not JSON, and members missing.
            let garbage = try await client.call(.post, "/login/passkey", json: "[1,2")
            #expect(garbage.status == .badRequest)
            try await refused(try Self.json(["credential": ["type": "public-key", "rawId": "AAAA"]]), .badRequest, "no response")
        }
    }

    @Test(arguments: ServerEngine.plain)
    func enrolmentNeedsTheSessionAndItsToken(engine: ServerEngine) async throws {
        let w = try await Self.world(engine)
        let device = try SoftAuthenticator.make("ES256")
        try await w.test { client in
            // No session: the options are not handed out, nothing is stored.
            let anonymous = try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": "x"]))
            #expect(anonymous.status == .forbidden)
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
            // The session without its anti-forgery token (a cross-site post).
            #expect(try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": "forged"]), cookie: cookie).status == .forbidden)
            let challenge = try Self.challenge(try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": csrf]), cookie: cookie))
            let forged = try await client.call(.post, "/passkeys", json: try Self.registration(device, challenge, csrf: "forged"), cookie: cookie)
            #expect(forged.status == .forbidden)
            // Made on another site's page.
            let foreign = try await client.call(
                .post, "/passkeys", json: try Self.registration(device, challenge, csrf: csrf, origin: "https://evil.example"), cookie: cookie)
            #expect(foreign.status == .unauthorized)
            #expect(try await w.store.passkeys().isEmpty)
            // Renaming and removing need the token too.
            _ = try await Self.enrol(client, device)
            let id = Base64URL.encode(device.credentialID)
            #expect(try await client.call(.post, "/passkeys/\(id)/remove", form: "csrf=forged", cookie: cookie).status == .forbidden)
            #expect(try await client.call(.post, "/passkeys/\(id)/rename", form: "csrf=\(csrf)&name=Work", cookie: cookie).status == .seeOther)
            #expect(try await w.store.passkeys().map(\.name) == ["Work"])
            #expect(try await client.call(.post, "/passkeys/\(id)/remove", form: "csrf=\(csrf)", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/passkeys/\(id)/remove", form: "csrf=\(csrf)", cookie: cookie).status == .notFound)
            #expect(try await w.store.passkeys().isEmpty)
        }
    }

    @Test(arguments: ServerEngine.plain)
    func aRecoveryCodeSignsInOnce(engine: ServerEngine) async throws {
        let w = try await Self.world(engine)
        try await w.test { client in
            let (cookie, codes) = try await Self.enrol(client, try SoftAuthenticator.make("ES256"))
            // Typed with spaces and in capitals, it still reads.
            let typed = codes[0].uppercased().replacingOccurrences(of: "-", with: " ")
            let first = try await client.call(.post, "/login/recovery", form: "code=\(formEncoded(typed))")
            #expect(first.status == .seeOther && first.headers[.location] == "/passkeys?recovered=1" && first.headers[.setCookie] != nil)
            let again = try await client.call(.post, "/login/recovery", form: "code=\(formEncoded(codes[0]))")
            #expect(again.status == .unauthorized && again.headers[.setCookie] == nil)
            #expect(try await w.store.recoveryCodesLeft() == 9)
            // New codes end the old ones.
            let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
            let fresh = try await client.call(.post, "/passkeys/recovery-codes", form: "csrf=\(csrf)", cookie: cookie)
            #expect(fresh.status == .ok)
            #expect(try await client.call(.post, "/login/recovery", form: "code=\(formEncoded(codes[1]))").status == .unauthorized)
            let newCode = try #require(fresh.text.range(of: #"[a-z2-9]{4}(-[a-z2-9]{4}){3}"#, options: .regularExpression).map { String(fresh.text[$0]) })
            #expect(try await client.call(.post, "/login/recovery", form: "code=\(newCode)").status == .seeOther)
        }
    }

    /// Guessing recovery codes is throttled like the token: after the free failures the address
    /// waits, and even the right code is not checked while it does.
    @Test func recoveryCodeGuessesAreThrottled() async throws {
        let w = try await ServerWorld(.sqlite) {
            $0.publicBaseURL = Self.origin
            $0.limits.authFailureBurst = 5
            $0.limits.authFailureBackoff = .seconds(60)
        }
        try await w.test { client in
            let (_, codes) = try await Self.enrol(client, try SoftAuthenticator.make("ES256"))
            var statuses: [HTTPResponse.Status] = []
            for i in 0..<12 { statuses.append(try await client.call(.post, "/login/recovery", form: "code=wrong-\(i)").status) }
            #expect(statuses.contains(.tooManyRequests))
            #expect(try await client.call(.post, "/login/recovery", form: "code=\(codes[0])").status == .tooManyRequests)
            #expect(try await w.store.recoveryCodesLeft() == 10)
        }
    }

    /// An operator's enrolment link signs the person in once, onto the passkey page, and not
    /// after it expires; a made-up token is refused.
    @Test(arguments: ServerEngine.plain)
    func anEnrolmentLinkWorksOnceBeforeItExpires(engine: ServerEngine) async throws {
        let w = try await Self.world(engine)
        let first = try await EnrolmentInvite.issue(in: w.store, publicURL: Self.origin + "/", lifetime: 3600, now: w.now)
        #expect(first.url.hasPrefix(Self.origin + "/enrol?token="))
        let path = String(first.url.dropFirst(Self.origin.count))
        let late = try await EnrolmentInvite.issue(in: w.store, publicURL: Self.origin, lifetime: 60, now: w.now)
        try await w.test { client in
            let used = try await client.call(.get, path)
            #expect(used.status == .seeOther && used.headers[.location] == "/passkeys")
            let cookie = try #require(used.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            #expect(try await client.call(.get, "/passkeys", cookie: cookie).status == .ok)
            let again = try await client.call(.get, path)
            #expect(again.status == .unauthorized && again.headers[.setCookie] == nil && again.text.contains("expired or was already used"))
            #expect(try await client.call(.get, "/enrol?token=made-up").status == .unauthorized)
            w.advance(61)
            #expect(try await client.call(.get, String(late.url.dropFirst(Self.origin.count))).status == .unauthorized)
        }
    }

    /// A server reached by IP address cannot hold passkeys: the page says so and no options are handed out.
    @Test func anIPAddressCannotHoldPasskeys() async throws {
        let w = try await ServerWorld(.sqlite) { $0.publicBaseURL = "http://127.0.0.1:8080" }
        try await w.test { client in
            let cookie = try await client.signIn()
            let page = try await client.call(.get, "/passkeys", cookie: cookie)
            #expect(page.status == .ok && page.text.contains("not an IP address"))
            let (_, csrf) = try await client.page("/passkeys", cookie: cookie)
            let options = try await client.call(.post, "/passkeys/options", json: try Self.json(["csrf": csrf]), cookie: cookie)
            #expect(options.status == .conflict && options.text.contains("host name"))
            #expect(try await client.call(.post, "/login/passkey/options").status == .conflict)
        }
    }
}
