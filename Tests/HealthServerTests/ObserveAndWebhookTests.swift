import ClinicalRecords
import Crypto
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /observe` (Server-Sent Events on a live port) and webhooks: notices only for what
/// the app may see, with the app's anchor; webhooks signed and retried.
@Suite struct ObserveAndWebhookTests {
    @Test(arguments: ServerEngine.all)
    func anEventStreamAnnouncesVisibleChangesWithTheAppsAnchor(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], deny: [.clinical(.condition)], newData: .share))
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            let port = try #require(client.port)
            let stream = try RawHTTPStream(port: port, path: "/observe?types=lab-result,condition", headers: ["Authorization": "Bearer \(token)"])
            let head = try await stream.read(until: ": observing")
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-type: text/event-stream"))
            // A denied type's change never fires; an allowed one does.
            try await w.importResources([Fixtures.record(.condition, id: "c1")])
            try await w.importResources([Fixtures.record(.labResult, id: "l1")])
            let text = try await stream.read(until: "event: change")
            #expect(text.contains(#"data: {"types":["lab-result"],"anchor":"#))
            #expect(!text.contains("condition\""))
            let changes = try await client.call(.get, "/changes", token: token).object()
            #expect(text.contains("id: \(changes["anchor"] as! String)\n"))
        }
    }

    @Test(arguments: ServerEngine.all)
    func aStreamWithoutATokenIsRefused(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.test(.live) { client in
            let stream = try RawHTTPStream(port: try #require(client.port), path: "/observe", headers: [:])
            #expect(try await stream.read(until: "invalid_token").hasPrefix("HTTP/1.1 401"))
        }
    }

    @Test(arguments: ServerEngine.all)
    func webhooksAreSignedWithTheAppSecretAndRetried(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine, failingDeliveries: 1)
        let creds = try await w.allowedApp([.clinical(.labResult)])
        try await w.test { client in
            let token = try await client.token(creds)
            let created = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"http://127.0.0.1:9/hook","types":["lab-result"]}"#)
            #expect(created.status == .created)
            let id = try created.object()["id"] as! String
            #expect((try await client.call(.get, "/webhooks", token: token).object()["webhooks"] as! [[String: Any]]).map { $0["id"] as! String } == [id])

            try await w.importResources([Fixtures.record(.labResult, id: "l1")])
            let attempts = await w.webhooks.nextAccepted()
            #expect(attempts.map(\.accepted) == [false, true])
            let delivery = attempts[1]
            let body = String(decoding: delivery.body, as: UTF8.self)
            #expect(body.hasPrefix(#"{"webhook":"\#(id)","types":["lab-result"],"anchor":""#))
            let signature = try #require(delivery.headers["X-HealthRecords-Signature"])
            let parts = Dictionary(uniqueKeysWithValues: signature.split(separator: ",").map { p in
                let kv = p.split(separator: "=", maxSplits: 1)
                return (String(kv[0]), String(kv[1]))
            })
            var message = Data((parts["t"]! + ".").utf8)
            message.append(delivery.body)
            let key = SymmetricKey(data: SHA256.hash(data: Data(creds.secret.utf8)))
            let expected = HMAC<SHA256>.authenticationCode(for: message, using: key).map { String(format: "%02x", $0) }.joined()
            #expect(parts["v1"] == expected)

            #expect(try await client.call(.delete, "/webhooks/\(id)", token: token).status == .noContent)
            #expect(try await client.call(.delete, "/webhooks/\(id)", token: token).status == .notFound)
        }
    }

    @Test(arguments: ServerEngine.all)
    func webhookTargetsOnPrivateNetworksOrPlainHTTPAreRefused(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine) { $0.webhooks = WebhookPolicy() }
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test { client in
            let token = try await client.token(creds)
            for url in ["http://127.0.0.1:9/hook", "https://10.0.0.1/hook", "https://192.168.1.5/hook", "ftp://example.org/", "http://8.8.8.8/hook"] {
                let r = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"\#(url)"}"#)
                #expect(r.status == .badRequest, "\(url)")
            }
        }
    }

    /// An app learns that a target is refused or unreachable, never what the name resolves to
    /// on the server's network; the operator's log has the reason.
    @Test(arguments: ServerEngine.all)
    func aRefusedWebhookTargetIsNotExplainedToTheApp(engine: ServerEngine) async throws {
        let resolver = TableResolver(table: ["intranet.example": "10.1.2.3", "nowhere.example": nil, "metadata.example": "169.254.169.254"])
        let w = try await ServerWorld(engine, configure: { $0.webhooks = WebhookPolicy() }, resolver: resolver)
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test { client in
            let token = try await client.token(creds)
            for (url, answer) in [
                ("https://intranet.example/hook", "is not allowed"), ("https://metadata.example/hook", "is not allowed"),
                ("https://nowhere.example/hook", "cannot be reached"),
            ] {
                let r = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"\#(url)"}"#)
                #expect(r.status == .badRequest, "\(url)")
                let text = r.text
                #expect(text.contains("the webhook target \(answer)"), "\(text)")
                #expect(!text.contains(" is cannot "), "\(text)")
                #expect(!text.contains("10.1.2.3") && !text.contains("169.254") && !text.contains("resolves"), "\(text)")
            }
        }
        let refusals = w.logs.all.filter { $0.contains("webhook target refused") }
        #expect(refusals.count == 3)
        #expect(refusals.contains { $0.contains("10.1.2.3") && $0.contains("Private-Use") })
    }
}
