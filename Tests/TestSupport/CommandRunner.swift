import Foundation

/// Runs the built `healthrecords` executable, as people and scripts do.
public struct CommandRunner: Sendable {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        /// Exit status.
        public let status: Int32
        /// Standard output.
        public let stdout: Data
        /// Standard error.
        public let stderr: String
        /// Standard output as text.
        public var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Environment added to every run.
    public var environment: [String: String]

    /// Makes a runner with extra environment variables.
    public init(environment: [String: String] = [:]) {
        self.environment = environment
    }

    /// The executable beside the test bundle (SwiftPM builds both into the same folder).
    public static var executable: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
        var dir = testBinary.deletingLastPathComponent()
        // The test bundle may be a folder (`X.xctest/`) on some platforms.
        while dir.pathExtension == "xctest" { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("healthrecords")
    }

    /// Runs the command with arguments and optional standard input.
    public func run(_ arguments: [String], stdin: Data? = nil) throws -> Result {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        let process = try ChildProcess(
            executable: Self.executable, arguments: arguments, environment: env,
            standardInput: .pipe(input), standardOutput: .pipe(out), standardError: .pipe(err))
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full pipe never blocks the child.
        let errData = LockedData()
        let errThread = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errThread.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { Thread.sleep(forTimeInterval: 0.001) }
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ d: Data) { lock.lock(); data = d; done = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return done }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
}
