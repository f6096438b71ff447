import Foundation
import TestSupport

/// `healthrecords serve` on a free loopback port, as people start it, stopped when dropped.
final class ServeProcess {
    let process: ChildProcess
    /// The base URL it printed (`http://127.0.0.1:PORT`).
    let base: String
    /// Every line it printed up to the OpenAPI address.
    let lines: [String]

    /// Starts the server with `arguments` after `serve --port 0` and waits until it listens.
    init(_ arguments: [String], environment: [String: String]) throws {
        var env = ProcessInfo.processInfo.environment
        env["HEALTHRECORDS_PASSPHRASE"] = nil
        for (k, v) in environment { env[k] = v }
        let out = Pipe()
        process = try ChildProcess(
            executable: CommandRunner.executable, arguments: ["serve", "--port", "0"] + arguments, environment: env,
            standardOutput: .pipe(out), standardError: .null)
        var text = ""
        while !text.contains("OpenAPI: ") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        lines = text.split(separator: "\n").map(String.init)
        guard let listening = lines.first(where: { $0.hasPrefix("Listening on http://127.0.0.1:") }) else {
            process.send(SIGKILL)
            process.waitUntilExit()
            throw ServeFailure(output: text)
        }
        base = String(listening.dropFirst("Listening on ".count))
    }

    /// Asks the server to stop, as a service manager does.
    func terminate() { process.terminate() }

    deinit {
        process.send(SIGKILL)
        process.waitUntilExit()
    }
}

/// The server did not say where it listens.
struct ServeFailure: Error, CustomStringConvertible {
    let output: String
    var description: String { "serve did not start: \(output)" }
}
