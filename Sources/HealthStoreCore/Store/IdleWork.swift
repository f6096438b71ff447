#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Work that only matters eventually, run on one thread per process at idle priority: it takes
/// only cores nothing else wants (Linux `SCHED_IDLE`), such as while a sync waits for its next
/// page. Used to free what an import has stored and to move SQLite's log into its file.
///
/// The backlog is bounded: when it is full, ``enqueue(_:)`` refuses and the caller does the
/// work itself (or leaves it for later), so a machine busy for long keeps memory bounded.
public enum IdleWork {
    /// Jobs waiting beyond this many are refused.
    static let backlogLimit = 32
    /// The thread's name (Linux allows 15 bytes).
    static let threadName = "hr-idle"

    private static let worker = Worker()

    /// Names the calling thread as `ps`, `top` and `perf` show it (Linux: at most 15 bytes).
    static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = write(fd, bytes, bytes.count)
        #else
        Thread.current.name = name
        #endif
    }

    /// Queues `job`; `false` when the backlog is full (the job was not taken).
    @discardableResult
    public static func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool { worker.take(job) }

    /// Jobs queued or running (tests).
    static var backlog: Int { worker.backlog }

    /// Waits until every job queued so far has run (tests).
    static func drain() { worker.drain() }

    private final class Worker: @unchecked Sendable {
        // Everything below is guarded by `condition`.
        private let condition = NSCondition()
        private var pending: [@Sendable () -> Void] = []
        private var running = false

        init() {
            let thread = Thread { [self] in run() }
            thread.start()
        }

        var backlog: Int {
            condition.lock()
            defer { condition.unlock() }
            return pending.count + (running ? 1 : 0)
        }

        func take(_ job: @escaping @Sendable () -> Void) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard pending.count < IdleWork.backlogLimit else { return false }
            pending.append(job)
            condition.broadcast()
            return true
        }

        func drain() {
            condition.lock()
            while !pending.isEmpty || running { condition.wait() }
            condition.unlock()
        }

        private func run() {
            // Threads start with their creator's name. Foundation's `Thread.name` setter names
            // the OS thread only once `start()` has stored its handle, which races with this
            // line (the creator was seen keeping its name), so the name is written here directly.
            IdleWork.nameCurrentThread(IdleWork.threadName)
            #if os(Linux)
            var param = sched_param()
            // SCHED_IDLE (5; Glibc's module leaves the GNU-only name out).
            _ = pthread_setschedparam(pthread_self(), 5, &param)
            #endif
            while true {
                condition.lock()
                while pending.isEmpty { condition.wait() }
                var jobs = pending
                pending = []
                running = true
                condition.unlock()
                for job in jobs { job() }
                // The jobs (and what they captured) are let go here too.
                jobs.removeAll()
                condition.lock()
                running = false
                condition.broadcast()
                condition.unlock()
            }
        }

        /// Names the calling thread as `ps`, `top` and `perf` show it (Linux: at most 15 bytes).
    }
}
