import CSQLite
import Foundation
import HealthStoreCore
import Synchronization

/// Moves the write-ahead log into the database file on the idle thread (``IdleWork``).
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the log past 1,000 pages:
/// a large import (a provider's 5 MB download) would wait for the copy and its two fsyncs before
/// its commit returns. The writer instead reports each commit's log length here, and a long log
/// is checkpointed beside the next writes (`PASSIVE`: it never blocks a reader or the writer),
/// at idle priority, so it takes only cores nothing else wants, such as while a sync waits for
/// its next page. A log that still grows past ``inlineThreshold`` (a machine busy for long) is
/// checkpointed inside the commit, as SQLite itself would, so it stays bounded. A process that
/// exits first leaves the log as it is, which is safe: SQLite reads it on the next open, and
/// the next long commit checkpoints it. Deletions still empty the log at once
/// (``SQLiteDatabase/scrub(vacuum:)``).
final class WALCheckpointer: Sendable {
    /// Log pages after which a checkpoint is started (SQLite's own default threshold).
    static let threshold: Int32 = 1000
    /// Log pages beyond which the commit checkpoints itself (about 40 MB).
    static let inlineThreshold: Int32 = 10_000

    private let path: String
    private let busyTimeout: TimeInterval
    /// Whether a checkpoint is queued or running, and its connection (opened on first use,
    /// used only by the queued job).
    private let state = Mutex<(scheduled: Bool, connection: SQLiteConnection?)>((false, nil))

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
        let start = state.withLock { s -> Bool in
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
        guard start else { return }
        let taken = IdleWork.enqueue { [self] in
            let connection = state.withLock { s -> SQLiteConnection? in
                if s.connection == nil { s.connection = try? SQLiteConnection(path: path, busyTimeout: busyTimeout) }
                return s.connection
            }
            // A failure (a reader holding an old snapshot, a full disk) leaves the log for the next try.
            connection?.checkpointPassive()
            state.withLock { $0.scheduled = false }
        }
        // Refused (the idle thread is behind): the next long commit tries again.
        if !taken { state.withLock { $0.scheduled = false } }
    }


}
