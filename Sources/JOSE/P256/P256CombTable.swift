/// Every multiple a scalar multiplication of one fixed point can need, so that `u·P` is at most 33
/// point additions and no doublings: row `i` holds `m·2⁸ⁱ·P` for `m` in 1…128, and a scalar is
/// recoded into 33 signed base-256 digits in −127…128 (a negative digit uses the negated point).
///
/// 33 × 128 affine points, about 270 KB; building one costs about as much as 40 verifications.
struct P256CombTable: Sendable {
    static let rows = 33
    static let perRow = 128
    private let points: [P256AffinePoint]

    init(_ base: P256AffinePoint) {
        var points: [P256AffinePoint] = []
        points.reserveCapacity(Self.rows * Self.perRow)
        var rowBase = base
        var multiples = [P256JacobianPoint](repeating: .identity, count: Self.perRow)
        for row in 0..<Self.rows {
            // m·B for m = 1…128. None is the identity: m·2⁸ⁱ is never a multiple of the prime n.
            multiples[0] = P256JacobianPoint(rowBase)
            for m in 1..<Self.perRow { multiples[m] = multiples[m - 1].adding(rowBase) }
            points += P256AffinePoint.normalizing(multiples)
            if row + 1 < Self.rows {
                rowBase = P256AffinePoint.normalizing([multiples[Self.perRow - 1].doubled()])[0]  // 256·B
            }
        }
        self.points = points
    }

    /// The 33 signed base-256 digits of `u` (Σ dᵢ·256ⁱ = u).
    @inline(__always) static func digits(_ u: UInt256) -> [Int] {
        var out = [Int](repeating: 0, count: rows)
        var carry = 0
        for i in 0..<32 {
            var d = u.byte(i) + carry
            if d > 128 {
                d -= 256
                carry = 1
            } else {
                carry = 0
            }
            out[i] = d
        }
        out[32] = carry
        return out
    }

    /// `acc + d·256^row·P` for one recoded digit `d`.
    @inline(__always) func add(digit d: Int, row: Int, to acc: P256JacobianPoint) -> P256JacobianPoint {
        if d == 0 { return acc }
        var q = points[row &* Self.perRow &+ (d < 0 ? -d : d) &- 1]
        if d < 0 { q.y = P256Field.negate(q.y) }
        return acc.adding(q)
    }
}
