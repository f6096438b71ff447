/// Pins a symbol's grid to every alignment pattern it can find, for photos taken at an
/// angle.
///
/// Three finder centres and one bottom-right alignment pattern fix a projective map
/// exactly, but any error in those four points grows toward the far side of a large
/// symbol, and under strong perspective the bottom-right pattern may not be where the
/// first guess looks. Starting next to the finders, where the first estimate is good,
/// each alignment pattern found corrects the prediction for its neighbours; once the
/// found points span the symbol, a least-squares projective fit through all of them
/// replaces the estimate (the way zxing-cpp re-fits its grid to the patterns it finds).
enum GridRefiner {
    /// A better module→image map for a `dimension`-module symbol, or nil when no
    /// alignment pattern could be found to improve on `initial`.
    /// - Parameters:
    ///   - finders: image centres of the top-left, top-right and bottom-left finders.
    static func refine(image: BinaryImage, initial: PerspectiveTransform, dimension: Int, finders: [QRPoint]) -> PerspectiveTransform? {
        guard let version = QRVersion(size: dimension), version.size == dimension else { return nil }
        let centers = version.alignmentPatternCenters
        guard centers.count >= 2 else { return nil }
        let d = Double(dimension)
        var known: [(module: QRPoint, image: QRPoint)] = [
            (QRPoint(x: 3.5, y: 3.5), finders[0]), (QRPoint(x: d - 3.5, y: 3.5), finders[1]), (QRPoint(x: 3.5, y: d - 3.5), finders[2]),
        ]
        let first = centers[0], last = centers[centers.count - 1]
        var pending: [QRPoint] = []
        for cy in centers {
            for cx in centers {
                // The three corners with a finder carry no alignment pattern.
                if (cx == first && cy == first) || (cx == last && cy == first) || (cx == first && cy == last) { continue }
                pending.append(QRPoint(x: Double(cx) + 0.5, y: Double(cy) + 0.5))
            }
        }
        var transform = initial
        var fitted = false
        var found = 0
        while !pending.isEmpty {
            // Next: the pattern nearest to a point already pinned, so each prediction is short.
            var bestIndex = 0, bestDistance = Double.infinity
            for (i, p) in pending.enumerated() {
                let nearest = known.map { $0.module.distance(to: p) }.min() ?? .infinity
                if nearest < bestDistance { bestDistance = nearest; bestIndex = i }
            }
            let target = pending.remove(at: bestIndex)
            let predicted = predict(target, transform: transform, known: known, fitted: fitted)
            let unitX = delta(transform, target, 1, 0), unitY = delta(transform, target, 0, 1)
            // Before a full fit the prediction is rougher, so look a little further.
            guard let at = AlignmentPatternFinder.find(in: image, predicted: predicted, unitX: unitX, unitY: unitY, radius: fitted ? 2.5 : 3.5) else { continue }
            known.append((target, at))
            found += 1
            // A projective fit needs points off the finders' two edges, or it extrapolates wildly.
            let spans = known.contains { $0.module.x > d / 4 && $0.module.y > d / 4 }
            if spans, let t = fit(known) {
                transform = t
                fitted = true
            }
        }
        guard found > 0 else { return nil }
        return fitted ? transform : nil
    }

    /// Where `module` should appear. Once a full fit exists, that fit; before, the current
    /// map plus a first-order correction: the offsets of the patterns found along the top
    /// row and the left column, interpolated at this column and this row and added (the
    /// finders themselves have no offset). Perspective bends both edges smoothly, so the
    /// sum is close inside the symbol too.
    private static func predict(_ module: QRPoint, transform: PerspectiveTransform, known: [(module: QRPoint, image: QRPoint)], fitted: Bool) -> QRPoint {
        let base = transform.apply(module.x, module.y)
        if fitted { return base }
        func offset(_ k: (module: QRPoint, image: QRPoint)) -> QRPoint {
            let expected = transform.apply(k.module.x, k.module.y)
            return QRPoint(x: k.image.x - expected.x, y: k.image.y - expected.y)
        }
        // Interpolates offsets along one edge at coordinate t; samples are (position, offset).
        func along(_ samples: [(Double, QRPoint)], at t: Double) -> QRPoint {
            let sorted = samples.sorted { $0.0 < $1.0 }
            guard let first = sorted.first, let last = sorted.last else { return QRPoint(x: 0, y: 0) }
            if t <= first.0 { return first.1 }
            if t >= last.0 { return last.1 }
            for i in 1..<sorted.count where t <= sorted[i].0 {
                let a = sorted[i - 1], b = sorted[i]
                let f = (t - a.0) / Swift.max(1e-9, b.0 - a.0)
                return QRPoint(x: a.1.x + f * (b.1.x - a.1.x), y: a.1.y + f * (b.1.y - a.1.y))
            }
            return last.1
        }
        let edge = 7.0
        var top: [(Double, QRPoint)] = [(3.5, QRPoint(x: 0, y: 0))], left: [(Double, QRPoint)] = [(3.5, QRPoint(x: 0, y: 0))]
        for k in known where k.module.x > 4 || k.module.y > 4 {
            if k.module.y < edge { top.append((k.module.x, offset(k))) }
            if k.module.x < edge { left.append((k.module.y, offset(k))) }
        }
        let a = module.y < edge ? QRPoint(x: 0, y: 0) : along(left, at: module.y)
        let b = module.x < edge ? QRPoint(x: 0, y: 0) : along(top, at: module.x)
        // On an edge only that edge's own offsets apply.
        let onTop = module.y < edge, onLeft = module.x < edge
        let correction = onTop ? along(top, at: module.x) : onLeft ? along(left, at: module.y) : QRPoint(x: a.x + b.x, y: a.y + b.y)
        return QRPoint(x: base.x + correction.x, y: base.y + correction.y)
    }

