import Foundation
import ProviderSync
import Testing

/// The turns a server for many people gives its background syncs: never more at once than the
/// limit, and a freed turn goes to the next person in rotation, so one person's long queue
/// does not keep another waiting behind all of it.
@Suite struct FairTurnsTests {
    actor Log {
        var entries: [String] = []
        var running = 0
        var most = 0
        func start(_ name: String) {
            entries.append(name)
            running += 1
            most = max(most, running)
        }
        func end() { running -= 1 }
    }

    /// Queues one job and waits until it is waiting (so the order of queuing is known).
    static func queue(_ group: inout TaskGroup<Void>, _ turns: FairTurns, _ person: String, _ name: String, _ log: Log, waiting: Int) async {
        group.addTask { await turns.run(for: person) { await log.start(name); await log.end() } }
        while await turns.waitingCount < waiting { await Task.yield() }
    }

    @Test func aFreedTurnGoesToTheNextPersonInRotation() async {
        let turns = FairTurns(limit: 1)
        let log = Log()
        let (gate, open) = AsyncStream<Void>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await turns.run(for: "ana") {
                    await log.start("ana 1")
                    for await _ in gate { break }
                    await log.end()
                }
            }
            while await log.entries.isEmpty { await Task.yield() }
            // Ana queues three more while her first runs; then Ben queues two.
            for n in 2...4 { await Self.queue(&group, turns, "ana", "ana \(n)", log, waiting: n - 1) }
            for n in 1...2 { await Self.queue(&group, turns, "ben", "ben \(n)", log, waiting: 3 + n) }
            open.yield()
            open.finish()
        }
        #expect(await log.entries == ["ana 1", "ana 2", "ben 1", "ana 3", "ben 2", "ana 4"])
        #expect(await log.most == 1)
    }

    @Test func neverMoreThanTheLimitAtOnce() async {
        let turns = FairTurns(limit: 2)
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                group.addTask {
                    await turns.run(for: "p\(n % 5)") {
                        await log.start("p\(n % 5)")
                        try? await Task.sleep(for: .milliseconds(2))
                        await log.end()
                    }
                }
            }
        }
        #expect(await log.entries.count == 40)
        #expect(await log.most == 2)
        #expect(await turns.waitingCount == 0)
    }
}
