import CSQLite
import Foundation
import HealthStoreCore
import Synchronization

/// Moves the write-ahead log into the database file on the idle thread (``IdleWork``).
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the log past 1,000 pages:
/// a large import (a provider's 5 MB download) would wait for the copy and its two fsyncs before
/// its commit returns. The writer instead reports each commit's log length here, and once the
/// writes have paused for ``quietPeriod`` a long log is checkpointed (`PASSIVE`: it never blocks
/// a reader or the writer) at idle priority, so it takes only cores nothing else wants.
///
/// The pause matters as much as the priority: a checkpoint fsyncs the log and the file, and a
/// process cannot exit while one of its threads is inside an fsync, so a command-line sync that
/// started one as it finished would wait for the disk. A log that still grows past
/// ``inlineThreshold`` (writes that never pause) is checkpointed inside the commit, as SQLite
/// itself would, so it stays bounded. A process that exits first leaves the log as it is (its
/// connections do not checkpoint on close either), which is safe: SQLite reads it on the next
/// open, and the next long commit checkpoints it.
/// Deletions still empty the log at once (``SQLiteDatabase/scrub(vacuum:)``).
final class WALCheckpointer: Sendable {
    /// Log pages after which a checkpoint is started (SQLite's own default threshold).
    static let threshold: Int32 = 1000
    /// Log pages beyond which the commit checkpoints itself (about 40 MB).
    static let inlineThreshold: Int32 = 10_000

    /// How long the writer must have written nothing long before the log is copied.
    static let quietPeriod: Duration = .milliseconds(250)

    private let path: String
    private let busyTimeout: TimeInterval
    private let state = Mutex(State())

    /// Where the checkpointer stands.
    private struct State {
        /// When a commit last left a long log.
        var lastLongCommit = ContinuousClock.now
        /// A timer is waiting for the writes to pause.
        var waiting = false
        /// A checkpoint is queued or running, since this moment.
        var scheduled: ContinuousClock.Instant?
        /// The store was closed: nothing more is started.
        var closed = false
        /// The checkpoint's connection (opened on first use, used only by the queued job).
        var connection: SQLiteConnection?
    }

    /// Held while a checkpoint of this process runs, so that a `TRUNCATE` checkpoint (after a
    /// deletion) is not refused for it.
    private let running = NSLock()

    init(path: String, busyTimeout: TimeInterval) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    /// Installs the commit hook on the write connection, replacing SQLite's automatic checkpoint.
    func watch(_ writer: SQLiteConnection) {
        writer.onCommit(Unmanaged.passUnretained(self).toOpaque()) { context, db, name, frames in
            if frames >= WALCheckpointer.inlineThreshold {
                // SQLite's own hook does this: a checkpoint from inside the commit.
                sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                return SQLITE_OK
            }
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames)
            return SQLITE_OK
        }
    }

    /// Called inside each commit with the log's length in pages.
    private func committed(frames: Int32) {
        guard frames >= Self.threshold else { return }
        let arm = state.withLock { s -> Bool in
            s.lastLongCommit = .now
            if s.waiting || s.scheduled != nil || s.closed { return false }
            s.waiting = true
            return true
        }
        if arm { wait(Self.quietPeriod) }
    }

    /// Runs `body` while no checkpoint of this process runs (nor starts).
    func withoutCheckpoints<T>(_ body: () throws -> T) rethrows -> T {
        running.lock()
        defer { running.unlock() }
        return try body()
    }

    /// The store is closing: no checkpoint starts after this, and the connection goes.
    func close() {
        // A checkpoint still running holds its own reference; the connection closes after it.
        state.withLock { s in
            s.closed = true
            s.connection = nil
        }
    }

    /// Checks again after `delay`: a later long commit pushes the checkpoint back.
    private func wait(_ delay: Duration) {
        let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds))) { [self] in
            let next = state.withLock { s -> Duration?? in
                if s.closed {
                    s.waiting = false
                    return .some(nil)
                }
                let left = Self.remainingQuiet(since: s.lastLongCommit, now: .now)
                if left == nil {
                    s.waiting = false
                    s.scheduled = .now
                    return nil
                }
                return .some(left)
            }
            switch next {
            case .none: checkpoint()
            case .some(.some(let remaining)): wait(remaining)
            case .some(.none): break
            }
        }
    }

    /// How much longer the writes must pause before a checkpoint; `nil`: long enough already.
    static func remainingQuiet(since last: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Duration? {
        let quiet = last.duration(to: now)
        return quiet >= quietPeriod ? nil : quietPeriod - quiet
    }

    private func checkpoint() {
        let taken = IdleWork.enqueue { [self] in
            withoutCheckpoints {
                let connection = state.withLock { s -> SQLiteConnection? in
                    if s.closed { return nil }
                    if s.connection == nil { s.connection = try? SQLiteConnection(path: path, busyTimeout: busyTimeout, create: false) }
                    return s.connection
                }
                // A failure (a reader holding an old snapshot, a full disk) leaves the log for the next try.
                connection?.checkpointPassive()
            }
            finished()
        }
        // Refused (the idle thread is behind): the next long commit tries again.
        if !taken { finished() }
    }

    /// A checkpoint ended (or was refused): long commits made meanwhile wrote past what it
    /// copied, so they start the wait again.
    private func finished() {
        let again = state.withLock { s -> Bool in
            let since = s.scheduled
            s.scheduled = nil
            guard let since, s.lastLongCommit > since, !s.waiting, !s.closed else { return false }
            s.waiting = true
            return true
        }
        if again { wait(Self.quietPeriod) }
    }
}
