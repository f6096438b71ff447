import Foundation
import HealthServer
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
            let policy = WebhookPolicy(allowLoopback: true, timeout: .seconds(5))
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
}
