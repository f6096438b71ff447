/// Reads the input least significant bit first, refilling a 64-bit buffer.
struct DeflateBitReader {
    let data: UnsafeBufferPointer<UInt8>
    var position: Int
    var buffer: UInt64 = 0
    var count = 0
    /// Zero bits appended past the end so peeking near the end never reads out of bounds.
    var padding = 0

    init(_ data: UnsafeBufferPointer<UInt8>, start: Int) {
        self.data = data
        position = start
    }

    var byteOffset: Int { position - (count - padding) / 8 }

    @inline(__always)
    mutating func refill() {
        while count <= 56 {
            if position < data.count {
                buffer |= UInt64(data[position]) << UInt64(count)
                position += 1
            } else {
                padding += 8
                if padding > 64 { return }
            }
            count += 8
        }
    }

    @inline(__always)
    mutating func peek(_ n: Int) -> Int {
        if count < n { refill() }
        return Int(buffer & ((1 << UInt64(n)) - 1))
    }

    @inline(__always)
    mutating func consume(_ n: Int) throws(InflateError) {
        buffer >>= UInt64(n)
        count -= n
        if count < padding { throw .truncated(offset: data.count) }
    }

    @inline(__always)
    mutating func bits(_ n: Int) throws(InflateError) -> Int {
        if n == 0 { return 0 }
        let value = peek(n)
        try consume(n)
        return value
    }

    mutating func alignToByte() throws(InflateError) {
        try consume(count % 8)
    }

    /// Offset of the first whole byte not yet consumed.
    mutating func byteOffsetAfterAlign() -> Int {
        let unusedWholeBytes = (count - count % 8 - padding) / 8
        return position - Swift.max(0, unusedWholeBytes)
    }

    @inline(__always)
    mutating func decode(_ table: HuffmanTable) throws(InflateError) -> Int {
        let entry = Int(table.entries[peek(table.maxLength)])
        let length = entry & 15
        if length == 0 { throw .invalidSymbol(offset: byteOffset) }
        try consume(length)
        return entry >> 4
    }
}
