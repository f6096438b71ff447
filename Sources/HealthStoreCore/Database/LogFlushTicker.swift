import Synchronization

/// One clock for the log batches of every store on a shared database: each store's first
/// waiting entry registers its flush here instead of starting a task that sleeps
/// ``BatchQueue/delay`` on its own.
///
/// With a thousand people each reading now and then, every app read began a batch of one, and
/// with it a task and a timer of its own: the many-people server woke a third more often per
/// request than a single person's (perf: the difference was almost all context switches and the
/// timer heap). Here one task sleeps the delay and then flushes every store that registered
/// meanwhile, together, so their batches reach the group commit at once. An entry waits at most
/// the delay, as before.
package final class LogFlushTicker: Sendable {
    /// How long the first registered flush waits; later ones wait what is left of it.
    package let delay: Duration
    private let state = Mutex<(due: [@Sendable () async -> Void], ticking: Bool, ticks: Int)>(([], false, 0))

    /// Makes a ticker whose flushes run `delay` after the first of them registered.
    package init(delay: Duration) {
        self.delay = delay
    }

    /// Makes a ticker with the delay of every store's log batches (``BatchQueue/delay``).
    package convenience init() {
        self.init(delay: BatchQueue<Never>.delay)
    }

    /// How many ticks have run flushes.
    package var ticks: Int { state.withLock { $0.ticks } }

    /// Runs `flush` at the next tick (starting one if none is under way).
    package func schedule(_ flush: @escaping @Sendable () async -> Void) {
        let start = state.withLock { s -> Bool in
            s.due.append(flush)
            if s.ticking { return false }
            s.ticking = true
            return true
        }
        if start { Task { await self.tick() } }
    }

    private func tick() async {
        while true {
            try? await Task.sleep(for: delay)
            let due = state.withLock { s -> [@Sendable () async -> Void] in
                defer { s.due = [] }
                if s.due.isEmpty { s.ticking = false } else { s.ticks += 1 }
                return s.due
            }
            if due.isEmpty { return }
            await withTaskGroup(of: Void.self) { group in
                for flush in due { group.addTask { await flush() } }
            }
        }
    }
}
