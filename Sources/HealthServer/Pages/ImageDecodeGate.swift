import Foundation

/// At most a few images are decoded at once in this process, and only a few more uploads may
/// wait for their turn: reading a QR code from a large image takes tens of MiB and a core for
/// up to seconds, so a burst of uploads would otherwise multiply both.
///
/// Decodes run on threads of the gate's own, one per slot, never on the server's task threads
/// (a decode would hold one for seconds) nor on a shared pool: glibc gives each thread that
/// allocates a malloc arena and keeps what a large decode freed in it, so decodes spread over
/// many pool threads would each leave their peak behind. On a few threads of its own the memory
/// a decode needs is taken once and reused.
actor ImageDecodeGate {
    /// Why an image was not read.
    enum Refusal: Error {
        /// Every slot is taken and the queue is full.
        case busy
    }

    /// The process's gate: one decode per two cores (at least one, at most two), eight waiting.
    static let shared = ImageDecodeGate(slots: max(1, min(2, ProcessInfoCores.count / 2)), maxWaiting: 8)

    private let slots: Int
    private let maxWaiting: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private nonisolated let threads: DecodeThreads

    init(slots: Int, maxWaiting: Int) {
        self.slots = slots
        self.maxWaiting = maxWaiting
        threads = DecodeThreads(count: slots)
    }

    /// Runs `body` on a thread of its own (not the server's task threads) when a slot is free.
    ///
    /// - Throws: ``Refusal/busy`` at once when all slots are taken and `maxWaiting` wait already.
    nonisolated func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await acquire()
        let result = await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            threads.submit { done.resume(returning: body()) }
        }
        await release()
        return result
    }

    private func acquire() async throws {
        if running < slots {
            running += 1
            return
        }
        guard waiting.count < maxWaiting else { throw Refusal.busy }
        // The slot is handed over by `release`, so `running` stays counted.
        await withCheckedContinuation { waiting.append($0) }
    }

    /// How many decodes run and wait now (for tests).
    var load: (running: Int, waiting: Int) { (running, waiting.count) }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// A few threads that run submitted jobs in turn, for the process's life (started on the
/// first job).
final class DecodeThreads: @unchecked Sendable {
    // `jobs` and `started` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private let count: Int

    init(count: Int) { self.count = count }

    /// Runs `job` on one of the threads.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        if !started {
            started = true
            for i in 0..<count {
                let thread = Thread { [self] in loop() }
                thread.name = "image-decode-\(i)"
                thread.start()
            }
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// The machine's active cores.
enum ProcessInfoCores {
    static let count = ProcessInfo.processInfo.activeProcessorCount
}
