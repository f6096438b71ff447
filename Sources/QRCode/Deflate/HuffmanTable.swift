/// A single-level decoding table for one canonical Huffman code.
///
/// Indexed by the next `maxLength` stream bits (least significant first); each entry is
/// `symbol << 4 | codeLength`, and 0 marks bit patterns no code starts with.
struct HuffmanTable {
    let entries: [UInt16]
    let maxLength: Int

    /// Builds the table, rejecting over-subscribed codes. Incomplete codes are allowed
    /// (RFC 1951 permits a lone distance code); their unused patterns decode as errors.
    /// Why a set of code lengths does not form a usable Huffman code.
    enum BuildError: Error {
        case overSubscribed
    }

    init(lengths: [UInt8]) throws(BuildError) {
        var counts = [Int](repeating: 0, count: 16)
        var longest = 0
        for length in lengths where length > 0 {
            counts[Int(length)] += 1
            longest = Swift.max(longest, Int(length))
        }
        var remaining = 1
        for bits in 1..<16 {
            remaining = remaining << 1 - counts[bits]
            if remaining < 0 { throw .overSubscribed }
        }
        maxLength = Swift.max(longest, 1)
        var table = [UInt16](repeating: 0, count: 1 << maxLength)
        let codes = DeflateTables.canonicalCodes(lengths)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let len = Int(length)
            let entry = UInt16(symbol << 4 | len)
            var index = DeflateTables.reverse(codes[symbol], length: len)
            while index < table.count {
                table[index] = entry
                index += 1 << len
            }
        }
        entries = table
    }
}
