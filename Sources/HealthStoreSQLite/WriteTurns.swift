import Synchronization

/// Hands the one write connection to one task at a time, first come first served, without
/// blocking a thread while waiting.
final class WriteTurns: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func take() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.busy {
                    s.waiting.append(turn)
                    return false
                }
                s.busy = true
                return true
            }
            if now { turn.resume() }
        }
    }

    func give() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty {
                s.busy = false
                return nil
            }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
