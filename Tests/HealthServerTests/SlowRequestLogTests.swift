import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import HealthServer

/// A server logging only warnings still names its slow requests (route, status, milliseconds;
/// never the path), and stays silent about fast ones.
@Suite struct SlowRequestLogTests {
    @Test func aRequestSlowerThanHalfASecondIsAWarningAndAFastOneIsNotLogged() async throws {
        let logs = LogCapture()
        var logger = Logger(label: "test") { label in JSONLogHandler(label: label, sink: { logs.append($0) }) }
        logger.logLevel = .warning
        let router = Router(context: HealthRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.get("/fast/{id}") { _, _ in "fast" }
        router.get("/slow/{id}") { _, _ in
            try await Task.sleep(for: .milliseconds(600))
            return "slow"
        }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/fast/secret-record-1", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/slow/secret-record-2", method: .get) { #expect($0.status == .ok) }
        }
        // Read as JSON: a fast request is logged only if the machine really made it slow.
        let lines = try logs.all.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]) }
        #expect(lines.filter { $0["route"] == "/slow/{id}" }.count == 1, "\(lines)")
        for line in lines {
            #expect(line["level"] == "warning" && line["status"] == "200", "\(line)")
            #expect(try #require(Double(line["ms"] ?? "")) >= 500, "\(line)")
            #expect(!line.values.contains { $0.contains("secret-record") }, "the path is not logged: \(line)")
        }
    }
}
