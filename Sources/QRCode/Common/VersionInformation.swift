/// The 18-bit version information of versions 7 and up: a 6-bit version number
/// protected by a BCH(18,6) code.
enum VersionInformation {
    /// The 18-bit word for `version` (meaningful for 7...40).
    static func bits(for version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        return version << 12 | remainder
    }

    /// The valid words for versions 7...40.
    static let validWords: [(word: Int, version: Int)] = (7...40).map { (bits(for: $0), $0) }

    /// The version whose word is nearest to `read`, or nil beyond 3 bit errors.
    static func decode(_ read: Int) -> (version: QRVersion, distance: Int)? {
        var best: (version: Int, distance: Int)?
        for candidate in validWords {
            let distance = (candidate.word ^ read).nonzeroBitCount
            if best == nil || distance < best!.distance { best = (candidate.version, distance) }
        }
        guard let found = best, found.distance <= 3, let version = QRVersion(found.version) else { return nil }
        return (version, found.distance)
    }

    /// Module coordinates (x, y) of bit `i` (0 = least significant) in the block above the
    /// bottom-left finder; the block left of the top-right finder is the transpose.
    static func bottomLeftPosition(bit i: Int, size: Int) -> (x: Int, y: Int) {
        (i / 3, size - 11 + i % 3)
    }
}
