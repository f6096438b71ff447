/// Where inflated bytes go: first the caller's buffer (so a good size guess costs no copy),
/// then, if that fills up, memory of our own that doubles, never beyond the limit.
///
/// Every buffer has `slack` bytes past its room: the Huffman loop decodes while the next byte is
/// within the room, and one iteration writes at most `slack` bytes (so it never checks a
/// write); the output is checked against the limit when the loop stops.
struct OutputBuffer {
    /// Bytes past the room that one fast-loop iteration may write: three literal entries
    /// (6 bytes and a spare) and a 258-byte match written in 8-byte words (264).
    static let slack = 280

    /// The first byte of output (the history that matches copy from).
    private(set) var start: UnsafeMutablePointer<UInt8>
    /// One past the room: `start + min(capacity, limit)`; the memory runs `slack` bytes further.
    private(set) var end: UnsafeMutablePointer<UInt8>
    /// Whether `start` was allocated here (and must be freed here).
    private(set) var isOwned = false
    let limit: Int

    /// Uses `buffer`, of `physicalCapacity` bytes of which the last `slack` are the slack.
    init(borrowing buffer: UnsafeMutablePointer<UInt8>, physicalCapacity: Int, limit: Int) {
        start = buffer
        end = buffer + min(physicalCapacity - Self.slack, limit)
        self.limit = limit
    }

    /// Makes room for at least `needed` more bytes after `next` (which may already be past the
    /// room, in the slack), moving the data and `next`; the room at least doubles, up to the
    /// limit. Throws `.outputTooLarge` if the output would pass the limit.
    mutating func grow(next: inout UnsafeMutablePointer<UInt8>, needed: Int) throws(InflateError) {
        let used = next - start
        guard used <= limit, needed <= limit - used else { throw .outputTooLarge(limit: limit) }
        let capacity = end - start
        let newCapacity = min(limit, max(used + needed, capacity * 2, 4096))
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + Self.slack)
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
