/// A 256-bit unsigned integer as four 64-bit limbs, least significant first: the representation
/// the P-256 field and scalar arithmetic works on.
struct UInt256: Equatable, Sendable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64

    static let zero = UInt256(l0: 0, l1: 0, l2: 0, l3: 0)

    @inline(__always) init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    /// Reads 32 big-endian bytes starting at `offset`.
    init(bigEndian bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        precondition(bytes.count >= offset + 32)
        func limb(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + at + i]) }
            return v
        }
        self.init(l0: limb(24), l1: limb(16), l2: limb(8), l3: limb(0))
    }

    /// Reads 64 hexadecimal digits (constants only: traps on anything else).
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count == 64)
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { bytes[i] = UInt8(String(decoding: digits[2 * i..<2 * i + 2], as: UTF8.self), radix: 16)! }
        self = bytes.withUnsafeBytes { UInt256(bigEndian: $0) }
    }

    /// The 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for limb in [l3, l2, l1, l0] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift))) }
        }
        return out
    }

    @inline(__always) var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// Byte `i` (0 = least significant).
    @inline(__always) func byte(_ i: Int) -> Int {
        let limb: UInt64
        switch i >> 3 {
        case 0: limb = l0
        case 1: limb = l1
        case 2: limb = l2
        default: limb = l3
        }
        return Int(truncatingIfNeeded: (limb >> UInt64((i & 7) * 8)) & 0xFF)
    }

    /// `self < other`.
    @inline(__always) func isLess(than other: UInt256) -> Bool {
        var borrow: UInt64 = 0
        _ = subtractWithBorrow(l0, other.l0, &borrow)
        _ = subtractWithBorrow(l1, other.l1, &borrow)
        _ = subtractWithBorrow(l2, other.l2, &borrow)
        _ = subtractWithBorrow(l3, other.l3, &borrow)
        return borrow != 0
    }

    /// `self + other` and the carry out (0 or 1).
    @inline(__always) func adding(_ other: UInt256) -> (UInt256, UInt64) {
        var carry: UInt64 = 0
        let r = UInt256(
            l0: addWithCarry(l0, other.l0, &carry), l1: addWithCarry(l1, other.l1, &carry),
            l2: addWithCarry(l2, other.l2, &carry), l3: addWithCarry(l3, other.l3, &carry))
        return (r, carry)
    }

    /// `self - other` modulo 2²⁵⁶ and the borrow out (0 or 1).
    @inline(__always) func subtracting(_ other: UInt256) -> (UInt256, UInt64) {
        var borrow: UInt64 = 0
        let r = UInt256(
            l0: subtractWithBorrow(l0, other.l0, &borrow), l1: subtractWithBorrow(l1, other.l1, &borrow),
            l2: subtractWithBorrow(l2, other.l2, &borrow), l3: subtractWithBorrow(l3, other.l3, &borrow))
        return (r, borrow)
    }
}

/// `a + b + carry`, the carry updated.
@inline(__always) func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (s1, o1) = a.addingReportingOverflow(b)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    carry = (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return s2
}

/// `a - b - borrow`, the borrow updated.
@inline(__always) func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let (d1, o1) = a.subtractingReportingOverflow(b)
    let (d2, o2) = d1.subtractingReportingOverflow(borrow)
    borrow = (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return d2
}

/// The low word of `a + b·c + carry`; the high word goes to `carry` (the sum always fits 128 bits).
@inline(__always) func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (hi, lo) = b.multipliedFullWidth(by: c)
    let (s1, o1) = lo.addingReportingOverflow(a)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    carry = hi &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return s2
}
