import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Rate limits per app, body caps, request timeouts and record caps.
@Suite struct LimitsTests {
    @Test(arguments: ServerEngine.all)
    func anAppOverItsRateGets429WithRetryAfterWhileOthersGoOn(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine) { c in
            c.limits.appBurst = 3
            c.limits.appRequestsPerSecond = 0.001
        }
        let busy = try await w.register([.clinical(.labResult)], name: "Busy")
        let calm = try await w.register([.clinical(.labResult)], name: "Calm")
        try await w.test { client in
            let token = try await client.token(busy)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(Int(try await client.call(.get, "/records", token: token).status.code)) }
            #expect(statuses == [200, 200, 200, 429])
            let limited = try await client.call(.get, "/records", token: token)
            #expect(try limited.object()["error"] as? String == "rate_limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await client.call(.get, "/records", token: try await client.token(calm)).status == .ok)
        }
    }

    @Test(arguments: ServerEngine.all)
    func bodiesOverTheCapGet413(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine) { $0.limits.maxBodyBytes = 2048 }
        let creds = try await w.register([.clinical(.labResult)])
        try await w.test { client in
            let token = try await client.token(creds)
            let big = #"{"types":["lab-result"],"redirectUri":"https://x.example/\#(String(repeating: "a", count: 4000))"}"#
            let r = try await client.call(.post, "/authorization-requests", token: token, json: big)
            #expect(r.status == .contentTooLarge)
            #expect(try r.object()["error"] as? String == "body_too_large")
            let form = try await client.call(.post, "/token", form: "grant_type=client_credentials&client_id=" + String(repeating: "x", count: 4000))
            #expect(form.status == .contentTooLarge)
        }
    }

    @Test func aHandlerThatTakesTooLongGets503() async throws {
        let w = try await ServerWorld(.sqlite) { $0.limits.requestTimeout = .milliseconds(50) }
        let router = w.server.router()
        router.get("/test-slow") { _, _ -> Response in
            try await Task.sleep(for: .seconds(3600))
            return Response(status: .ok)
        }
        try await Application(router: router).test(.router) { client in
            let r = try await client.call(.get, "/test-slow")
            #expect(r.status == .serviceUnavailable)
            #expect(r.text == #"{"error":"timeout"}"#)
        }
    }

    @Test(arguments: ServerEngine.all)
    func aLimitAboveTheCapIsCut(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine) { $0.limits.maxRecordsPerQuery = 2 }
        try await w.importResources((1...4).map { Fixtures.record(.labResult, id: "l\($0)") })
        let creds = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        try await w.test { client in
            let token = try await client.token(creds)
            #expect((try await client.call(.get, "/records?limit=100", token: token).object()["records"] as! [Any]).count == 2)
            #expect((try await client.call(.get, "/records", token: token).object()["records"] as! [Any]).count == 2)
        }
    }
}
