/// The fixed Huffman codes of RFC 1951 §3.2.6, built once.
struct FixedTables: @unchecked Sendable {
    /// The literal/length table (9 index bits, no subtables).
    let literalLength: UnsafeMutablePointer<UInt32>
    let literalLengthBits: Int
    /// The distance table (5 index bits).
    let distance: UnsafeMutablePointer<UInt32>
    let distanceBits: Int

    /// Built on first use; never freed.
    static let shared = FixedTables()

    private init() {
        let lengths = DeflateFormat.fixedLiteralLengthLengths
        let distanceLengths = [UInt8](repeating: DeflateFormat.fixedDistanceLength, count: 32)
        let literalLengthTable = UnsafeMutablePointer<UInt32>.allocate(capacity: 512)
        let distanceTable = UnsafeMutablePointer<UInt32>.allocate(capacity: 32)
        literalLength = literalLengthTable
        distance = distanceTable
        let work = UnsafeMutablePointer<Int>.allocate(capacity: 96)
        let sorted = UnsafeMutablePointer<UInt16>.allocate(capacity: 288)
        defer { work.deallocate(); sorted.deallocate() }
        let scratch = BuilderScratch(work: work, sorted: sorted)
        let results = SymbolResults.shared
        do {
            literalLengthBits = try lengths.withUnsafeBufferPointer { l in
                try HuffmanTableBuilder.build(
                    table: literalLengthTable, capacity: 512, maxTableBits: 9, lengths: l.baseAddress!,
                    symbolCount: 288, results: results.literalLength, allowIncomplete: false, scratch: scratch)
            }
            distanceBits = try distanceLengths.withUnsafeBufferPointer { l in
                try HuffmanTableBuilder.build(
                    table: distanceTable, capacity: 32, maxTableBits: 5, lengths: l.baseAddress!,
                    symbolCount: 32, results: results.distance, allowIncomplete: false, scratch: scratch)
            }
        } catch {
            fatalError("the fixed Huffman codes are complete: \(error)")
        }
    }
}
