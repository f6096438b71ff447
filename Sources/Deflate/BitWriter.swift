/// Packs bits least significant first, as DEFLATE sends them.
struct BitWriter {
    private var bytes: [UInt8]
    /// Pending bits, the oldest in the lowest positions; fewer than 32 between writes.
    private var buffer: UInt64 = 0
    private var count = 0

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Bits written so far (for stored blocks, whose padding depends on it).
    var bitCount: Int { bytes.count * 8 + count }

    /// Appends the low `bits` bits of `value` (at most 32; higher bits must be zero).
    @inline(__always)
    mutating func write(_ value: UInt32, bits: Int) {
        buffer |= UInt64(value) << UInt64(count)
        count += bits
        if count >= 32 {
            let word = UInt32(truncatingIfNeeded: buffer)
            bytes.append(UInt8(truncatingIfNeeded: word))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
            bytes.append(UInt8(truncatingIfNeeded: word >> 16))
            bytes.append(UInt8(truncatingIfNeeded: word >> 24))
            buffer >>= 32
            count -= 32
        }
    }

    /// Pads with zero bits to the next byte boundary and moves the whole bytes out.
    mutating func alignToByte() {
        count = (count + 7) & ~7
        while count > 0 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count -= 8
        }
        count = 0
    }

    /// Appends bytes as they are; the writer must be at a byte boundary (after `alignToByte()`).
    mutating func appendAligned(_ data: UnsafeBufferPointer<UInt8>) {
        precondition(count == 0, "appendAligned needs a byte boundary")
        bytes.append(contentsOf: data)
    }

    /// The stream, its last byte padded with zero bits.
    mutating func finish() -> [UInt8] {
        alignToByte()
        return bytes
    }
}
