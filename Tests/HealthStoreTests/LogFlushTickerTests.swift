import Foundation
import Synchronization
import Testing

@testable import HealthStoreCore

/// The shared clock of log batches: flushes registered within one delay run together once, at
/// most the delay after the first; a flush registered after a tick waits for the next.
@Suite struct LogFlushTickerTests {
    /// When each flush ran, by its number.
    final class Runs: Sendable {
        private let times = Mutex<[Int: [ContinuousClock.Instant]]>([:])
        func ran(_ n: Int) { times.withLock { $0[n, default: []].append(.now) } }
        var all: [Int: [ContinuousClock.Instant]] { times.withLock { $0 } }
    }

    @Test func flushesRegisteredWithinADelayRunTogetherOnce() async throws {
        let ticker = LogFlushTicker(delay: .milliseconds(200))
        let runs = Runs()
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(n))
                    ticker.schedule { runs.ran(n) }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(600))
        let first = runs.all
        #expect(first.count == 40 && first.values.allSatisfy { $0.count == 1 }, "\(first.mapValues(\.count))")
        let times = first.values.flatMap { $0 }
        let earliest = try #require(times.min()), latest = try #require(times.max())
        // One tick ran them all: not before the delay, and together.
        #expect(earliest - started >= .milliseconds(200))
        #expect(latest - earliest < .milliseconds(100), "\(latest - earliest)")

        // After the tick: the next flush waits a delay of its own, and runs once.
        let again = ContinuousClock.now
        let late = Runs()
        ticker.schedule { late.ran(0) }
        try await Task.sleep(for: .milliseconds(500))
        let lateRuns = late.all[0] ?? []
        #expect(lateRuns.count == 1)
        #expect(try #require(lateRuns.first) - again >= .milliseconds(200))
    }
}
