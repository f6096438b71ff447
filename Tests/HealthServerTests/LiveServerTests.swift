import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The same API over a real socket on a loopback port.
@Suite struct LiveServerTests {
    @Test(arguments: ServerEngine.all)
    func anAppAuthenticatesAsksAndReadsOverLoopback(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([Fixtures.record(.labResult, id: "l1"), Fixtures.record(.condition, id: "c1")])
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition)])
        try await w.test(.live) { client in
            let port = try #require(client.port)
            #expect(port > 0)
            let token = try await client.token(creds)
            let request = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["lab-result","condition"]}"#).object()
            let url = try #require(request["url"] as? String)
            #expect(url.hasPrefix("http://127.0.0.1:\(port)/consent/"))
            let path = String(url.dropFirst("http://127.0.0.1:\(port)".count))
            let cookie = try await client.signIn()
            let (_, csrf) = try await client.page(path, cookie: cookie)
            _ = try await client.call(.post, path, form: "csrf=\(formEncoded(csrf))&allow=condition&action=allow", cookie: cookie)
            let records = try await client.call(.get, "/records", token: token).object()["records"] as! [[String: Any]]
            #expect(records.map { $0["id"] as! String } == ["c1"])
            #expect(try await client.call(.get, "/records").status == .unauthorized)
        }
    }
}
