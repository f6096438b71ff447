/// A projective map of the plane, used to go from module coordinates to image pixels.
struct PerspectiveTransform: Sendable {
    let a11, a12, a13, a21, a22, a23, a31, a32, a33: Double

    /// The transform taking the quadrilateral `from` onto `to` (four corners each, in order).
    static func quadrilateral(from: [QRPoint], to: [QRPoint]) -> PerspectiveTransform? {
        guard let quadToSquare = squareToQuadrilateral(from)?.adjugate, let squareToQuad = squareToQuadrilateral(to) else { return nil }
        return quadToSquare.then(squareToQuad)
    }

    /// Maps the unit square (0,0), (1,0), (1,1), (0,1) onto `p`.
    static func squareToQuadrilateral(_ p: [QRPoint]) -> PerspectiveTransform? {
        let dx3 = p[0].x - p[1].x + p[2].x - p[3].x
        let dy3 = p[0].y - p[1].y + p[2].y - p[3].y
        if abs(dx3) < 1e-9 && abs(dy3) < 1e-9 {
            return PerspectiveTransform(a11: p[1].x - p[0].x, a12: p[1].y - p[0].y, a13: 0,
                                        a21: p[2].x - p[1].x, a22: p[2].y - p[1].y, a23: 0,
                                        a31: p[0].x, a32: p[0].y, a33: 1)
        }
        let dx1 = p[1].x - p[2].x, dx2 = p[3].x - p[2].x
        let dy1 = p[1].y - p[2].y, dy2 = p[3].y - p[2].y
        let denominator = dx1 * dy2 - dx2 * dy1
        guard abs(denominator) > 1e-12 else { return nil }
        let a13 = (dx3 * dy2 - dx2 * dy3) / denominator
        let a23 = (dx1 * dy3 - dx3 * dy1) / denominator
        return PerspectiveTransform(a11: p[1].x - p[0].x + a13 * p[1].x, a12: p[1].y - p[0].y + a13 * p[1].y, a13: a13,
                                    a21: p[3].x - p[0].x + a23 * p[3].x, a22: p[3].y - p[0].y + a23 * p[3].y, a23: a23,
                                    a31: p[0].x, a32: p[0].y, a33: 1)
    }

    /// Points are row vectors `[x y 1]` multiplied on the left, so `a.then(b)` is the
    /// matrix product a·b; the adjugate inverts a projective map up to scale.
    var adjugate: PerspectiveTransform {
        PerspectiveTransform(a11: a22 * a33 - a23 * a32, a12: a13 * a32 - a12 * a33, a13: a12 * a23 - a13 * a22,
                             a21: a23 * a31 - a21 * a33, a22: a11 * a33 - a13 * a31, a23: a13 * a21 - a11 * a23,
                             a31: a21 * a32 - a22 * a31, a32: a12 * a31 - a11 * a32, a33: a11 * a22 - a12 * a21)
    }

    func then(_ b: PerspectiveTransform) -> PerspectiveTransform {
        PerspectiveTransform(
            a11: a11 * b.a11 + a12 * b.a21 + a13 * b.a31, a12: a11 * b.a12 + a12 * b.a22 + a13 * b.a32, a13: a11 * b.a13 + a12 * b.a23 + a13 * b.a33,
            a21: a21 * b.a11 + a22 * b.a21 + a23 * b.a31, a22: a21 * b.a12 + a22 * b.a22 + a23 * b.a32, a23: a21 * b.a13 + a22 * b.a23 + a23 * b.a33,
            a31: a31 * b.a11 + a32 * b.a21 + a33 * b.a31, a32: a31 * b.a12 + a32 * b.a22 + a33 * b.a32, a33: a31 * b.a13 + a32 * b.a23 + a33 * b.a33)
    }

    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> QRPoint {
        let denominator = a13 * x + a23 * y + a33
        return QRPoint(x: (a11 * x + a21 * y + a31) / denominator, y: (a12 * x + a22 * y + a32) / denominator)
    }
}
