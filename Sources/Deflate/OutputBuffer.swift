/// Where inflated bytes go: first the caller's buffer (so a good size guess costs no copy),
/// then, if that fills up, memory of our own that doubles, never beyond the limit.
struct OutputBuffer {
    /// The first byte of output (the history that matches copy from).
    private(set) var start: UnsafeMutablePointer<UInt8>
    /// One past the last byte that may be written: `start + min(capacity, limit)`.
    private(set) var end: UnsafeMutablePointer<UInt8>
    /// Whether `start` was allocated here (and must be freed here).
    private(set) var isOwned = false
    let limit: Int

    init(borrowing buffer: UnsafeMutablePointer<UInt8>, capacity: Int, limit: Int) {
        start = buffer
        end = buffer + min(capacity, limit)
        self.limit = limit
    }

    /// Makes room for at least `needed` more bytes after `next`, which moves with the data.
    /// Throws `.outputTooLarge` if that would pass the limit.
    mutating func grow(next: inout UnsafeMutablePointer<UInt8>, needed: Int) throws(InflateError) {
        let used = next - start
        guard needed <= limit - used else { throw .outputTooLarge(limit: limit) }
        let capacity = end - start
        let newCapacity = min(limit, max(used + needed, capacity * 2, 4096))
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        fresh.update(from: start, count: used)
        if isOwned { start.deallocate() }
        start = fresh
        end = fresh + newCapacity
        next = fresh + used
        isOwned = true
    }

    /// Frees owned memory.
    mutating func release() {
        if isOwned { start.deallocate() }
        isOwned = false
    }
}
