import ClinicalRecords
import Foundation
import HealthServer
import HealthSharing
import HealthStoreCore
import HealthStoreSQLite
import Hummingbird
import HummingbirdTesting
import Testing

/// What the application's background services do when the server stops gracefully.
@Suite struct ServerShutdownTests {
    /// Reads audited in the server's last moments are in the log the next process opens (they
    /// are written in batches, and the last batch used to be the CLI's job alone).
    @Test func readsAuditedJustBeforeTheStopAreWritten() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources([Fixtures.record(.labResult, id: "l1")])
        let creds = try await w.allowedApp([.clinical(.labResult)])
        try await w.test(.live) { client in
            let token = try await client.token(creds)
            for _ in 0..<5 { #expect(try await client.call(.get, "/records?type=lab-result", token: token).status == .ok) }
        }
        // A second store over the same file has no batch of its own to write: what it reads is
        // what the first one wrote.
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: w.dir.url.path).first { $0.hasSuffix(".sqlite") })
        let again = try await SQLiteHealthStore(path: w.dir.path(file), clock: w.store.clock)
        let reads = try await again.auditEntries(appID: creds.appID).filter { $0.operation == "records" }
        #expect(reads.count == 5)
    }

    /// Accesses to a hosted link in the server's last moments are in its log too.
    @Test func linkAccessesJustBeforeTheStopAreWritten() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(HostedLinkServerTests.records)
        let link = try await HostedLinkServerTests.publish(w, HostedLinkContent(checkIn: true))
        try await w.test(.live) { client in
            for _ in 0..<3 {
                let r = try await client.call(.get, HostedLinkServerTests.path(link) + "?recipient=Desk")
                #expect(r.status == .ok)
            }
        }
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: w.dir.url.path).first { $0.hasSuffix(".sqlite") })
        let again = try await SQLiteHealthStore(path: w.dir.path(file), clock: w.store.clock)
        #expect(try await again.linkAccessLog(handle: link.link.handle, newestFirst: 10).map(\.event) == [.direct, .direct, .direct])
    }

    /// A webhook stops delivering when the server stops: changes made afterwards (by the CLI,
    /// another process) are not posted by a server that is no longer running.
    @Test func webhooksStopWithTheServer() async throws {
        let w = try await ServerWorld(.sqlite)
        let creds = try await w.allowedApp([.clinical(.labResult)])
        try await w.test { client in
            let token = try await client.token(creds)
            let created = try await client.call(.post, "/webhooks", token: token, json: #"{"url":"http://127.0.0.1:9/hook","types":["lab-result"]}"#)
            #expect(created.status == .created)
            try await w.importResources([Fixtures.record(.labResult, id: "l1")])
            #expect(await w.webhooks.nextAccepted().count == 1)
        }
        try await w.importResources([Fixtures.record(.labResult, id: "l2")])
        // Several poll intervals (50 ms in tests): a running delivery would have posted by now.
        try await Task.sleep(for: .milliseconds(400))
        #expect(w.webhooks.attempts.count == 1)
    }
}
