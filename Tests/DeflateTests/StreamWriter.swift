/// Writes DEFLATE streams bit by bit, for hand-made (mostly malformed) test streams.
struct StreamWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    /// Writes the low `count` bits of `value`, least significant first (header fields, extra bits).
    mutating func bits(_ value: Int, _ count: Int) {
        for i in 0..<count {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 != 0 { bytes[bytes.count - 1] |= UInt8(1 << (bitCount % 8)) }
            bitCount += 1
        }
    }

    /// Writes a Huffman codeword, most significant bit first.
    mutating func code(_ codeword: Int, length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) { bits((codeword >> i) & 1, 1) }
    }

    /// Writes a symbol with the canonical code for `lengths`.
    mutating func symbol(_ symbol: Int, _ code: CanonicalCode) {
        precondition(code.lengths[symbol] > 0, "symbol \(symbol) has no code")
        self.code(code.codewords[symbol], length: code.lengths[symbol])
    }

    /// A block header: BFINAL and BTYPE.
    mutating func blockHeader(final: Bool, type: Int) {
        bits(final ? 1 : 0, 1)
        bits(type, 2)
    }

    /// Pads to a byte boundary with zero bits.
    mutating func align() {
        while bitCount % 8 != 0 { bits(0, 1) }
    }
}

/// The canonical Huffman code of RFC 1951 §3.2.2 for a list of code lengths.
struct CanonicalCode {
    let lengths: [Int]
    let codewords: [Int]

    init(_ lengths: [Int]) {
        self.lengths = lengths
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { counts[l] += 1 }
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1...15 {
            code = (code + counts[bits - 1]) << 1
            nextCode[bits] = code
        }
        var codewords = [Int](repeating: 0, count: lengths.count)
        for (s, l) in lengths.enumerated() where l > 0 {
            codewords[s] = nextCode[l]
            nextCode[l] += 1
        }
        self.codewords = codewords
    }

    /// RFC 1951's fixed literal/length code (symbols 0…287).
    static let fixedLiteralLength = CanonicalCode((0..<288).map { s in
        s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8
    })
    /// RFC 1951's fixed distance code (symbols 0…31).
    static let fixedDistance = CanonicalCode([Int](repeating: 5, count: 32))

    /// A complete literal/length code over 286 symbols: 0…225 get 8 bits, 226…285 get 9.
    static let completeLiteralLengthLengths: [Int] = (0..<286).map { $0 < 226 ? 8 : 9 }
    /// A complete distance code over 30 symbols: 0…1 get 4 bits, 2…29 get 5.
    static let completeDistanceLengths: [Int] = (0..<30).map { $0 < 2 ? 4 : 5 }
}

/// One code-length symbol of a dynamic header, with its extra bits.
struct CodeLengthSymbol {
    let symbol: Int
    let extra: Int
    init(_ symbol: Int, extra: Int = 0) { self.symbol = symbol; self.extra = extra }
}

extension StreamWriter {
    /// The permuted order of the code-length code's lengths in a dynamic header.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// A code-length code where every symbol 0…18 has a codeword: 0…12 get 4 bits, 13…18 get 5.
    static let fullCodeLengthLengths: [Int] = (0..<19).map { $0 < 13 ? 4 : 5 }

    /// Writes a dynamic block header: counts, the code-length code, and the code-length symbols.
    mutating func dynamicHeader(
        final: Bool, literalLengthCount: Int, distanceCount: Int,
        codeLengthLengths: [Int] = StreamWriter.fullCodeLengthLengths, symbols: [CodeLengthSymbol]
    ) {
        blockHeader(final: final, type: 2)
        bits(literalLengthCount - 257, 5)
        bits(distanceCount - 1, 5)
        bits(19 - 4, 4)
        for s in Self.codeLengthOrder { bits(codeLengthLengths[s], 3) }
        let code = CanonicalCode(codeLengthLengths)
        for s in symbols {
            symbol(s.symbol, code)
            switch s.symbol {
            case 16: bits(s.extra, 2)
            case 17: bits(s.extra, 3)
            case 18: bits(s.extra, 7)
            default: break
            }
        }
    }

    /// Writes a dynamic block header giving exactly these lengths (no repeat symbols).
    mutating func dynamicHeader(final: Bool, literalLengthLengths: [Int], distanceLengths: [Int]) {
        dynamicHeader(
            final: final, literalLengthCount: literalLengthLengths.count, distanceCount: distanceLengths.count,
            symbols: (literalLengthLengths + distanceLengths).map { CodeLengthSymbol($0) })
    }
}
