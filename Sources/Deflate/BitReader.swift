/// An LSB-first bit reader over a byte buffer with a 64-bit bit buffer.
///
/// Away from the end of the input it refills a whole word at a time (branch-free, as libdeflate
/// does). Near the end it refills a byte at a time and, past the end, with zero bytes it counts
/// (`overread`): reading them is harmless, consuming them means the stream is truncated.
///
/// Bits of `buffer` above `count` are either zero or the true next bits of the input, so
/// OR-ing a byte in again is harmless.
struct BitReader {
    let start: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    /// The next byte not yet (fully) in `buffer`.
    var next: UnsafePointer<UInt8>
    var buffer: UInt64 = 0
    /// Valid bits in `buffer`.
    var count: UInt64 = 0
    /// Zero bytes appended past the end of the input.
    var overread: UInt64 = 0

    init(_ start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.end = start + count
        self.next = start
    }

    /// Bytes left after `next`.
    @inline(__always) var available: Int { end - next }

    /// Refills to at least 56 bits; needs 8 readable bytes at `next`.
    @inline(__always)
    mutating func refillWord() {
        buffer |= UnsafeRawPointer(next).loadUnaligned(as: UInt64.self).littleEndian &<< count
        next += Int(truncatingIfNeeded: (63 &- count) &>> 3)
        count |= 56
    }

    /// Refills to at least 57 bits a byte at a time, adding zero bytes past the end. Throws
    /// `.truncated` once a zero byte has certainly been consumed.
    @inline(__always)
    mutating func refillBytes() throws(InflateError) {
        while count <= 56 {
            if next < end {
                buffer |= UInt64(next.pointee) &<< count
                next += 1
            } else {
                // 64 zero bits added and at most 56 left: some were consumed.
                if overread >= 8 { throw .truncated }
                overread &+= 1
            }
            count &+= 8
        }
    }

    /// Makes sure at least `n` bits (n ≤ 56) are in the buffer.
    @inline(__always)
    mutating func ensure(_ n: UInt64) throws(InflateError) {
        if count < n {
            if available >= 8 { refillWord() } else { try refillBytes() }
        }
    }

    /// The low `n` bits, not consumed.
    @inline(__always) func peek(_ n: UInt64) -> UInt64 { buffer & (UInt64(1) &<< n &- 1) }

    @inline(__always)
    mutating func consume(_ n: UInt64) {
        buffer &>>= n
        count &-= n
    }

    /// Reads and consumes `n` bits (the caller has ensured them).
    @inline(__always)
    mutating func take(_ n: UInt64) -> UInt64 {
        let v = peek(n)
        consume(n)
        return v
    }

    /// Whether bits past the end of the input have been consumed.
    @inline(__always) var consumedPastEnd: Bool { count < overread &* 8 }

    /// Input bits consumed so far (meaningful when `consumedPastEnd` is false).
    var consumedBits: Int {
        (next - start) * 8 - Int(count) + Int(overread) * 8
    }

    /// Drops the bits up to the next byte boundary and hands the whole bytes still in the
    /// buffer back to the input, so byte-aligned data (stored blocks, trailers) can be read
    /// directly at `next`.
    mutating func alignToByte() throws(InflateError) {
        consume(count & 7)
        let buffered = Int(count >> 3) - Int(overread)
        guard buffered >= 0 else { throw .truncated }
        next -= buffered
        buffer = 0
        count = 0
        overread = 0
    }
}
