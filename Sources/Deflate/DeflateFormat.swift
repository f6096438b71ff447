/// The constants of RFC 1951 that both directions need: what the inflater decodes and the
/// compressor encodes must agree to the symbol.
enum DeflateFormat {
    /// Match length of length symbols 257…285.
    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    /// Extra bits after length symbols 257…285.
    static let lengthExtraBits: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                         3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Distance of distance symbols 0…29.
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                      257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                      8193, 12289, 16385, 24577]
    /// Extra bits after distance symbols 0…29.
    static let distanceExtraBits: [Int] = (0..<30).map { max(0, $0 / 2 - 1) }
    /// The order in which a dynamic block header sends the code-length code's lengths.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Code lengths of the fixed literal/length code (symbols 0…287, §3.2.6).
    static let fixedLiteralLengthLengths: [UInt8] = (0..<288).map { symbol in
        switch symbol {
        case 0..<144: return 8
        case 144..<256: return 9
        case 256..<280: return 7
        default: return 8
        }
    }
    /// Every fixed distance code is 5 bits (symbols 0…31; 30 and 31 never occur).
    static let fixedDistanceLength: UInt8 = 5

    static let endOfBlock = 256
    /// The longest match a length symbol can say.
    static let maxMatch = 258
    /// The shortest match a length symbol can say.
    static let minMatch = 3
    /// The furthest back a distance can reach.
    static let windowSize = 32768
    /// The longest codeword of a literal/length or distance code.
    static let maxCodeLength = 15
    /// The longest codeword of the code-length code (its lengths are sent in 3 bits).
    static let maxCodeLengthCodeLength = 7
    /// The most bytes one stored block holds (its LEN is 16 bits).
    static let maxStoredBlock = 65535
}
