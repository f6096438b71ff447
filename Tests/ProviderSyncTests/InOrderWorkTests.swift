import Foundation
import Synchronization
import Testing

@testable import ProviderSync

/// A page's entries are made by the writer's feed and helper threads together, chunk by chunk
/// from the front: every result once, in order, whoever made it.
@Suite struct InOrderWorkTests {
    /// Counts the calls of `make` per index.
    final class Calls: Sendable {
        let counts: Mutex<[Int: Int]> = Mutex([:])
        let threads: Mutex<Set<String>> = Mutex([])
        func record(_ i: Int) {
            counts.withLock { $0[i, default: 0] += 1 }
            let name = Thread.isMainThread ? "main" : "\(pthread_self())"
            _ = threads.withLock { $0.insert(name) }
        }
        var total: Int { counts.withLock { $0.values.reduce(0, +) } }
    }

    @Test(arguments: [0, 1, 2, 3])
    func everyResultComesOnceAndInOrder(helpers: Int) {
        let size = InOrderWork<Int>.chunkSize
        for count in [0, 1, size - 1, size, size + 1, 40 * size + 3] {
            let calls = Calls()
            let work = InOrderWork<String>(count: count, helpers: helpers) { i in
                calls.record(i)
                return "entry \(i)"
            }
            let read = (0..<count).map { work.value(at: $0) }
            #expect(read == (0..<count).map { "entry \($0)" })
            // Read again: the stored result, not a second call.
            if count > 0 { #expect(work.value(at: count - 1) == "entry \(count - 1)") }
            #expect(calls.counts.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 1) }))
        }
    }

    /// With a helper, entries are made on more than one thread while the consumer reads.
    @Test func aHelperMakesPartOfThePage() {
        let calls = Calls()
        let count = 64 * InOrderWork<Int>.chunkSize
        let work = InOrderWork<Int>(count: count, helpers: 1) { i in
            calls.record(i)
            usleep(50)
            return i * 2
        }
        var sum = 0
        for i in 0..<count { sum += work.value(at: i) }
        #expect(sum == count * (count - 1))
        #expect(calls.total == count)
        #expect(calls.threads.withLock { $0.count } >= 2)
    }

    /// A consumer that gives up (a failed import) stops the helpers after the chunk they hold,
    /// and the work is freed once they let go of it.
    @Test func stoppingLetsHelpersGoWithoutMakingTheRest() async throws {
        let calls = Calls()
        let count = 1_000
        var work: InOrderWork<Int>? = InOrderWork<Int>(count: count, helpers: 2) { i in
            calls.record(i)
            usleep(1_000)
            return i
        }
        #expect(work?.value(at: 0) == 0)
        weak let gone = work
        work?.stop()
        work = nil
        for _ in 0..<500 where gone != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gone == nil)
        let made = calls.total
        #expect(made < count / 2)
        // Nothing is made after the helpers let go.
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.total == made)
    }
}
