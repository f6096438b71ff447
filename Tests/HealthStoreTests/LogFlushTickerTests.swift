import Foundation
import Synchronization
import Testing

@testable import HealthStoreCore

/// The shared clock of log batches: flushes registered within one delay run together, once
/// each, in one tick, no sooner than the delay; a flush registered after that tick runs in the
/// next one, a delay later. Nothing here depends on how busy the machine is: the test waits for the
/// flushes and counts ticks rather than timing them.
@Suite(.timeLimit(.minutes(5))) struct LogFlushTickerTests {
    /// When each flush ran, by its number.
    final class Runs: Sendable {
        private let times = Mutex<[Int: [ContinuousClock.Instant]]>([:])
        func ran(_ n: Int) { times.withLock { $0[n, default: []].append(.now) } }
        var all: [Int: [ContinuousClock.Instant]] { times.withLock { $0 } }

        /// Waits until `count` flushes ran. No deadline of its own: in `.ci/run` the whole suite
        /// once kept the concurrency pool from this test's ticker for over a minute (the test's
        /// time limit ends a ticker that never ticks).
        func wait(for count: Int) async throws {
            while all.count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    @Test func flushesRegisteredWithinADelayRunTogetherOnce() async throws {
        let ticker = LogFlushTicker(delay: .milliseconds(200))
        let runs = Runs()
        let registered = ContinuousClock.now
        for n in 0..<40 { ticker.schedule { runs.ran(n) } }
        try await runs.wait(for: 40)
        let first = runs.all
        #expect(first.count == 40 && first.values.allSatisfy { $0.count == 1 }, "\(first.mapValues(\.count))")
        #expect(ticker.ticks == 1)
        let earliest = try #require(first.values.flatMap { $0 }.min())
        #expect(earliest - registered >= .milliseconds(200))

        // After that tick: the next flush runs in the next tick, a delay after the first.
        let late = Runs()
        ticker.schedule { late.ran(0) }
        try await late.wait(for: 1)
        let lateRuns = late.all[0] ?? []
        #expect(lateRuns.count == 1)
        #expect(try #require(lateRuns.first) - earliest >= .milliseconds(200))
        #expect(ticker.ticks == 2)
        #expect(first.values.allSatisfy { $0.count == 1 })
    }
}
