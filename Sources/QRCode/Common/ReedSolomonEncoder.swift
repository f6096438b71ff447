/// Computes Reed–Solomon error correction codewords as ISO/IEC 18004 §7.5.2 defines them:
/// the generator polynomial has roots α^0 … α^(n−1).
struct ReedSolomonEncoder: Sendable {
    /// Generator coefficients, highest degree first, leading 1 omitted.
    let generator: [UInt8]

    init(degree: Int) {
        precondition((1...255).contains(degree), "Reed–Solomon degree out of range")
        var poly = [UInt8](repeating: 0, count: degree)
        poly[degree - 1] = 1
        // Multiply by (x − α^i) for i in 0..<degree, keeping the monic leading term implicit.
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                poly[j] = GaloisField.multiply(poly[j], root)
                if j + 1 < degree { poly[j] ^= poly[j + 1] }
            }
            root = GaloisField.multiply(root, 2)
        }
        generator = poly
    }

    /// Returns the remainder of `data · x^degree` divided by the generator.
    func remainder(of data: ArraySlice<UInt8>) -> [UInt8] {
        let degree = generator.count
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            if factor == 0 { continue }
            for i in 0..<degree {
                result[i] ^= GaloisField.multiply(generator[i], factor)
            }
        }
        return result
    }
}
