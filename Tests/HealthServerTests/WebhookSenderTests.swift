import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import NetworkAddresses
import OutboundHTTP
import Synchronization
import Testing

/// The real (pinned) webhook sender against a receiver on a loopback port.
@Suite struct WebhookSenderTests {
    @Test func theSenderPostsReportsFailuresAndFollowsNoRedirect() async throws {
        let received = Mutex<[String]>([])
        let router = Router()
        router.post("/ok") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 10_000)
            let signature = request.headers[HTTPFields.Element.Name("X-HealthRecords-Signature")!] ?? "-"
            received.withLock { $0.append("\(String(buffer: body)) \(signature)") }
            return Response(status: .noContent)
        }
        router.post("/fail") { _, _ -> Response in Response(status: .internalServerError) }
        router.post("/moved") { _, _ -> Response in Response(status: .temporaryRedirect, headers: [.location: "/ok"]) }
        try await Application(router: router).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let sender = PinnedWebhookSender()
            // Generous: the suite runs beside 900 others on two cores, and this is not about time.
            let policy = WebhookPolicy(allowLoopback: true, timeout: .seconds(30))
            let headers = ["Content-Type": "application/json", "X-HealthRecords-Signature": "t=1,v1=ab"]
            try await sender.post(URL(string: base + "/ok")!, body: Data(#"{"anchor":"1"}"#.utf8), headers: headers, policy: policy)
            await #expect(throws: OutboundError.status(500)) {
                try await sender.post(URL(string: base + "/fail")!, body: Data("{}".utf8), headers: headers, policy: policy)
            }
            await #expect(throws: OutboundError.status(307)) {
                try await sender.post(URL(string: base + "/moved")!, body: Data(#"{"moved":1}"#.utf8), headers: headers, policy: policy)
            }
            // Loopback is refused unless the policy allows it, before anything is sent.
            await #expect {
                try await sender.post(URL(string: base + "/ok")!, body: Data(#"{"refused":1}"#.utf8), headers: headers, policy: WebhookPolicy())
            } throws: { error in
                guard case .forbiddenAddress(_, let c) = error as? OutboundError else { return false }
                return c.kind == .loopback
            }
        }
        #expect(received.withLock { $0 } == [#"{"anchor":"1"} t=1,v1=ab"#])
    }

    /// A server given no sender delivers through the pinned client: the host name is resolved
    /// by the server's resolver (here a table: nothing named hook.test exists) and the POST
    /// reaches the address it answered.
    @Test func theServersDefaultSenderIsThePinnedOne() async throws {
        let received = Mutex<[(host: String, body: String)]>([])
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 10_000)
            received.withLock { $0.append((request.head.authority ?? "-", String(buffer: body))) }
            return Response(status: .noContent)
        }
        try await Application(router: router).test(.live) { receiver in
            let port = try #require(receiver.port)
            // The world's 2 s delivery timeout suits its recording sender; a real POST to a real
            // receiver on a busy machine may take longer, and a retry would deliver twice.
            let w = try await ServerWorld(
                .sqlite, configure: { $0.webhooks.timeout = .seconds(30) },
                resolver: TableResolver(table: ["hook.test": "127.0.0.1"]), defaultWebhookSender: true)
            let creds = try await w.register([.clinical(.labResult)])
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
            try await w.test { client in
                let token = try await client.token(creds)
                let created = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"http://hook.test:\#(port)/hook"}"#)
                #expect(created.status == .created)
                try await w.importResources([Fixtures.record(.labResult, id: "l1")])
                let deadline = ContinuousClock.now + .seconds(60)
                while received.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            }
            let deliveries = received.withLock { $0 }
            #expect(deliveries.count == 1)
            #expect(deliveries.first?.host == "hook.test:\(port)")
            #expect(deliveries.first?.body.contains(#""types":["lab-result"]"#) == true)
        }
    }
}