    private static func delta(_ t: PerspectiveTransform, _ p: QRPoint, _ dx: Double, _ dy: Double) -> QRPoint {
        let a = t.apply(p.x, p.y), b = t.apply(p.x + dx, p.y + dy)
        return QRPoint(x: b.x - a.x, y: b.y - a.y)
    }

    /// Least-squares projective map taking each `module` point to its `image` point
    /// (h33 = 1, eight unknowns, normal equations), in coordinates scaled to about ±1 so
    /// the system stays well conditioned.
    static func fit(_ pairs: [(module: QRPoint, image: QRPoint)]) -> PerspectiveTransform? {
        guard pairs.count >= 4 else { return nil }
        let mx = pairs.map(\.module.x).reduce(0, +) / Double(pairs.count), my = pairs.map(\.module.y).reduce(0, +) / Double(pairs.count)
        let ix = pairs.map(\.image.x).reduce(0, +) / Double(pairs.count), iy = pairs.map(\.image.y).reduce(0, +) / Double(pairs.count)
        let ms = Swift.max(1e-9, pairs.map { Swift.max(abs($0.module.x - mx), abs($0.module.y - my)) }.max()!)
        let iscale = Swift.max(1e-9, pairs.map { Swift.max(abs($0.image.x - ix), abs($0.image.y - iy)) }.max()!)
        var ata = [Double](repeating: 0, count: 64)
        var atb = [Double](repeating: 0, count: 8)
        func add(_ row: [Double], _ rhs: Double) {
            for i in 0..<8 {
                atb[i] += row[i] * rhs
                for j in 0..<8 { ata[i * 8 + j] += row[i] * row[j] }
            }
        }
        for p in pairs {
            let u = (p.module.x - mx) / ms, v = (p.module.y - my) / ms
            let x = (p.image.x - ix) / iscale, y = (p.image.y - iy) / iscale
            add([u, v, 1, 0, 0, 0, -x * u, -x * v], x)
            add([0, 0, 0, u, v, 1, -y * u, -y * v], y)
        }
        guard let h = solve(ata, atb) else { return nil }
        // Module → normalised module, the fitted map, normalised image → image.
        let toNormal = PerspectiveTransform(a11: 1 / ms, a12: 0, a13: 0, a21: 0, a22: 1 / ms, a23: 0, a31: -mx / ms, a32: -my / ms, a33: 1)
        let fitted = PerspectiveTransform(a11: h[0], a12: h[3], a13: h[6], a21: h[1], a22: h[4], a23: h[7], a31: h[2], a32: h[5], a33: 1)
        let fromNormal = PerspectiveTransform(a11: iscale, a12: 0, a13: 0, a21: 0, a22: iscale, a23: 0, a31: ix, a32: iy, a33: 1)
        return toNormal.then(fitted).then(fromNormal)
    }

    /// Gaussian elimination with partial pivoting on an n×n system (row-major).
    private static func solve(_ matrix: [Double], _ rhs: [Double]) -> [Double]? {
        let n = rhs.count
        var a = matrix, b = rhs
        for col in 0..<n {
            var pivot = col
            for r in (col + 1)..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
            guard abs(a[pivot * n + col]) > 1e-12 else { return nil }
            if pivot != col {
                for c in 0..<n { a.swapAt(col * n + c, pivot * n + c) }
                b.swapAt(col, pivot)
            }
            for r in (col + 1)..<n {
                let f = a[r * n + col] / a[col * n + col]
                if f == 0 { continue }
                for c in col..<n { a[r * n + c] -= f * a[col * n + c] }
                b[r] -= f * b[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = b[r]
            for c in (r + 1)..<n { s -= a[r * n + c] * x[c] }
            x[r] = s / a[r * n + r]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
