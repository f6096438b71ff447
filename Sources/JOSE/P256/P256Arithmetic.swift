/// Arithmetic modulo the P-256 prime p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1. Elements are kept in
/// Montgomery form (`x·2²⁵⁶ mod p`) and always fully reduced, so equality is limb equality.
enum P256Field {
    @inline(__always) static var p: UInt256 {
        UInt256(l0: 0xFFFF_FFFF_FFFF_FFFF, l1: 0x0000_0000_FFFF_FFFF, l2: 0, l3: 0xFFFF_FFFF_0000_0001)
    }
    /// −p⁻¹ mod 2⁶⁴: p ≡ −1 (mod 2⁶⁴), so it is 1.
    @inline(__always) static var k: UInt64 { 1 }
    static let r2 = montgomeryR2(p)
    /// 1 in Montgomery form: 2²⁵⁶ mod p.
    static let one = UInt256.zero.subtracting(p).0

    @inline(__always) static func multiply(_ a: UInt256, _ b: UInt256) -> UInt256 { montgomeryMultiply(a, b, p, k) }
    @inline(__always) static func square(_ a: UInt256) -> UInt256 { montgomeryMultiply(a, a, p, k) }
    @inline(__always) static func add(_ a: UInt256, _ b: UInt256) -> UInt256 { modularAdd(a, b, p) }
    @inline(__always) static func subtract(_ a: UInt256, _ b: UInt256) -> UInt256 { modularSubtract(a, b, p) }
    @inline(__always) static func negate(_ a: UInt256) -> UInt256 { a.isZero ? a : p.subtracting(a).0 }

    /// Montgomery form of `a < p`.
    @inline(__always) static func encode(_ a: UInt256) -> UInt256 { multiply(a, r2) }
    /// The plain value of a Montgomery residue.
    @inline(__always) static func decode(_ a: UInt256) -> UInt256 { multiply(a, UInt256(l0: 1, l1: 0, l2: 0, l3: 0)) }
    /// `a⁻¹` by Fermat (`a^(p−2)`); 0 for 0.
    static func inverse(_ a: UInt256) -> UInt256 { montgomeryPower(a, p.subtracting(UInt256(l0: 2, l1: 0, l2: 0, l3: 0)).0, p, k, one: one) }
}

/// Arithmetic modulo the P-256 group order n, in Montgomery form like ``P256Field``.
enum P256Scalar {
    @inline(__always) static var n: UInt256 {
        UInt256(l0: 0xF3B9_CAC2_FC63_2551, l1: 0xBCE6_FAAD_A717_9E84, l2: 0xFFFF_FFFF_FFFF_FFFF, l3: 0xFFFF_FFFF_0000_0000)
    }
    /// −n⁻¹ mod 2⁶⁴.
    @inline(__always) static var k: UInt64 { 0xCCD1_C8AA_EE00_BC4F }
    static let r2 = montgomeryR2(n)
    static let one = UInt256.zero.subtracting(n).0

    @inline(__always) static func multiply(_ a: UInt256, _ b: UInt256) -> UInt256 { montgomeryMultiply(a, b, n, k) }
    @inline(__always) static func encode(_ a: UInt256) -> UInt256 { multiply(a, r2) }
    /// `a⁻¹` (Montgomery in, Montgomery out) by Fermat (`a^(n−2)`).
    static func inverse(_ a: UInt256) -> UInt256 { montgomeryPower(a, n.subtracting(UInt256(l0: 2, l1: 0, l2: 0, l3: 0)).0, n, k, one: one) }
}
