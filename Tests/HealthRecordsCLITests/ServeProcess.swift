import Foundation
import TestSupport

/// `healthrecords serve` on a free loopback port, as people start it, stopped when dropped.
final class ServeProcess {
    let process = Process()
    /// The base URL it printed (`http://127.0.0.1:PORT`).
    let base: String
    /// Every line it printed up to the OpenAPI address.
    let lines: [String]

    /// Starts the server with `arguments` after `serve --port 0` and waits until it listens.
    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = CommandRunner.executable
        process.arguments = ["serve", "--port", "0"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["HEALTHRECORDS_PASSPHRASE"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("OpenAPI: ") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        lines = text.split(separator: "\n").map(String.init)
        guard let listening = lines.first(where: { $0.hasPrefix("Listening on http://127.0.0.1:") }) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw ServeFailure(output: text)
        }
        base = String(listening.dropFirst("Listening on ".count))
    }

    /// Asks the server to stop, as a service manager does.
    func terminate() { kill(process.processIdentifier, SIGTERM) }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// The server did not say where it listens.
struct ServeFailure: Error, CustomStringConvertible {
    let output: String
    var description: String { "serve did not start: \(output)" }
}
