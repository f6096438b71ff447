#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Frees values on a thread of its own, at idle priority: what an import has stored (its
/// resources' parsed JSON).
///
/// A 5 MB page of resources is hundreds of thousands of small objects; freeing them takes
/// about 20 ms of CPU, which would otherwise sit in the writer's loop or between storing a
/// provider's last page and finishing the sync, or compete with them for the cores. The thread
/// runs only when a core would otherwise idle (Linux `SCHED_IDLE`); when it falls behind (a
/// machine busy for long), callers free their values themselves, so memory stays bounded.
public enum BackgroundRelease {
    /// Values waiting beyond this many are freed by whoever hands them over.
    static let backlogLimit = 32

    private static let reclaimer = Reclaimer()
    /// The freeing thread's name (Linux allows 15 bytes).
    static let threadName = "hr-release"

    /// Takes over `value` (its last owner) and lets it go on the reclaiming thread.
    public static func release<Value>(_ value: consuming Value) {
        reclaimer.take(Box(consume value))
    }

    /// Values handed over and not yet freed (tests).
    static var backlog: Int { reclaimer.backlog }

    /// Waits until every value handed over so far is freed (tests).
    static func drain() { reclaimer.drain() }

    private final class Box<Held>: @unchecked Sendable {
        // Emptied once, by the reclaiming thread or by the caller past the backlog limit.
        private var held: Held?
        init(_ held: consuming Held) { self.held = consume held }
    }

    private final class Reclaimer: @unchecked Sendable {
        // Everything below is guarded by `condition`.
        private let condition = NSCondition()
        private var pending: [AnyObject] = []
        private var freeing = false

        init() {
            let thread = Thread { [self] in run() }
            thread.start()
        }

        var backlog: Int {
            condition.lock()
            defer { condition.unlock() }
            return pending.count + (freeing ? 1 : 0)
        }

        func take(_ box: AnyObject) {
            condition.lock()
            if pending.count >= BackgroundRelease.backlogLimit {
                condition.unlock()
                return  // `box` is freed here, by the caller.
            }
            pending.append(box)
            condition.broadcast()
            condition.unlock()
        }

        func drain() {
            condition.lock()
            while !pending.isEmpty || freeing { condition.wait() }
            condition.unlock()
        }

        private func run() {
            // Threads start with their creator's name; set on the thread itself, it reaches the OS.
            Thread.current.name = BackgroundRelease.threadName
            #if os(Linux)
            var param = sched_param()
            // SCHED_IDLE (5; Glibc's module leaves the GNU-only name out): run only on an idle core.
            _ = pthread_setschedparam(pthread_self(), 5, &param)
            #endif
            while true {
                condition.lock()
                while pending.isEmpty { condition.wait() }
                var batch = pending
                pending = []
                freeing = true
                condition.unlock()
                batch.removeAll()
                condition.lock()
                freeing = false
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
