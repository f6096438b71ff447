/// How a symbol's codewords split into Reed–Solomon blocks and interleave.
///
/// Blocks come in two lengths: the first `shortBlockCount` blocks hold one data
/// codeword fewer than the rest. Every block has the same number of ECC codewords.
public struct QRBlockLayout: Sendable, Hashable {
    /// All codewords in the symbol, data and error correction.
    public let totalCodewords: Int
    /// Number of Reed–Solomon blocks.
    public let blockCount: Int
    /// Error correction codewords in every block.
    public let eccCodewordsPerBlock: Int

    /// Blocks holding `shortBlockDataCount` data codewords; the rest hold one more.
    public var shortBlockCount: Int { blockCount - totalCodewords % blockCount }
    /// Data codewords in a short block.
    public var shortBlockDataCount: Int { totalCodewords / blockCount - eccCodewordsPerBlock }
    /// Data codewords in the symbol.
    public var dataCodewordCount: Int { totalCodewords - eccCodewordsPerBlock * blockCount }
    /// The most codeword errors one block can correct: floor(ECC codewords / 2).
    public var correctableErrorsPerBlock: Int { eccCodewordsPerBlock / 2 }

    /// Data codewords in block `block` (0-based).
    public func dataCount(ofBlock block: Int) -> Int {
        shortBlockDataCount + (block < shortBlockCount ? 0 : 1)
    }

    /// Position in the interleaved codeword sequence of codeword `index` of block `block`,
    /// where indices below `dataCount(ofBlock:)` are data and the rest are ECC.
    public func interleavedIndex(block: Int, indexInBlock index: Int) -> Int {
        let dataCount = dataCount(ofBlock: block)
        if index < dataCount {
            if index < shortBlockDataCount { return index * blockCount + block }
            // Only long blocks have this last data codeword.
            return shortBlockDataCount * blockCount + (block - shortBlockCount)
        }
        return dataCodewordCount + (index - dataCount) * blockCount + block
    }
}
