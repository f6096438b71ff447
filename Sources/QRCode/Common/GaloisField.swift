/// Arithmetic in GF(2^8) with the QR code primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D).
///
/// Tables are built once; every operation is a table lookup so the Reed–Solomon
/// encoder and decoder stay allocation-free in their inner loops.
enum GaloisField {
    /// `exp[i] = α^i`, doubled in length so `exp[log a + log b]` needs no modulo.
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 512)
        var x = 1
        for i in 0..<255 {
            table[i] = UInt8(x)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        for i in 255..<512 { table[i] = table[i - 255] }
        return table
    }()

    /// `log[a]` for a ≠ 0; `log[0]` is unused.
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    @inline(__always)
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[log[Int(a)] + log[Int(b)]]
    }

    @inline(__always)
    static func divide(_ a: UInt8, _ b: UInt8) -> UInt8 {
        precondition(b != 0, "division by zero in GF(256)")
        if a == 0 { return 0 }
        return exp[(log[Int(a)] + 255 - log[Int(b)]) % 255]
    }

    @inline(__always)
    static func inverse(_ a: UInt8) -> UInt8 {
        precondition(a != 0, "zero has no inverse in GF(256)")
        return exp[255 - log[Int(a)]]
    }

    /// α raised to `power` (any integer, reduced modulo 255).
    @inline(__always)
    static func alphaPower(_ power: Int) -> UInt8 {
        let p = ((power % 255) + 255) % 255
        return exp[p]
    }
}
