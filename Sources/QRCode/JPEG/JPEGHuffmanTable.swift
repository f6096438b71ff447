/// One decoding table built from a DHT segment (T.81 Annex C): canonical codes by length,
/// with a direct lookup for codes of up to `fastBits` bits.
struct JPEGHuffmanTable: Sendable {
    /// Codes this short (the vast majority in real files) decode with one lookup.
    static let fastBits = 9

    /// Indexed by the next `fastBits` bits: `length << 8 | symbol`, or 0 when the code is longer.
    let fast: [UInt16]
    /// `maxCode[l]`: the largest code of length `l`, or −1 when there is none (index 0 unused).
    let maxCode: [Int]
    /// `valueOffset[l]`: add to a code of length `l` to get its index in `values`.
    let valueOffset: [Int]
    /// The symbols in code order.
    let values: [UInt8]

    /// Builds the table from the 16 code counts and the symbols of a DHT entry.
    /// - Returns: nil when the counts over-subscribe the code space or use the all-ones code,
    ///   which T.81 forbids and libjpeg rejects too.
    init?(counts: [Int], values: [UInt8]) {
        guard counts.count == 16, counts.reduce(0, +) == values.count, values.count <= 256 else { return nil }
        var fast = [UInt16](repeating: 0, count: 1 << Self.fastBits)
        var maxCode = [Int](repeating: -1, count: 18)
        var valueOffset = [Int](repeating: 0, count: 18)
        var code = 0
        var index = 0
        for length in 1...16 {
            let count = counts[length - 1]
            valueOffset[length] = index - code
            if count > 0 {
                for _ in 0..<count {
                    // Checked per code, before it indexes the fast table.
                    guard code < 1 << length else { return nil }
                    if length <= Self.fastBits {
                        // Every lookup index that starts with this code maps to it.
                        let shift = Self.fastBits - length
                        let first = code << shift
                        for slot in first..<(first + (1 << shift)) {
                            fast[slot] = UInt16(length << 8) | UInt16(values[index])
                        }
                    }
                    code += 1
                    index += 1
                }
                maxCode[length] = code - 1
            }
            // The next code must still fit in `length` bits and must not be all ones.
            guard code < 1 << length else { return nil }
            code <<= 1
        }
        self.fast = fast
        self.maxCode = maxCode
        self.valueOffset = valueOffset
        self.values = values
    }

    /// Parses a DHT segment body (`bytes[start..<end]`) into `dc` / `ac` slots 0...3.
    static func parse(_ bytes: [UInt8], start: Int, end: Int, dc: inout [JPEGHuffmanTable?], ac: inout [JPEGHuffmanTable?]) throws(JPEGError) {
        var offset = start
        while offset < end {
            let tableStart = offset
            let classAndID = bytes[offset]
            let tableClass = Int(classAndID >> 4), id = Int(classAndID & 0x0F)
            guard tableClass <= 1, id <= 3, offset + 17 <= end else { throw .invalidHuffmanTable(offset: tableStart) }
            let counts = bytes[(offset + 1)..<(offset + 17)].map(Int.init)
            let total = counts.reduce(0, +)
            offset += 17
            guard total <= 256, offset + total <= end else { throw .invalidHuffmanTable(offset: tableStart) }
            let values = Array(bytes[offset..<(offset + total)])
            offset += total
            // A DC symbol is a magnitude category; above 15 it cannot be received at all.
            if tableClass == 0, values.contains(where: { $0 > 15 }) { throw .invalidHuffmanTable(offset: tableStart) }
            guard let table = JPEGHuffmanTable(counts: counts, values: values) else { throw .invalidHuffmanTable(offset: tableStart) }
            if tableClass == 0 { dc[id] = table } else { ac[id] = table }
        }
    }
}
