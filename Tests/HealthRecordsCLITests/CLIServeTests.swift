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
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["serve", "--port", "0", "--store", dir.path("store.sqlite"), "--person-token-file", tokenFile, "--log-level", "error"]
        var environment = ProcessInfo.processInfo.environment
        environment["HEALTHRECORDS_PASSPHRASE"] = nil
        environment["XDG_RUNTIME_DIR"] = dir.url.path
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var text = ""
        while !text.contains("OpenAPI: ") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        let base = try #require(lines.first { $0.hasPrefix("Listening on http://127.0.0.1:") }?.dropFirst("Listening on ".count))
        #expect(lines.contains("Person's pages: \(base)/login?token=cli-test-person-token-0123456789"))

        let (body, response) = try await URLSession.shared.data(from: URL(string: "\(base)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
        let (_, unauthorized) = try await URLSession.shared.data(from: URL(string: "\(base)/records")!)
        #expect((unauthorized as? HTTPURLResponse)?.statusCode == 401)

        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<300 where process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
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
