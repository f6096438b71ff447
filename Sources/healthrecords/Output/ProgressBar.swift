import Foundation
import Synchronization

/// A one-line progress bar on standard error, drawn only when it is a terminal.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let lastDraw = Mutex<Date>(.distantPast)

    init() {
        enabled = isatty(STDERR_FILENO) != 0
    }

    func update(done: Int, total: Int, bytesDone: Int64, bytesTotal: Int64, label: String) {
        guard enabled else { return }
        let now = Date()
        let due = lastDraw.withLock { last -> Bool in
            guard now.timeIntervalSince(last) > 0.1 || done == total else { return false }
            last = now
            return true
        }
        guard due else { return }
        let fraction = bytesTotal > 0 ? Double(bytesDone) / Double(bytesTotal) : Double(done) / Double(max(total, 1))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let name = label.count > 30 ? "…" + label.suffix(29) : label
        let line = String(format: "\r[%@] %3d%% %d/%d files  %@", bar, Int(fraction * 100), done, total, name)
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }

    /// Whether standard error is a terminal (and the bar is drawn).
    var isTerminal: Bool { enabled }

    /// Draws one line of free text in the bar's place (at most ten times a second).
    func status(_ text: String) {
        guard enabled else { return }
        let now = Date()
        let due = lastDraw.withLock { last -> Bool in
            guard now.timeIntervalSince(last) > 0.1 else { return false }
            last = now
            return true
        }
        guard due else { return }
        FileHandle.standardError.write(Data(("\r" + text + "\u{1B}[K").utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
