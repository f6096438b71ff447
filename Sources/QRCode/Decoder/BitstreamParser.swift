/// Reads segments out of the corrected data codewords (ISO/IEC 18004 §7.4).
struct BitstreamParser {
    private let bytes: [UInt8]
    private var offset = 0
    private let version: QRVersion

    init(bytes: [UInt8], version: QRVersion) {
        self.bytes = bytes
        self.version = version
    }

    private var remaining: Int { bytes.count * 8 - offset }

    private mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let bit = (bytes[offset >> 3] >> (7 - UInt8(offset & 7))) & 1
            value = value << 1 | Int(bit)
            offset += 1
        }
        return value
    }

    mutating func parse() throws(QRDecodeError) -> [DecodedSegment] {
        var segments: [DecodedSegment] = []
        var eci: Int?
        while remaining >= 4 {
            let start = offset
            let indicator = read(4)
            switch indicator {
            case 0b0000:
                return segments
            case 0b0001:
                segments.append(try numeric(start: start))
            case 0b0010:
                segments.append(try alphanumeric(start: start))
            case 0b0100:
                let count = try characterCount(.byte, start: start)
                guard remaining >= count * 8 else { throw .truncatedSegment(mode: .byte, bitOffset: start) }
                let data = (0..<count).map { _ in UInt8(read(8)) }
                segments.append(DecodedSegment(mode: .byte, bytes: data, text: TextDecoding.decode(data, eci: eci)))
            case 0b1000:
                let count = try characterCount(.kanji, start: start)
                guard remaining >= count * 13 else { throw .truncatedSegment(mode: .kanji, bitOffset: start) }
                var data: [UInt8] = []
                for _ in 0..<count {
                    let value = read(13)
                    var assembled = (value / 0xC0) << 8 | (value % 0xC0)
                    assembled += assembled < 0x1F00 ? 0x8140 : 0xC140
                    data += [UInt8(assembled >> 8), UInt8(assembled & 0xFF)]
                }
                segments.append(DecodedSegment(mode: .kanji, bytes: data, text: TextDecoding.decode(data, eci: 20)))
            case 0b0111:
                guard remaining >= 8 else { throw .invalidECI(bitOffset: start) }
                let first = read(8)
                let value: Int
                if first & 0x80 == 0 {
                    value = first
                } else if first & 0xC0 == 0x80 {
                    guard remaining >= 8 else { throw .invalidECI(bitOffset: start) }
                    value = (first & 0x3F) << 8 | read(8)
                } else if first & 0xE0 == 0xC0 {
                    guard remaining >= 16 else { throw .invalidECI(bitOffset: start) }
                    value = (first & 0x1F) << 16 | read(16)
                } else {
                    throw .invalidECI(bitOffset: start)
                }
                eci = value
                segments.append(DecodedSegment(mode: .eci, bytes: [], text: nil, eciAssignment: value))
            case 0b0011:
                // Structured append header: symbol position, count and parity carry no text.
                guard remaining >= 16 else { throw .truncatedSegment(mode: .byte, bitOffset: start) }
                _ = read(16)
            case 0b0101:
                continue  // FNC1 in first position: a flag only.
            case 0b1001:
                guard remaining >= 8 else { throw .truncatedSegment(mode: .byte, bitOffset: start) }
                _ = read(8)  // FNC1 in second position: application indicator.
            case 0b1101:
                throw .unsupportedMode(indicator: indicator, bitOffset: start)
            default:
                throw .invalidMode(indicator: indicator, bitOffset: start)
            }
        }
        return segments
    }

    private mutating func characterCount(_ mode: QRMode, start: Int) throws(QRDecodeError) -> Int {
        let bits = mode.characterCountBits(version: version)
        guard remaining >= bits else { throw .truncatedSegment(mode: mode, bitOffset: start) }
        return read(bits)
    }

    private mutating func numeric(start: Int) throws(QRDecodeError) -> DecodedSegment {
        var count = try characterCount(.numeric, start: start)
        var digits: [UInt8] = []
        digits.reserveCapacity(count)
        while count > 0 {
            let group = Swift.min(3, count)
            let bits = [0, 4, 7, 10][group]
            guard remaining >= bits else { throw .truncatedSegment(mode: .numeric, bitOffset: start) }
            let at = offset
            let value = read(bits)
            guard value < [1, 10, 100, 1000][group] else { throw .invalidNumericValue(value, bitOffset: at) }
            var divisor = [1, 1, 10, 100][group]
            for _ in 0..<group {
                digits.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            count -= group
        }
        return DecodedSegment(mode: .numeric, bytes: digits, text: String(decoding: digits, as: UTF8.self))
    }

    private mutating func alphanumeric(start: Int) throws(QRDecodeError) -> DecodedSegment {
        var count = try characterCount(.alphanumeric, start: start)
        var chars: [UInt8] = []
        chars.reserveCapacity(count)
        let charset = QRMode.alphanumericCharset
        while count >= 2 {
            guard remaining >= 11 else { throw .truncatedSegment(mode: .alphanumeric, bitOffset: start) }
            let at = offset
            let value = read(11)
            guard value < 45 * 45 else { throw .invalidAlphanumericValue(value, bitOffset: at) }
            chars += [charset[value / 45], charset[value % 45]]
            count -= 2
        }
        if count == 1 {
            guard remaining >= 6 else { throw .truncatedSegment(mode: .alphanumeric, bitOffset: start) }
            let at = offset
            let value = read(6)
            guard value < 45 else { throw .invalidAlphanumericValue(value, bitOffset: at) }
            chars.append(charset[value])
        }
        return DecodedSegment(mode: .alphanumeric, bytes: chars, text: String(decoding: chars, as: UTF8.self))
    }
}
