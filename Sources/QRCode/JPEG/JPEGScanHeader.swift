/// A scan header (SOS, T.81 B.2.3): which components the scan codes, with which tables,
/// and for progressive JPEG which coefficients and bits.
struct JPEGScanHeader {
    struct Member {
        /// Index into the frame's components.
        let component: Int
        let dcTable: Int, acTable: Int
    }

    let members: [Member]
    /// Spectral selection start and end (zig-zag indices).
    let start: Int, end: Int
    /// Successive approximation: the bit position of the previous scan (0 for a first scan) and of this one.
    let high: Int, low: Int

    /// Whether this scan codes the luminance component (the frame's first).
    var includesLuma: Bool { members.contains { $0.component == 0 } }

    /// Parses and checks an SOS body `bytes[start..<end]` against `frame`.
    init(bytes: [UInt8], start: Int, end: Int, offset: Int, frame: JPEGFrame) throws(JPEGError) {
        guard end - start >= 1 else { throw .invalidSegmentLength(marker: JPEGMarker.sos, length: end - start + 2, offset: offset) }
        let count = Int(bytes[start])
        guard end - start == 4 + 2 * count else { throw .invalidSegmentLength(marker: JPEGMarker.sos, length: end - start + 2, offset: offset) }
        guard count >= 1, count <= 4 else { throw .invalidScanHeader(offset: offset) }
        var members: [Member] = []
        for index in 0..<count {
            let id = Int(bytes[start + 1 + 2 * index]), tables = bytes[start + 2 + 2 * index]
            guard let component = frame.components.firstIndex(where: { $0.id == id }) else { throw .invalidScanHeader(offset: offset) }
            // T.81 B.2.3: components appear in frame order, each at most once.
            if let previous = members.last, previous.component >= component { throw .invalidScanHeader(offset: offset) }
            let dc = Int(tables >> 4), ac = Int(tables & 0x0F)
            guard dc <= 3, ac <= 3 else { throw .invalidScanHeader(offset: offset) }
            members.append(Member(component: component, dcTable: dc, acTable: ac))
        }
        // An interleaved MCU holds at most 10 blocks (T.81 B.2.3).
        if count > 1 {
            let blocks = members.reduce(0) { $0 + frame.components[$1.component].h * frame.components[$1.component].v }
            guard blocks <= 10 else { throw .invalidScanHeader(offset: offset) }
        }
        let tail = start + 1 + 2 * count
        self.members = members
        self.start = Int(bytes[tail])
        self.end = Int(bytes[tail + 1])
        self.high = Int(bytes[tail + 2] >> 4)
        self.low = Int(bytes[tail + 2] & 0x0F)
        if frame.kind == .progressive {
            // The checks libjpeg makes (jdphuff.c start_pass_phuff_decoder).
            let valid: Bool
            if self.start == 0 {
                valid = self.end == 0
            } else {
                valid = self.end >= self.start && self.end <= 63 && count == 1
            }
            guard valid, self.low <= 13, self.high == 0 || self.low == self.high - 1 else {
                throw .invalidProgression(start: self.start, end: self.end, high: self.high, low: self.low, offset: offset)
            }
        }
        // Sequential scans must be Ss=0, Se=63, Ah=Al=0; libjpeg only warns otherwise, and so
        // the values are ignored here too.
    }
}
