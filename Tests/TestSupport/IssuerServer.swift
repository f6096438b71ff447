import Foundation

/// A real HTTP server on 127.0.0.1 standing in for issuers' websites (`Scripts/test-issuer-server.py`).
public final class IssuerServer: @unchecked Sendable {
    // The process is started in init and only terminated in deinit.
    private let process: ChildProcess
    /// The port it listens on.
    public let port: Int

    /// Starts the server over an issuer folder (one holding `.well-known/`).
    public init(serving folder: URL) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/test-issuer-server.py")
        let out = Pipe()
        process = try ChildProcess(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", script.path, folder.path], standardOutput: .pipe(out))
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
        process.send(SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(5_000) }
    }
}
