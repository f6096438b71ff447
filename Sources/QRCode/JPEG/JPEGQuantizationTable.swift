/// Quantization tables from DQT segments (T.81 B.2.4.1), kept in natural (row-major) order.
enum JPEGQuantizationTable {
    /// Parses a DQT segment body (`bytes[start..<end]`) into slots 0...3.
    static func parse(_ bytes: [UInt8], start: Int, end: Int, into tables: inout [[Int32]?]) throws(JPEGError) {
        var offset = start
        while offset < end {
            let tableStart = offset
            let precision = Int(bytes[offset] >> 4), id = Int(bytes[offset] & 0x0F)
            let size = precision == 0 ? 64 : 128
            guard precision <= 1, id <= 3, offset + 1 + size <= end else { throw .invalidQuantizationTable(offset: tableStart) }
            offset += 1
            var table = [Int32](repeating: 0, count: 64)
            for k in 0..<64 {
                let value = precision == 0 ? Int32(bytes[offset + k]) : Int32(bytes[offset + 2 * k]) << 8 | Int32(bytes[offset + 2 * k + 1])
                // DQT lists values in zig-zag order.
                table[JPEGZigZag.natural[k]] = value
            }
            offset += size
            tables[id] = table
        }
    }
}
