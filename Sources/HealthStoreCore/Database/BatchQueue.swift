import Synchronization

/// Log entries waiting to be written, oldest first: apps' audited reads, accesses to hosted links.
///
/// Every app read (and every link access) appends an entry; writing each in its own
/// transaction made every read a write, and on SQLite every write empties the other
/// connections' page caches, so a busy server re-read its pages from the file on every request.
/// Entries are instead written in batches: the first entry of a batch schedules a write
/// ``delay`` later, and reading the log writes what waits first, so the log a reader sees is
/// always complete.
final class BatchQueue<Entry: Sendable>: Sendable {
    /// How long an entry may wait before its batch is written.
    static var delay: Duration { .milliseconds(50) }

    /// The longest wait between tries while writes fail (the database is gone, say): a thousand
    /// people's queues retrying every 50 ms had kept a server busy with nothing to do.
    static var longestRetry: Duration { .seconds(30) }

    private let state = Mutex<(pending: [Entry], scheduled: Bool, failures: Int)>(([], false, 0))
    /// The latest write: writes run one after another, so a reader's write of what waits
    /// also waits for a write already under way (whose entries it could not see otherwise).
    private let lastWrite = Mutex<Task<(any Error)?, Never>?>(nil)

    /// Runs a write after every write started before it; returns its error.
    func serialized(_ write: @escaping @Sendable () async -> (any Error)?) async -> (any Error)? {
        let task = lastWrite.withLock { last in
            let previous = last
            let next = Task { () -> (any Error)? in
                _ = await previous?.value
                return await write()
            }
            last = next
            return next
        }
        return await task.value
    }

    /// Queues an entry; `true` when the caller must schedule the batch's write.
    func append(_ entry: Entry) -> Bool {
        state.withLock { s in
            s.pending.append(entry)
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
    }

    /// Takes every waiting entry (the next entry schedules a new batch).
    func take() -> [Entry] {
        state.withLock { s in
            defer {
                s.pending = []
                s.scheduled = false
            }
            return s.pending
        }
    }

    /// Puts back entries whose write failed, ahead of newer ones; `true` when the caller must
    /// schedule another write (after ``wait``, which doubles with each failure in a row).
    func restore(_ entries: [Entry]) -> Bool {
        state.withLock { s in
            s.pending = entries + s.pending
            s.failures += 1
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
    }

    /// A batch was written: the next waits ``delay`` again.
    func written() { state.withLock { $0.failures = 0 } }

    /// How long the next batch waits: ``delay``, doubled for each failed write in a row, at most
    /// ``longestRetry``.
    var wait: Duration {
        let failures = state.withLock { $0.failures }
        guard failures > 0 else { return Self.delay }
        return min(Self.delay * (1 << min(failures, 12)), Self.longestRetry)
    }
}
