#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A program the tests start (the `healthrecords` executable, openssl, Python peers), launched
/// with `posix_spawn` directly.
///
/// Why not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close every
/// descriptor in the child and copies each directory entry's whole 256-byte name field, reading
/// past the end of glibc's directory buffer once the listing fills it. The suite's parallel
/// stores hold 1,300 descriptors and more at times, and the test runner then crashed on a bad
/// pointer in `Process.run()` (swift-corelibs-foundation pull request 5472, after Swift 6.3.1).
/// Here the child closes its inherited descriptors itself (`closefrom` as a spawn action), so
/// nothing is listed.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// `/dev/null`.
        case null
        /// The test process's own stream.
        case inherit
        /// One end of a pipe: the read end for standard input, the write end for output. The
        /// parent's copy of that end is closed once the child runs, as `Process` does.
        case pipe(Pipe)
        /// An open file.
        case file(FileHandle)
    }

    /// Why a child could not be started.
    public struct LaunchFailure: Error, CustomStringConvertible {
        /// The program.
        public let executable: String
        /// The `errno` value `posix_spawn` (or a spawn action) gave.
        public let code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    /// The child's process id.
    public let processIdentifier: pid_t

    // Guarded by `lock`: the wait status once the child has been reaped.
    private let lock = NSLock()
    private var waitStatus: Int32?

    /// Starts `executable` with `arguments`; `environment` replaces the test process's own when
    /// given; `directory` is the child's working directory.
    public init(
        executable: URL, arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .inherit, standardError: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // The parent's ends that the child reads or writes; closed here after the spawn.
        var handedOver: [FileHandle] = []
        func route(_ stream: Stream, to target: Int32) {
            let fd: Int32
            switch stream {
            case .inherit: return
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
                return
            case .pipe(let pipe):
                let end = target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                handedOver.append(end)
                fd = end.fileDescriptor
            case .file(let handle): fd = handle.fileDescriptor
            }
            posix_spawn_file_actions_adddup2(&actions, fd, target)
        }
        route(standardInput, to: STDIN_FILENO)
        route(standardOutput, to: STDOUT_FILENO)
        route(standardError, to: STDERR_FILENO)
        if let directory {
            guard let changeDirectory = Self.addChangeDirectory else { throw LaunchFailure(executable: executable.path, code: ENOSYS) }
            _ = changeDirectory(&actions, directory.path)
        }
        // Last: every other inherited descriptor (another test's pipe, a store's files) closes.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        // Its own process group (as `Process` does), with no signal blocked.
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in pairs { free(p) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, pairs)
        guard status == 0 else { throw LaunchFailure(executable: executable.path, code: status) }
        processIdentifier = pid
        for end in handedOver { try? end.close() }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later) and
    /// `posix_spawn_file_actions_addchdir_np` (2.29), which Swift's Glibc module does not declare.
    private static let addCloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    private static let addChangeDirectory = symbol(
        "posix_spawn_file_actions_addchdir_np", as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)

    private static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// Reaps the child if it has ended; `block` waits for it.
    private func reap(block: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while true {
            let r = waitpid(processIdentifier, &status, block ? 0 : WNOHANG)
            if r == processIdentifier {
                waitStatus = status
                return status
            }
            if r == -1 && errno == EINTR { continue }
            return nil
        }
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { reap(block: false) == nil }

    /// Waits until the child ends.
    public func waitUntilExit() { _ = reap(block: true) }

    /// The exit status, or the number of the signal that ended it (as `Process` reports).
    public var terminationStatus: Int32 {
        guard let status = reap(block: false) else { return -1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }

    /// Whether a signal ended the child.
    public var wasSignaled: Bool {
        guard let status = reap(block: false) else { return false }
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F
    }

    /// Sends `signal` to the child (unless it has been reaped, when its id may be reused).
    public func send(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if waitStatus == nil { kill(processIdentifier, signal) }
    }

    /// Asks the child to stop (SIGTERM).
    public func terminate() { send(SIGTERM) }
}
