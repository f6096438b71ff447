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
        // Review 2, finding 6: a token from a file is the operator's; it is not printed (service
        // logs would keep it), only the page that asks for it.
        #expect(server.lines.contains("Person's pages: \(base)/login"))
        #expect(!server.lines.joined().contains("cli-test-person-token"), "\(server.lines)")

        let (body, response) = try await URLSession.shared.data(from: URL(string: "\(base)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
        let (_, unauthorized) = try await URLSession.shared.data(from: URL(string: "\(base)/records")!)
        #expect((unauthorized as? HTTPURLResponse)?.statusCode == 401)

        server.terminate()
        // A debug build's graceful stop on a busy machine: seconds, not a fixed few.
        for _ in 0..<1_500 where server.process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == 0)
    }

    /// A token from the environment is not printed either; one made for this run is, in the
    /// sign-in link, for the person at the terminal.
    @Test func onlyATokenMadeForThisRunIsPrinted() throws {
        let fromEnvironment = try ServeProcess(
            ["--store", dir.path("env.sqlite"), "--log-level", "error"],
            environment: ["XDG_RUNTIME_DIR": dir.url.path, "HEALTHRECORDS_PERSON_TOKEN": "env-person-token-for-the-cli-test-0123456789"])
        #expect(fromEnvironment.lines.contains("Person's pages: \(fromEnvironment.base)/login"))
        #expect(!fromEnvironment.lines.joined().contains("env-person-token"), "\(fromEnvironment.lines)")
        let random = try ServeProcess(["--store", dir.path("random.sqlite"), "--log-level", "error"], environment: ["XDG_RUNTIME_DIR": dir.url.path])
        let link = try #require(random.lines.first { $0.hasPrefix("Person's pages: \(random.base)/login?token=") })
        #expect(link.count > "Person's pages: \(random.base)/login?token=".count + 40)
    }

    @Test func badServeOptionsAreUsageErrors() throws {
        let cli = CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path])
        #expect(try cli.run(["serve", "--port", "70000"]).status == 2)
        #expect(try cli.run(["serve", "--rate-limit", "0"]).status == 2)
        // Review 2, finding 5: a person token chosen by hand must carry at least 128 bits.
        for weak in ["abc", "0123456789012345", String(repeating: "a", count: 200), String(repeating: "abcd", count: 30), "correct-horse-battery"] {
            let file = try dir.write("weak.token", weak)
            let r = try cli.run(["serve", "--person-token-file", file])
            #expect(r.status == 2 && r.stderr.contains("needs at least 128"), "\(weak): \(r.stderr)")
            let env = try CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite"), "XDG_RUNTIME_DIR": dir.url.path, "HEALTHRECORDS_PERSON_TOKEN": weak])
                .run(["serve"])
            #expect(env.status == 2 && env.stderr.contains("HEALTHRECORDS_PERSON_TOKEN"), "\(weak): \(env.stderr)")
        }
    }
}
