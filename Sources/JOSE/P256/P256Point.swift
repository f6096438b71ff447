/// A P-256 point in affine coordinates (Montgomery-form field elements); never the identity.
struct P256AffinePoint: Sendable {
    var x: UInt256
    var y: UInt256
}

/// A P-256 point in Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the identity.
struct P256JacobianPoint: Sendable {
    var x: UInt256
    var y: UInt256
    var z: UInt256

    static let identity = P256JacobianPoint(x: P256Field.one, y: P256Field.one, z: .zero)

    @inline(__always) var isIdentity: Bool { z.isZero }

    @inline(__always) init(x: UInt256, y: UInt256, z: UInt256) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inline(__always) init(_ p: P256AffinePoint) {
        self.init(x: p.x, y: p.y, z: P256Field.one)
    }

    /// 2·self ("dbl-2001-b", for a = −3).
    func doubled() -> P256JacobianPoint {
        typealias F = P256Field
        if isIdentity || y.isZero { return .identity }
        let delta = F.square(z)
        let gamma = F.square(y)
        let beta = F.multiply(x, gamma)
        var alpha = F.multiply(F.subtract(x, delta), F.add(x, delta))
        alpha = F.add(alpha, F.add(alpha, alpha))
        let beta4 = F.add(F.add(beta, beta), F.add(beta, beta))
        let x3 = F.subtract(F.square(alpha), F.add(beta4, beta4))
        let z3 = F.subtract(F.subtract(F.square(F.add(y, z)), gamma), delta)
        let gamma2 = F.square(gamma)
        let gamma8 = F.add(F.add(F.add(gamma2, gamma2), F.add(gamma2, gamma2)), F.add(F.add(gamma2, gamma2), F.add(gamma2, gamma2)))
        let y3 = F.subtract(F.multiply(alpha, F.subtract(beta4, x3)), gamma8)
        return P256JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + q for an affine q, complete: the identity, q = self and q = −self are handled.
    @inline(__always) func adding(_ q: P256AffinePoint) -> P256JacobianPoint {
        typealias F = P256Field
        if isIdentity { return P256JacobianPoint(q) }
        let z1z1 = F.square(z)
        let u2 = F.multiply(q.x, z1z1)
        let s2 = F.multiply(q.y, F.multiply(z, z1z1))
        let h = F.subtract(u2, x)
        let r = F.subtract(s2, y)
        if h.isZero { return r.isZero ? doubled() : .identity }
        let hh = F.square(h)
        let hhh = F.multiply(h, hh)
        let v = F.multiply(x, hh)
        let x3 = F.subtract(F.subtract(F.subtract(F.square(r), hhh), v), v)
        let y3 = F.subtract(F.multiply(r, F.subtract(v, x3)), F.multiply(y, hhh))
        return P256JacobianPoint(x: x3, y: y3, z: F.multiply(z, h))
    }
}

extension P256AffinePoint {
    /// The affine forms of `points`, none of which may be the identity, with one inversion for all
    /// (Montgomery's trick).
    static func normalizing(_ points: [P256JacobianPoint]) -> [P256AffinePoint] {
        typealias F = P256Field
        guard !points.isEmpty else { return [] }
        var prefix = [UInt256](repeating: .zero, count: points.count)
        var running = F.one
        for i in points.indices {
            precondition(!points[i].isIdentity)
            running = F.multiply(running, points[i].z)
            prefix[i] = running
        }
        var inverse = F.inverse(running)
        var out = [P256AffinePoint](repeating: P256AffinePoint(x: .zero, y: .zero), count: points.count)
        for i in points.indices.reversed() {
            let zInverse = i == 0 ? inverse : F.multiply(inverse, prefix[i - 1])
            inverse = F.multiply(inverse, points[i].z)
            let z2 = F.square(zInverse)
            out[i] = P256AffinePoint(x: F.multiply(points[i].x, z2), y: F.multiply(points[i].y, F.multiply(z2, zInverse)))
        }
        return out
    }
}
