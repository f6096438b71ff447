import Dispatch
import Foundation

/// The results of a numbered piece of work (a page's entries made into resources), done in
/// order, in chunks, by whichever thread takes the next chunk first: the consumer, as it asks
/// for results, and helper threads started with the work.
///
/// Every thread works at the front, so the consumer (the store's writer, through its feed)
/// waits at most for a chunk already under way, never for the early entries while a helper
/// works on the page's far end. On two cores that matters: a helper that runs ahead of the
/// writer takes CPU the writer needs and gives it nothing it can use yet.
final class InOrderWork<Value: Sendable>: @unchecked Sendable {
    // `results[i]` is written only by the thread that took its chunk, before that chunk is
    // marked done under `condition`; it is read only after `done` is seen under the same lock.
    private let count: Int
    private let make: @Sendable (Int) -> Value
    private let results: UnsafeMutableBufferPointer<Value?>
    private let condition = NSCondition()
    private var taken = 0
    private var stopped = false
    private var done: [Bool]

    /// Entries per chunk: small enough that the consumer rarely waits long, large enough that
    /// the lock is nothing beside the work.
    static var chunkSize: Int { 16 }

    /// - Parameters:
    ///   - count: how many results.
    ///   - helpers: threads that start working at once (0: the consumer does everything).
    ///   - make: result `i`; called once per index, on any thread.
    init(count: Int, helpers: Int, make: @escaping @Sendable (Int) -> Value) {
        self.count = count
        self.make = make
        results = .allocate(capacity: max(count, 1))
        results.initialize(repeating: nil)
        done = Array(repeating: false, count: (count + Self.chunkSize - 1) / Self.chunkSize)
        for _ in 0..<helpers {
            // The job holds the work until it runs out of chunks, whatever the consumer does.
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                while let k = take() { run(k) }
            }
        }
    }

    deinit {
        results.deinitialize()
        results.deallocate()
    }

    /// Result `i`: made here if nobody has taken its chunk, else waited for.
    func value(at i: Int) -> Value {
        precondition(i >= 0 && i < count, "result \(i) of \(count)")
        let c = i / Self.chunkSize
        condition.lock()
        precondition(!stopped, "result \(i) asked for after stop()")
        while !done[c] {
            // Chunk `c` is not done: make it if nobody has taken it; while a helper makes it,
            // make the next free chunk rather than sleep (a consumer that only waited would
            // leave every chunk to the helper, which always asks first).
            if taken < done.count {
                let k = taken
                taken += 1
                condition.unlock()
                run(k)
                condition.lock()
            } else {
                condition.wait()
            }
        }
        condition.unlock()
        return results[i]!
    }

    /// Lets the helpers stop after the chunks they hold: the consumer wants nothing more.
    func stop() {
        condition.lock()
        taken = done.count
        stopped = true
        condition.unlock()
    }

    private func take() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard taken < done.count else { return nil }
        taken += 1
        return taken - 1
    }

    private func run(_ k: Int) {
        for i in k * Self.chunkSize..<min(count, (k + 1) * Self.chunkSize) { results[i] = make(i) }
        condition.lock()
        done[k] = true
        condition.broadcast()
        condition.unlock()
    }
}
