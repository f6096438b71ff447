/// A candidate finder pattern centre, refined as more scan lines confirm it.
struct FinderPattern: Sendable {
    var x: Double
    var y: Double
    var moduleSize: Double
    /// How many scan lines confirmed this centre.
    var count: Int

    var point: QRPoint { QRPoint(x: x, y: y) }

    func matches(x otherX: Double, y otherY: Double, moduleSize otherSize: Double) -> Bool {
        guard abs(otherY - y) <= otherSize, abs(otherX - x) <= otherSize else { return false }
        let difference = abs(otherSize - moduleSize)
        return difference <= 1 || difference <= moduleSize
    }

    /// Averages in another sighting, weighting by how many sightings each side has.
    func merged(x otherX: Double, y otherY: Double, moduleSize otherSize: Double) -> FinderPattern {
        let n = Double(count)
        return FinderPattern(x: (n * x + otherX) / (n + 1), y: (n * y + otherY) / (n + 1),
                             moduleSize: (n * moduleSize + otherSize) / (n + 1), count: count + 1)
    }
}
