/// Reads the entropy-coded data of one scan most-significant bit first, removing the
/// stuffed zero after every `FF` data byte and stopping at the first marker.
///
/// Past a marker (or the end of the file) it supplies zero bits, as libjpeg does, but counts
/// them: a scan that needs any of them is corrupt or truncated, and `checkOverrun()` says so,
/// so a cut-off photo is an error rather than a silently gray lower half.
struct JPEGBitReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to load; stops at the `FF` of a marker.
    private(set) var position: Int
    /// Unread bits, left-aligned.
    private var buffer: UInt64 = 0
    /// How many of `buffer`'s top bits are valid (real or padding).
    private var bitCount = 0
    /// How many of those are zero padding supplied past a marker or the end of data.
    private var paddedBits = 0
    /// Set once a marker or the end of data is reached; nothing more is loaded until `restart`.
    private var exhausted = false

    init(bytes: UnsafeBufferPointer<UInt8>, position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// Loads whole bytes until at least 57 bits are buffered.
    @inline(__always)
    private mutating func refill() {
        while bitCount <= 56 {
            if exhausted {
                // Zero padding; counted so a read of it can be reported.
                bitCount += 8
                paddedBits += 8
                continue
            }
            guard position < bytes.count else { exhausted = true; continue }
            let byte = bytes[position]
            if byte == 0xFF {
                // FF 00 is a stuffed data byte FF; FF followed by anything else starts a marker.
                guard position + 1 < bytes.count, bytes[position + 1] == 0 else { exhausted = true; continue }
                position += 2
            } else {
                position += 1
            }
            buffer |= UInt64(byte) << UInt64(56 - bitCount)
            bitCount += 8
        }
    }

    /// The next `count` (1...16) bits without consuming them.
    @inline(__always)
    mutating func peek(_ count: Int) -> Int {
        if bitCount < count { refill() }
        return Int(truncatingIfNeeded: buffer >> UInt64(64 - count))
    }

    /// Drops `count` bits already seen through `peek`.
    @inline(__always)
    mutating func skip(_ count: Int) {
        buffer <<= UInt64(count)
        bitCount -= count
    }

    /// The next `count` (0...16) bits as an unsigned value.
    @inline(__always)
    mutating func bits(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        let value = peek(count)
        skip(count)
        return value
    }

    /// One bit.
    @inline(__always)
    mutating func bit() -> Int { bits(1) }

    /// T.81 F.2.2.1 RECEIVE then EXTEND: `size` (1...16) bits read as a signed magnitude.
    @inline(__always)
    mutating func receiveExtend(_ size: Int) -> Int {
        let value = bits(size)
        // A leading 0 bit marks a negative value: v − (2^size − 1).
        return value < (1 << (size - 1)) ? value - (1 << size) + 1 : value
    }

    /// Decodes one Huffman symbol.
    @inline(__always)
    mutating func decode(_ table: JPEGHuffmanLookup) throws(JPEGError) -> Int {
        let entry = table.fast[peek(JPEGHuffmanTable.fastBits)]
        if entry != 0 {
            skip(Int(entry >> 8))
            return Int(entry & 0xFF)
        }
        return try decodeLong(table)
    }

    /// Codes longer than the fast table: canonical codes compare in order of length.
    @inline(never)
    private mutating func decodeLong(_ table: JPEGHuffmanLookup) throws(JPEGError) -> Int {
        let code16 = peek(16)
        var length = JPEGHuffmanTable.fastBits + 1
        while length <= 16 {
            let code = code16 >> (16 - length)
            if code <= Int(table.maxCode[length]) {
                skip(length)
                let index = code + Int(table.valueOffset[length])
                guard index >= 0, index < table.valueCount else { throw .invalidHuffmanCode(offset: position) }
                return Int(table.values[index])
            }
            length += 1
        }
        throw .invalidHuffmanCode(offset: position)
    }

    /// Throws when the scan has used padding bits, i.e. its data ran out before its blocks did.
    @inline(__always)
    func checkOverrun() throws(JPEGError) {
        if bitCount < paddedBits { throw overrunError }
    }

    private var overrunError: JPEGError {
        position >= bytes.count ? .truncated(offset: bytes.count) : .scanDataExhausted(offset: position)
    }

    /// `error`, unless the padding past the data's end was read: then the real cause, the data
    /// ending early (zero bits decode to nonsense before an MCU boundary notices).
    func explain(_ error: JPEGError) -> JPEGError {
        bitCount < paddedBits ? overrunError : error
    }

    /// Consumes the restart marker RST`expected` that must follow the current interval,
    /// discarding the interval's final padding bits (and any stray bytes, as libjpeg does).
    mutating func restart(expected: Int) throws(JPEGError) {
        try checkOverrun()
        buffer = 0
        bitCount = 0
        paddedBits = 0
        exhausted = false
        guard let (marker, offset) = Self.nextMarker(in: bytes, from: position, skippingRestarts: false) else {
            throw .truncated(offset: bytes.count)
        }
        guard marker == JPEGMarker.rst0 + UInt8(expected) else {
            throw .badRestartMarker(expected: expected, found: marker, offset: offset)
        }
        position = offset + 2
    }

    /// The offset of the first marker at or after `position`, where the main marker loop resumes.
    func endOfScan() throws(JPEGError) -> Int {
        try checkOverrun()
        guard let (_, offset) = Self.nextMarker(in: bytes, from: position, skippingRestarts: true) else {
            throw .truncated(offset: bytes.count)
        }
        return offset
    }

    /// Finds the next marker `FF xx` (xx not 00 or FF) at or after `start`, optionally passing
    /// over RSTn markers; returns its code and the offset of its last fill `FF`, or nil at the end of data.
    static func nextMarker(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, skippingRestarts: Bool) -> (UInt8, Int)? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] != 0xFF { index += 1; continue }
            let code = bytes[index + 1]
            if code == 0 || code == 0xFF || (skippingRestarts && JPEGMarker.isRestart(code)) {
                index += code == 0xFF ? 1 : 2
                continue
            }
            return (code, index)
        }
        return nil
    }
}
