/// `a·b·2⁻²⁵⁶ mod m` (Montgomery multiplication, CIOS), for `a, b < m` and odd `m` with
/// `k = −m⁻¹ mod 2⁶⁴`. The result is fully reduced (`< m`).
@inline(__always) func montgomeryMultiply(_ a: UInt256, _ b: UInt256, _ m: UInt256, _ k: UInt64) -> UInt256 {
    var t = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    montgomeryRound(&t, a, b.l0, m, k)
    montgomeryRound(&t, a, b.l1, m, k)
    montgomeryRound(&t, a, b.l2, m, k)
    montgomeryRound(&t, a, b.l3, m, k)
    // t < 2m: one conditional subtraction.
    var borrow: UInt64 = 0
    let d0 = subtractWithBorrow(t.0, m.l0, &borrow)
    let d1 = subtractWithBorrow(t.1, m.l1, &borrow)
    let d2 = subtractWithBorrow(t.2, m.l2, &borrow)
    let d3 = subtractWithBorrow(t.3, m.l3, &borrow)
    if t.4 != 0 || borrow == 0 { return UInt256(l0: d0, l1: d1, l2: d2, l3: d3) }
    return UInt256(l0: t.0, l1: t.1, l2: t.2, l3: t.3)
}

/// One word of CIOS: `t = (t + a·bi + u·m) / 2⁶⁴` with `u` chosen so the division is exact.
@inline(__always) private func montgomeryRound(_ t: inout (UInt64, UInt64, UInt64, UInt64, UInt64), _ a: UInt256, _ bi: UInt64, _ m: UInt256, _ k: UInt64) {
    var c: UInt64 = 0
    let s0 = multiplyAdd(t.0, a.l0, bi, &c)
    let s1 = multiplyAdd(t.1, a.l1, bi, &c)
    let s2 = multiplyAdd(t.2, a.l2, bi, &c)
    let s3 = multiplyAdd(t.3, a.l3, bi, &c)
    var top: UInt64 = 0
    let s4 = addWithCarry(t.4, c, &top)
    let u = s0 &* k
    c = 0
    _ = multiplyAdd(s0, u, m.l0, &c)
    let r0 = multiplyAdd(s1, u, m.l1, &c)
    let r1 = multiplyAdd(s2, u, m.l2, &c)
    let r2 = multiplyAdd(s3, u, m.l3, &c)
    var top2: UInt64 = 0
    let r3 = addWithCarry(s4, c, &top2)
    t = (r0, r1, r2, r3, top &+ top2)
}

/// `(a + b) mod m` for `a, b < m`.
@inline(__always) func modularAdd(_ a: UInt256, _ b: UInt256, _ m: UInt256) -> UInt256 {
    let (s, carry) = a.adding(b)
    let (d, borrow) = s.subtracting(m)
    return carry != 0 || borrow == 0 ? d : s
}

/// `(a − b) mod m` for `a, b < m`.
@inline(__always) func modularSubtract(_ a: UInt256, _ b: UInt256, _ m: UInt256) -> UInt256 {
    let (d, borrow) = a.subtracting(b)
    return borrow != 0 ? d.adding(m).0 : d
}

/// `2²⁵⁶·2²⁵⁶ mod m`, the factor that takes a number into Montgomery form (for `2²⁵⁵ < m < 2²⁵⁶`).
func montgomeryR2(_ m: UInt256) -> UInt256 {
    var x = UInt256.zero.subtracting(m).0  // 2²⁵⁶ − m = 2²⁵⁶ mod m
    for _ in 0..<256 { x = modularAdd(x, x, m) }
    return x
}

/// `−m⁻¹ mod 2⁶⁴` for odd `m0` (Newton's iteration doubles the correct bits each step).
func montgomeryConstant(_ m0: UInt64) -> UInt64 {
    var inverse: UInt64 = 1
    for _ in 0..<6 { inverse = inverse &* (2 &- m0 &* inverse) }
    return 0 &- inverse
}

/// `base^exponent` in Montgomery form (`base` and the result are Montgomery residues), with a
/// 4-bit fixed window. Variable time: only ever used on public values.
func montgomeryPower(_ base: UInt256, _ exponent: UInt256, _ m: UInt256, _ k: UInt64, one: UInt256) -> UInt256 {
    var powers = [UInt256](repeating: one, count: 16)
    for i in 1..<16 { powers[i] = montgomeryMultiply(powers[i - 1], base, m, k) }
    var result = one
    for nibble in stride(from: 63, through: 0, by: -1) {
        if nibble != 63 {
            for _ in 0..<4 { result = montgomeryMultiply(result, result, m, k) }
        }
        let w = (exponent.byte(nibble >> 1) >> ((nibble & 1) * 4)) & 0xF
        if w != 0 { result = montgomeryMultiply(result, powers[w], m, k) }
    }
    return result
}
