/// Decode tables for dynamic Huffman blocks, in one allocation reused for every block of a
/// stream (built only when a stream has a dynamic block).
struct DynamicTables {
    let literalLength: UnsafeMutablePointer<UInt32>
    let distance: UnsafeMutablePointer<UInt32>
    let codeLength: UnsafeMutablePointer<UInt32>
    /// Code lengths as read: 286 literal/length then 30 distance (336 with room for repeats
    /// written two words at a time), the first 19 doubling as the code-length code's lengths.
    let lengths: UnsafeMutablePointer<UInt8>
    let scratch: BuilderScratch
    private let memory: UnsafeMutableRawPointer

    private static let entryCount = TableSize.literalLengthEnough + TableSize.distanceEnough + TableSize.codeLengthEnough
    private static let wordCount = 96
    private static let byteCount = entryCount * 4 + wordCount * 8 + 288 * 2 + 336

    init() {
        memory = .allocate(byteCount: Self.byteCount, alignment: 8)
        let entries = memory.bindMemory(to: UInt32.self, capacity: Self.entryCount)
        literalLength = entries
        distance = entries + TableSize.literalLengthEnough
        codeLength = distance + TableSize.distanceEnough
        let countsAt = memory + Self.entryCount * 4
        let words = countsAt.bindMemory(to: Int.self, capacity: Self.wordCount)
        let sorted = (countsAt + Self.wordCount * 8).bindMemory(to: UInt16.self, capacity: 288)
        scratch = BuilderScratch(work: words, sorted: sorted)
        lengths = (countsAt + Self.wordCount * 8 + 288 * 2).bindMemory(to: UInt8.self, capacity: 336)
    }

    func deallocate() { memory.deallocate() }
}
