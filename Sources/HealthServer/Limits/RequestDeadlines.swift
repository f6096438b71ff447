import Synchronization

/// One clock for the deadlines of every request in flight.
///
/// A request that waited out its timeout with `Task.sleep` left a timer in the runtime's timer
/// heap even when it finished first: cancelling the sleep resumes the task but does not remove
/// its timer, which fires (and wakes a thread) at the deadline anyway. At 15,000 requests a
/// second and a 30-second timeout that is 450,000 timers pending, the heap kept in order on
/// every request, and half a minute of wake-ups after a burst ends, taken from whatever runs
/// next. Here each request parks a continuation, removed when it finishes; one task ticks while
/// any request waits and resumes those past their deadline.
final class RequestDeadlines: Sendable {
    /// How long a request may take.
    let timeout: Duration
    /// How often the clock looks at the deadlines: an eighth of the timeout, at most a second.
    let tick: Duration

    private struct Waiter {
        let due: ContinuousClock.Instant
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var waiting: [UInt64: Waiter] = [:]
        /// Requests that finished before their continuation was parked.
        var finishedEarly: Set<UInt64> = []
        var lastID: UInt64 = 0
        var ticking = false
    }

    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
        tick = min(timeout / 8, .seconds(1))
    }

    /// How many requests wait on the clock now (tests hold that finished ones leave it).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Waits until the timeout has passed (`true`) or the calling task is cancelled (`false`,
    /// at once).
    func expired() async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.lastID &+= 1
            return s.lastID
        }
        let due = ContinuousClock.now.advanced(by: timeout)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (cancelled, start) = state.withLock { s -> (Bool, Bool) in
                    if s.finishedEarly.remove(id) != nil { return (true, false) }
                    s.waiting[id] = Waiter(due: due, continuation: continuation)
                    if s.ticking { return (false, false) }
                    s.ticking = true
                    return (false, true)
                }
                if cancelled { continuation.resume(returning: false) }
                if start { Task { await self.run() } }
            }
        } onCancel: {
            let waiter = state.withLock { s -> Waiter? in
                if let w = s.waiting.removeValue(forKey: id) { return w }
                s.finishedEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Ticks while any request waits, resuming those whose deadline passed.
    private func run() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let (due, more) = state.withLock { s -> ([Waiter], Bool) in
                let due = s.waiting.filter { $0.value.due <= now }
                for id in due.keys { s.waiting[id] = nil }
                if s.waiting.isEmpty { s.ticking = false }
                return (Array(due.values), s.ticking)
            }
            for waiter in due { waiter.continuation.resume(returning: true) }
            if !more { return }
        }
    }
}
