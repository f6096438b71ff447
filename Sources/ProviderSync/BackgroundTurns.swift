/// Where a person's background job — a provider sync, a webhook delivery, a sweep of ended
/// share links — waits its turn among other people's (a server for many people shares one
/// ``FairTurns``); work without turns runs at once.
public protocol BackgroundTurns: Sendable {
    /// Runs `work` for `person` when it is their turn.
    func run<T: Sendable>(for person: String, _ work: @Sendable () async -> T) async -> T
}

/// Turns for background work shared by many people (a server for many): at most `limit` jobs
/// run at once, and a freed slot goes to the next person in rotation who has work waiting, so one
/// person's long queue of syncs never starves the others — each waiting person gets a turn before
/// anyone gets a second.
public actor FairTurns: BackgroundTurns {
    /// The most jobs running at once.
    public let limit: Int
    private var running = 0
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var rotation: [String] = []

    public init(limit: Int) { self.limit = max(1, limit) }

    public func run<T: Sendable>(for person: String, _ work: @Sendable () async -> T) async -> T {
        await acquire(person)
        let value = await work()
        release()
        return value
    }

    /// How many jobs wait, for tests and logs.
    public var waitingCount: Int { waiting.values.reduce(0) { $0 + $1.count } }

    private func acquire(_ person: String) async {
        if running < limit && rotation.isEmpty {
            running += 1
            return
        }
        await withCheckedContinuation { continuation in
            if waiting[person] == nil { rotation.append(person) }
            waiting[person, default: []].append(continuation)
        }
    }

    /// Hands the slot on: to the first person in rotation, who goes to the back if they have more.
    private func release() {
        guard !rotation.isEmpty else {
            running -= 1
            return
        }
        let next = rotation.removeFirst()
        var queue = waiting[next] ?? []
        let continuation = queue.removeFirst()
        if queue.isEmpty {
            waiting[next] = nil
        } else {
            waiting[next] = queue
            rotation.append(next)
        }
        continuation.resume()
    }
}
