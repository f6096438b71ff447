import CSQLite
import Dispatch
import Foundation
import Synchronization

/// Moves the write-ahead log into the database file on a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that takes the log past 1,000 pages:
/// a large import (a provider's 5 MB download) would wait for the copy and its two fsyncs before
/// its commit returns. The writer instead reports each commit's log length here, and a long log
/// is checkpointed beside the next writes (`PASSIVE`: it never blocks a reader or the writer).
/// A process that exits first leaves the log as it is, which is safe: SQLite reads it on the
/// next open, and the next long commit checkpoints it. Deletions still empty the log at once
/// (``SQLiteDatabase/scrub(vacuum:)``).
final class WALCheckpointer: Sendable {
    /// Log pages after which a checkpoint is started (SQLite's own default threshold).
    static let threshold: Int32 = 1000

    private let path: String
    private let busyTimeout: TimeInterval
    private let queue = DispatchQueue(label: "healthrecords.sqlite.checkpoint", qos: .utility)
    /// Whether a checkpoint is queued or running, and its connection (opened on first use,
    /// used only on `queue`).
    private let state = Mutex<(scheduled: Bool, connection: SQLiteConnection?)>((false, nil))

    init(path: String, busyTimeout: TimeInterval) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    /// Installs the commit hook on the write connection, replacing SQLite's automatic checkpoint.
    func watch(_ writer: SQLiteConnection) {
        writer.onCommit(Unmanaged.passUnretained(self).toOpaque()) { context, _, _, frames in
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
        queue.async { [self] in
            let connection = state.withLock { s -> SQLiteConnection? in
                if s.connection == nil { s.connection = try? SQLiteConnection(path: path, busyTimeout: busyTimeout) }
                return s.connection
            }
            // A failure (a reader holding an old snapshot, a full disk) leaves the log for the next try.
            connection?.checkpointPassive()
            state.withLock { $0.scheduled = false }
        }
    }

    /// Waits for a checkpoint queued or running (tests, and before closing).
    func wait() { queue.sync {} }
}
