import CMalloc
import Foundation
import Hummingbird
import Synchronization

/// Why a request for one of many people could not be served.
public enum PeopleServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No person with that id is registered (or the id is not one).
    case unknownPerson(String)
    /// The person's store could not be opened (locked, unreachable…).
    case storeUnavailable(person: String, reason: String)

    public var description: String {
        switch self {
        case .unknownPerson(let id): "no person \(id) here"
        case .storeUnavailable(let id, let reason): "the store of \(id) cannot be opened: \(reason)"
        }
    }
}

/// The people whose stores are open in a server for many, each with the server that serves
/// them: opened when a request first needs them, closed when idle or when more than
/// `capacity` are open (least recently used first). Nothing of a person stays in memory once
/// closed: their sessions, tokens and everything else are in their store — except apps'
/// webhooks, which live in the server's memory. So a server holding a webhook is never closed
/// for being idle, and is the last to go when more than `capacity` are open (its webhooks then
/// end, as at a restart, and the app registers again).
final class PersonServers: Sendable {
    /// A person's open server: the routes over their store and the background work it runs.
    struct Open: Sendable {
        let server: HealthServer
        let responder: any HTTPResponder<HealthRequestContext>
        let services: Task<Void, Never>
    }

    private enum Slot {
        case opening(Task<Open, any Error>)
        case open(Open, lastUsed: ContinuousClock.Instant)
    }

    private let slots = Mutex<[String: Slot]>([:])
    private let make: @Sendable (String) async throws -> Open
    let capacity: Int

    init(capacity: Int, make: @escaping @Sendable (String) async throws -> Open) {
        self.capacity = max(1, capacity)
        self.make = make
    }

    /// How many people's servers are open now.
    var openCount: Int { slots.withLock { $0.values.count { if case .open = $0 { true } else { false } } } }

    /// The open server of a person, opening it (once, however many requests wait for it).
    func server(_ id: String) async throws -> Open {
        enum Next { case ready(Open), wait(Task<Open, any Error>) }
        let make = self.make
        let next: Next = slots.withLock { slots in
            switch slots[id] {
            case .open(let open, _):
                slots[id] = .open(open, lastUsed: .now)
                return .ready(open)
            case .opening(let task):
                return .wait(task)
            case nil:
                let task = Task { try await make(id) }
                slots[id] = .opening(task)
                return .wait(task)
            }
        }
        switch next {
        case .ready(let open): return open
        case .wait(let task):
            do {
                let open = try await task.value
                let evicted: [Open] = slots.withLock { slots in
                    if case .opening = slots[id] { slots[id] = .open(open, lastUsed: .now) }
                    return Self.overCapacity(&slots, capacity: capacity, keeping: id)
                }
                for old in evicted { await Self.close(old) }
                return open
            } catch {
                slots.withLock { slots in
                    if case .opening = slots[id] { slots[id] = nil }
                }
                throw error
            }
        }
    }

    /// Closes the servers nobody used for `idle`.
    func closeIdle(_ idle: Duration) async {
        let cutoff = ContinuousClock.now - idle
        let idleOnes: [Open] = slots.withLock { slots in
            var closed: [Open] = []
            for (id, slot) in slots {
                if case .open(let open, let lastUsed) = slot, lastUsed < cutoff, !open.server.holdsWebhooks {
                    closed.append(open)
                    slots[id] = nil
                }
            }
            return closed
        }
        for open in idleOnes { await Self.close(open) }
        // glibc keeps freed pages for the next allocation; an idle person should cost nothing.
        if !idleOnes.isEmpty { _ = healthrecords_malloc_trim() }
    }

    /// Closes the servers of people no longer among `registered` (removed by `people remove`,
    /// perhaps from another process): until then an open SQLite store would keep serving a
    /// file already unlinked. Their requests then find no such person.
    func closeRemoved(registered: Set<String>) async {
        let removed: [Open] = slots.withLock { slots in
            var closed: [Open] = []
            for (id, slot) in slots where !registered.contains(id) {
                if case .open(let open, _) = slot {
                    closed.append(open)
                    slots[id] = nil
                }
            }
            return closed
        }
        for open in removed { await Self.close(open) }
    }

    /// The ids of the people whose servers are open or opening.
    var openIDs: Set<String> { slots.withLock { Set($0.keys) } }

    /// Closes every open server (the application is stopping).
    func closeAll() async {
        let all: [Open] = slots.withLock { slots in
            let open = slots.values.compactMap { slot -> Open? in if case .open(let o, _) = slot { o } else { nil } }
            slots.removeAll()
            return open
        }
        for open in all { await Self.close(open) }
    }

    /// The servers to close so that at most `capacity` stay open, never `kept` (just opened for
    /// the request at hand).
    private static func overCapacity(_ slots: inout [String: Slot], capacity: Int, keeping kept: String) -> [Open] {
        let openCount = slots.values.count { if case .open = $0 { true } else { false } }
        guard openCount > capacity else { return [] }
        var open = slots.compactMap { id, slot -> (String, Open, ContinuousClock.Instant)? in
            if id != kept, case .open(let o, let used) = slot { (id, o, used) } else { nil }
        }
        // Servers without webhooks first, each group least recently used first.
        open.sort { ($0.1.server.holdsWebhooks ? 1 : 0, $0.2) < ($1.1.server.holdsWebhooks ? 1 : 0, $1.2) }
        return open.prefix(openCount - capacity).map { id, o, _ in
            slots[id] = nil
            return o
        }
    }

    /// Ends a person's background work (its services flush what they hold when cancelled);
    /// requests already inside the server finish with the references they hold.
    private static func close(_ open: Open) async {
        open.services.cancel()
        await open.services.value
    }
}
