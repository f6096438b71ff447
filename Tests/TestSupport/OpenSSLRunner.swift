import Foundation

/// Runs the real `openssl` command line tool in a private temporary directory (removed with
/// the runner); file names in arguments are relative to it.
public final class OpenSSLRunner: Sendable {
    /// The first `openssl` on `PATH` (falling back to `/usr/bin/openssl`).
    public static let executable: String = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/openssl"
    }()

    /// What a run printed and how it ended.
    public struct Output: Sendable {
        /// Exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
    }

    /// A run that exited with a non-zero status.
    public struct Failed: Error, CustomStringConvertible {
        /// The arguments given.
        public var arguments: [String]
        /// What the run printed.
        public var output: Output
        public var description: String {
            "openssl \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)"
        }
    }

    /// The private working directory.
    public let directory: URL

    /// Makes the working directory.
    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sample-signatures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A path inside the working directory.
    public func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Writes bytes to a file in the working directory.
    public func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    /// Writes text to a file in the working directory.
    public func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    /// Reads a file of the working directory.
    public func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Reads a text file of the working directory.
    public func readText(_ name: String) throws -> String {
        String(decoding: try read(name), as: UTF8.self)
    }

    /// Runs openssl with `arguments` (file names relative to the directory) and returns its output.
    public func run(_ arguments: [String]) throws -> Output {
        let outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = try ChildProcess(
            executable: URL(fileURLWithPath: Self.executable), arguments: arguments, directory: directory,
            standardInput: .null, standardOutput: .file(out), standardError: .file(err))
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }

    /// Runs openssl and throws unless it exits 0.
    @discardableResult
    public func runChecked(_ arguments: [String]) throws -> Output {
        let output = try run(arguments)
        guard output.status == 0 else { throw Failed(arguments: arguments, output: output) }
        return output
    }
}
