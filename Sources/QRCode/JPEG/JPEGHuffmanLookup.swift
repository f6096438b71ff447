/// A Huffman table as the scan loops read it: plain pointers into memory owned by a
/// `JPEGHuffmanArena`, so decoding a symbol touches no reference counts.
struct JPEGHuffmanLookup {
    /// `JPEGHuffmanTable.fast`.
    let fast: UnsafePointer<UInt16>
    /// `JPEGHuffmanTable.maxCode` and `valueOffset`.
    let maxCode: UnsafePointer<Int32>
    let valueOffset: UnsafePointer<Int32>
    let values: UnsafePointer<UInt8>
    let valueCount: Int
    /// For AC tables: indexed by the next `fastBits` bits, a whole coefficient when its code and
    /// its extra bits fit in them: `value << 16 | run << 8 | bits used`; 0 otherwise.
    let fastAC: UnsafePointer<Int32>
}

/// Owns the memory behind the `JPEGHuffmanLookup`s of one scan.
final class JPEGHuffmanArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit {
        for block in blocks { block.deallocate() }
    }

    /// A lookup for `table`, valid while this arena lives.
    func lookup(for table: JPEGHuffmanTable) -> JPEGHuffmanLookup {
        let fastCount = 1 << JPEGHuffmanTable.fastBits
        let fast = UnsafeMutablePointer<UInt16>.allocate(capacity: fastCount)
        fast.initialize(from: table.fast, count: fastCount)
        let maxCode = UnsafeMutablePointer<Int32>.allocate(capacity: 18)
        let valueOffset = UnsafeMutablePointer<Int32>.allocate(capacity: 18)
        for i in 0..<18 {
            maxCode[i] = Int32(truncatingIfNeeded: table.maxCode[i])
            valueOffset[i] = Int32(truncatingIfNeeded: table.valueOffset[i])
        }
        let values = UnsafeMutablePointer<UInt8>.allocate(capacity: max(table.values.count, 1))
        values.initialize(repeating: 0, count: max(table.values.count, 1))
        values.update(from: table.values, count: table.values.count)
        let fastAC = UnsafeMutablePointer<Int32>.allocate(capacity: fastCount)
        for index in 0..<fastCount {
            fastAC[index] = Self.fastCoefficient(index: index, entry: table.fast[index])
        }
        blocks += [UnsafeMutableRawPointer(fast), UnsafeMutableRawPointer(maxCode), UnsafeMutableRawPointer(valueOffset),
                   UnsafeMutableRawPointer(values), UnsafeMutableRawPointer(fastAC)]
        return JPEGHuffmanLookup(fast: fast, maxCode: maxCode, valueOffset: valueOffset, values: values,
                                 valueCount: table.values.count, fastAC: fastAC)
    }

    /// The `fastAC` entry for the bit pattern `index`: the code in `entry`, then its `size`
    /// extra bits, both inside the pattern (as in stb_image's fast AC table).
    private static func fastCoefficient(index: Int, entry: UInt16) -> Int32 {
        guard entry != 0 else { return 0 }
        let length = Int(entry >> 8), symbol = Int(entry & 0xFF)
        let run = symbol >> 4, size = symbol & 15
        let bits = JPEGHuffmanTable.fastBits
        guard size != 0, length + size <= bits else { return 0 }
        let raw = (index >> (bits - length - size)) & ((1 << size) - 1)
        let value = raw < (1 << (size - 1)) ? raw - (1 << size) + 1 : raw
        return Int32(value) << 16 | Int32(run) << 8 | Int32(length + size)
    }
}
