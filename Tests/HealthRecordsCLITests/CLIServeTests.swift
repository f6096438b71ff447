import Foundation
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `healthrecords serve` as people start it: it prints where it listens and the sign-in link,
/// answers, and stops cleanly on SIGTERM.
@Suite struct CLIServeTests {
    let dir = TemporaryDirectory()

    @Test func serveListensPrintsTheSignInLinkAndStopsOnSIGTERM() async throws {
        let tokenFile = try dir.write("person.token", "cli-test-person-token-0123456789\n")
        let server = try ServeProcess(
            ["--store", dir.path("store.sqlite"), "--person-token-file", tokenFile, "--log-level", "error"], environment: ["XDG_RUNTIME_DIR": dir.url.path])
        let base = server.base
        #expect(server.lines.contains("Person's pages: \(base)/login?token=cli-test-person-token-0123456789"))

        let (body, response) = try await URLSession.shared.data(from: URL(string: "\(base)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
        let (_, unauthorized) = try await URLSession.shared.data(from: URL(string: "\(base)/records")!)
        #expect((unauthorized as? HTTPURLResponse)?.statusCode == 401)

        server.terminate()
        for _ in 0..<300 where server.process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == 0)
    }

    @Test func badServeOptionsAreUsageErrors() throws {
        let cli = CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path])
        #expect(try cli.run(["serve", "--port", "70000"]).status == 2)
        #expect(try cli.run(["serve", "--rate-limit", "0"]).status == 2)
        let short = try dir.write("short.token", "abc")
        let r = try cli.run(["serve", "--person-token-file", short])
        #expect(r.status == 2 && r.stderr.contains("at least 16 characters"))
    }
}
