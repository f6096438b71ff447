/// An append-only sequence of bits, most significant bit first within each value.
struct BitBuffer: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    /// Appends the low `length` bits of `value`, most significant first.
    mutating func append(_ value: Int, bits length: Int) {
        precondition(length >= 0 && length <= 31 && value >> length == 0, "value does not fit its bit length")
        for i in stride(from: length - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 != 0 { bytes[count / 8] |= UInt8(0x80 >> (count % 8)) }
            count += 1
        }
    }
}
