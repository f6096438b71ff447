/// One run of data in a single mode, ready to be encoded into a QR symbol.
public struct QRSegment: Sendable, Hashable {
    /// The mode this segment is encoded in.
    public let mode: QRMode
    /// Characters for numeric and alphanumeric segments (ASCII), bytes for byte segments,
    /// Shift JIS byte pairs for kanji; empty for ECI.
    public let data: [UInt8]
    /// The ECI assignment number for `.eci` segments; 0 otherwise.
    public let eciAssignment: Int

    private init(mode: QRMode, data: [UInt8], eciAssignment: Int = 0) {
        self.mode = mode
        self.data = data
        self.eciAssignment = eciAssignment
    }

    /// Number of characters the character count indicator records.
    public var characterCount: Int { mode == .kanji ? data.count / 2 : data.count }

    /// A numeric segment; throws when `digits` holds anything but 0–9.
    public static func numeric(_ digits: String) throws -> QRSegment {
        let bytes = Array(digits.utf8)
        for (offset, byte) in bytes.enumerated() where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            throw QREncodingError.invalidCharacter(mode: .numeric, byte: byte, offset: offset)
        }
        return QRSegment(mode: .numeric, data: bytes)
    }

    /// An alphanumeric segment; throws when `text` holds a character outside
    /// `0–9 A–Z space $ % * + - . / :` (lower case is not in the set).
    public static func alphanumeric(_ text: String) throws -> QRSegment {
        let bytes = Array(text.utf8)
        for (offset, byte) in bytes.enumerated() where QRMode.alphanumericValue[Int(byte)] < 0 {
            throw QREncodingError.invalidCharacter(mode: .alphanumeric, byte: byte, offset: offset)
        }
        return QRSegment(mode: .alphanumeric, data: bytes)
    }

    /// A byte segment holding `bytes` as they are.
    public static func bytes(_ bytes: [UInt8]) -> QRSegment {
        QRSegment(mode: .byte, data: bytes)
    }

    /// A byte segment holding the UTF-8 encoding of `text`.
    public static func byte(_ text: String) -> QRSegment {
        QRSegment(mode: .byte, data: Array(text.utf8))
    }

    /// A kanji segment from Shift JIS byte pairs in the ranges 0x8140–0x9FFC and 0xE040–0xEBBF.
    public static func kanji(shiftJIS bytes: [UInt8]) throws -> QRSegment {
        guard bytes.count % 2 == 0 else {
            throw QREncodingError.invalidCharacter(mode: .kanji, byte: bytes.last ?? 0, offset: bytes.count - 1)
        }
        for offset in stride(from: 0, to: bytes.count, by: 2) {
            let value = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard (0x8140...0x9FFC).contains(value) || (0xE040...0xEBBF).contains(value) else {
                throw QREncodingError.invalidCharacter(mode: .kanji, byte: bytes[offset], offset: offset)
            }
        }
        return QRSegment(mode: .kanji, data: bytes)
    }

    /// An ECI designator, e.g. 26 for UTF-8 or 3 for ISO-8859-1; valid range 0...999999.
    public static func eci(_ assignment: Int) throws -> QRSegment {
        guard (0...999_999).contains(assignment) else { throw QREncodingError.invalidECI(assignment) }
        return QRSegment(mode: .eci, data: [], eciAssignment: assignment)
    }

    /// The most compact single segment for `text`: numeric, else alphanumeric, else UTF-8 bytes.
    public static func automatic(_ text: String) -> QRSegment {
        if let numeric = try? numeric(text) { return numeric }
        if let alphanumeric = try? alphanumeric(text) { return alphanumeric }
        return byte(text)
    }

    /// Segments for arbitrary text: one automatic segment, preceded by an ECI 26 (UTF-8)
    /// designator when the text is not plain ASCII, so readers do not guess the character set.
    public static func segments(for text: String) -> [QRSegment] {
        let segment = automatic(text)
        if segment.mode == .byte && segment.data.contains(where: { $0 >= 0x80 }) {
            return [QRSegment(mode: .eci, data: [], eciAssignment: 26), segment]
        }
        return [segment]
    }

    /// Bits this segment takes in `version`, header included; nil if its character
    /// count does not fit the count indicator of that version.
    func bitLength(version: QRVersion) -> Int? {
        let countBits = mode.characterCountBits(version: version)
        if mode != .eci && characterCount >= 1 << countBits { return nil }
        return 4 + countBits + payloadBitLength
    }

    private var payloadBitLength: Int {
        switch mode {
        case .numeric: return data.count / 3 * 10 + [0, 4, 7][data.count % 3]
        case .alphanumeric: return data.count / 2 * 11 + (data.count % 2) * 6
        case .byte: return data.count * 8
        case .kanji: return data.count / 2 * 13
        case .eci: return eciAssignment < 1 << 7 ? 8 : (eciAssignment < 1 << 14 ? 16 : 24)
        }
    }

    /// Appends header and payload for `version` to `buffer`.
    func write(to buffer: inout BitBuffer, version: QRVersion) {
        buffer.append(mode.indicator, bits: 4)
        let countBits = mode.characterCountBits(version: version)
        if mode != .eci { buffer.append(characterCount, bits: countBits) }
        switch mode {
        case .numeric:
            var i = 0
            while i < data.count {
                let n = Swift.min(3, data.count - i)
                var value = 0
                for k in 0..<n { value = value * 10 + Int(data[i + k] - UInt8(ascii: "0")) }
                buffer.append(value, bits: [0, 4, 7, 10][n])
                i += n
            }
        case .alphanumeric:
            var i = 0
            while i + 1 < data.count {
                let value = Int(QRMode.alphanumericValue[Int(data[i])]) * 45 + Int(QRMode.alphanumericValue[Int(data[i + 1])])
                buffer.append(value, bits: 11)
                i += 2
            }
            if i < data.count { buffer.append(Int(QRMode.alphanumericValue[Int(data[i])]), bits: 6) }
        case .byte:
            for byte in data { buffer.append(Int(byte), bits: 8) }
        case .kanji:
            for offset in stride(from: 0, to: data.count, by: 2) {
                var value = Int(data[offset]) << 8 | Int(data[offset + 1])
                value -= value <= 0x9FFC ? 0x8140 : 0xC140
                buffer.append((value >> 8) * 0xC0 + (value & 0xFF), bits: 13)
            }
        case .eci:
            if eciAssignment < 1 << 7 {
                buffer.append(eciAssignment, bits: 8)
            } else if eciAssignment < 1 << 14 {
                buffer.append(0b10, bits: 2)
                buffer.append(eciAssignment, bits: 14)
            } else {
                buffer.append(0b110, bits: 3)
                buffer.append(eciAssignment, bits: 21)
            }
        }
    }
}
