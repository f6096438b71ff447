/// Systematic single-edit mutations of a byte string, for differential tests.
enum Mutations {
    /// Every byte flipped in a few ways, every truncation, and a byte inserted at every position.
    static func of(_ bytes: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        for index in bytes.indices {
            for transform in [{ (b: UInt8) in b ^ 0x01 }, { $0 ^ 0x80 }, { _ in 0x00 }, { _ in 0xFF }] {
                var copy = bytes
                copy[index] = transform(copy[index])
                if copy != bytes { result.append(copy) }
            }
            result.append(Array(bytes[..<index]))
            var inserted = bytes
            inserted.insert(0x00, at: index)
            result.append(inserted)
        }
        return result
    }
}
