import Synchronization

/// A continuation that the first of several racers (the answer, the timer, cancellation)
/// resumes; the others find it gone. A racer that wins before the continuation is stored
/// leaves its value, and storing the continuation resumes it at once.
final class ResumeOnce<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, Never>?)
        case early(Value)
        case done
    }

    private let state = Mutex<State>(.waiting(nil))

    func set(_ c: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { s in
            switch s {
            case .early(let v):
                s = .done
                return v
            default:
                s = .waiting(c)
                return nil
            }
        }
        if let early { c.resume(returning: early) }
    }

    func resume(_ value: Value) {
        let c: CheckedContinuation<Value, Never>? = state.withLock { s in
            switch s {
            case .waiting(let c?):
                s = .done
                return c
            case .waiting(nil):
                s = .early(value)
                return nil
            case .early, .done:
                return nil
            }
        }
        c?.resume(returning: value)
    }
}
