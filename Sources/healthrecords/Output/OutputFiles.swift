import Foundation
import HealthStoreCore

/// Writes several output files so that either all of them appear or none do.
///
/// Each file is written next to its destination under a temporary name, then all are renamed
/// into place; if anything fails, the temporary files are removed and nothing is left half-written.
struct OutputFiles {
    private var pending: [(temporary: String, final: String)] = []

    /// Stages one file.
    mutating func add(_ data: Data, to path: String) throws(CommandFailure) {
        let dir = (path as NSString).deletingLastPathComponent
        let temp = (dir.isEmpty ? "." : dir) + "/.\((path as NSString).lastPathComponent).\(UUID().uuidString).tmp"
        guard OwnerOnlyFiles.writeNew(data, to: temp) else {
            discard()
            throw .usage("cannot write \(path)")
        }
        pending.append((temp, path))
    }

    /// Renames every staged file into place.
    mutating func commit() throws(CommandFailure) {
        for (k, p) in pending.enumerated() where rename(p.temporary, p.final) != 0 {
            // Undo: a partial set of outputs is worse than none.
            for done in pending[..<k] { unlink(done.final) }
            discard()
            throw .usage("cannot write \(p.final)")
        }
        pending = []
    }

    /// Removes every staged file.
    mutating func discard() {
        for p in pending { unlink(p.temporary) }
        pending = []
    }
}
