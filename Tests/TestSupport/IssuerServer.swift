import Foundation

/// A real HTTP server on 127.0.0.1 standing in for issuers' websites (`Scripts/test-issuer-server.py`).
public final class IssuerServer: @unchecked Sendable {
    // The process is started in init and only terminated in deinit.
    private let process = Process()
    /// The port it listens on.
    public let port: Int

    /// Starts the server over an issuer folder (one holding `.well-known/`).
    public init(serving folder: URL) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/test-issuer-server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        port = p
    }

    /// The base URL of a route, e.g. `url("issuer")` → `http://127.0.0.1:PORT/issuer`.
    public func url(_ route: String) -> String { "http://127.0.0.1:\(port)/\(route)" }

    deinit {
        // Not waitUntilExit: it spins on a run loop when called off the main thread on Linux.
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(5_000) }
    }
}
