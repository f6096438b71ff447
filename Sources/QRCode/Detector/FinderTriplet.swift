/// Three finder patterns that could be the corners of one symbol, in symbol order.
struct FinderTriplet: Sendable {
    let topLeft: FinderPattern
    let topRight: FinderPattern
    let bottomLeft: FinderPattern
    /// Indices of the three patterns in the candidate list.
    let members: [Int]
    /// Lower is a better fit to a right isosceles triangle of equal-sized finders.
    let score: Double

    /// Orders three patterns: the corner opposite the longest side is top-left, and the
    /// sign of the cross product tells top-right from bottom-left.
    static func make(_ a: FinderPattern, _ b: FinderPattern, _ c: FinderPattern, members: [Int]) -> FinderTriplet? {
        let sizes = [a.moduleSize, b.moduleSize, c.moduleSize]
        let smallest = sizes.min()!, largest = sizes.max()!
        // Generous, for photos taken at an angle: the near finder can look over twice the size of
        // the far one. Ranking by score still tries square-on triplets first.
        guard largest <= smallest * 2.6 else { return nil }
        let ab = a.point.distance(to: b.point), bc = b.point.distance(to: c.point), ac = a.point.distance(to: c.point)
        var topLeft: FinderPattern, p: FinderPattern, q: FinderPattern
        if bc >= ab && bc >= ac {
            (topLeft, p, q) = (a, b, c)
        } else if ac >= bc && ac >= ab {
            (topLeft, p, q) = (b, a, c)
        } else {
            (topLeft, p, q) = (c, a, b)
        }
        let legA = topLeft.point.distance(to: p.point), legB = topLeft.point.distance(to: q.point)
        let hypotenuse = p.point.distance(to: q.point)
        let shorter = Swift.min(legA, legB)
        guard shorter > 0 else { return nil }
        let legDifference = abs(legA - legB) / shorter
        let expectedHypotenuse = (legA * legA + legB * legB).squareRoot()
        let hypotenuseError = abs(hypotenuse - expectedHypotenuse) / Swift.min(hypotenuse, expectedHypotenuse)
        guard legDifference < 0.45, hypotenuseError < 0.25 else { return nil }
        let averageModule = (a.moduleSize + b.moduleSize + c.moduleSize) / 3
        // Finder centres are 7 modules short of the symbol's side: sides of 21...177 modules.
        let modulesAcross = (legA + legB) / 2 / averageModule + 7
        guard modulesAcross >= 15, modulesAcross <= 200 else { return nil }

        // Cross product z of (p − tl) × (q − tl), in image coordinates with y down.
        let cross = (p.x - topLeft.x) * (q.y - topLeft.y) - (p.y - topLeft.y) * (q.x - topLeft.x)
        let (topRight, bottomLeft) = cross > 0 ? (p, q) : (q, p)
        let score = legDifference + hypotenuseError + (largest - smallest) / largest
        return FinderTriplet(topLeft: topLeft, topRight: topRight, bottomLeft: bottomLeft, members: members, score: score)
    }

    /// Every plausible triplet among `patterns`, best first; at most `limit` of them.
    static func all(from patterns: [FinderPattern], limit: Int) -> [FinderTriplet] {
        // Keep the best-confirmed candidates so the cubic search stays small.
        let ranked = patterns.indices.sorted { patterns[$0].count > patterns[$1].count }.prefix(40)
        let indices = Array(ranked)
        var triplets: [FinderTriplet] = []
        for i in 0..<indices.count {
            for j in (i + 1)..<Swift.max(i + 1, indices.count) {
                for k in (j + 1)..<Swift.max(j + 1, indices.count) {
                    let members = [indices[i], indices[j], indices[k]]
                    if let t = make(patterns[members[0]], patterns[members[1]], patterns[members[2]], members: members) {
                        triplets.append(t)
                    }
                }
            }
        }
        triplets.sort { $0.score < $1.score }
        return Array(triplets.prefix(limit))
    }
}
