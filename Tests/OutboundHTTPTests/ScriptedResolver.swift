import NetworkAddresses
import OutboundHTTP
import Synchronization

/// Answers names from a script: each call for a name takes its next answer (the last one
/// repeats), so a test can make a name "move" between two lookups and count the lookups.
final class ScriptedResolver: HostResolver {
    private let state: Mutex<(answers: [String: [[IPAddress]]], calls: [String])>

    init(_ answers: [String: [[String]]]) {
        state = Mutex((answers.mapValues { $0.map { $0.map { IPAddress(literal: $0)! } } }, []))
    }

    /// Every name asked for, in order.
    var calls: [String] { state.withLock { $0.calls } }

    func addresses(of host: String, timeout: Duration) async throws(OutboundError) -> [IPAddress] {
        let answer: [IPAddress]? = state.withLock { s in
            s.calls.append(host)
            guard var list = s.answers[host], let first = list.first else { return nil }
            if list.count > 1 { list.removeFirst() }
            s.answers[host] = list
            return first
        }
        guard let answer else { throw .unresolvable(host: host) }
        return answer
    }
}
