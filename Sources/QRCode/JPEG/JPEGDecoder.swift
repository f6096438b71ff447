import Foundation

/// Decodes JPEG files (baseline, extended sequential and progressive Huffman-coded, 8-bit,
/// grayscale or YCbCr, any sampling factors, restart intervals) into their luminance, turned
/// upright by the EXIF orientation: what a QR reader needs from a phone photo.
///
/// Pure Swift with bounded work: dimensions are checked against `Limits` before any pixel
/// memory exists, the number of scans is capped, and every malformed input ends in a
/// `JPEGError`. Arithmetic coding, 12-bit samples, lossless and hierarchical JPEG, and
/// RGB / CMYK / YCCK colour are refused with typed errors. See docs/jpeg.md.
public enum JPEGDecoder {
    /// Caps that keep hostile files from using unbounded memory or time.
    public struct Limits: Sendable, Hashable {
        /// Largest accepted width × height.
        public var maxPixels: Int
        /// Largest accepted width and height.
        public var maxDimension: Int
        /// Largest accepted number of scans. A progressive file needs about ten; without a cap,
        /// a small file of many cheap scans over a large frame costs unbounded time (libjpeg-turbo
        /// added the same cap, `-maxscans`, for that reason).
        public var maxScans: Int

        /// Creates limits; every value must be positive to admit any image.
        public init(maxPixels: Int, maxDimension: Int, maxScans: Int = 256) {
            self.maxPixels = maxPixels
            self.maxDimension = maxDimension
            self.maxScans = maxScans
        }

        /// 40 megapixels, 16384 pixels a side, 256 scans.
        public static let `default` = Limits(maxPixels: 40_000_000, maxDimension: 16384)
    }

    /// The luminance (Y, or the one component of a grayscale JPEG) as a GrayImage, rotated or
    /// flipped upright according to the EXIF orientation tag when there is one.
    /// - Throws: `JPEGError` naming what is wrong and where.
    public static func decodeLuma(_ data: Data, limits: Limits = .default) throws(JPEGError) -> GrayImage {
        try decodeLuma([UInt8](data), limits: limits)
    }

    /// Decodes JPEG `bytes`; see `decodeLuma(_:limits:)`.
    public static func decodeLuma(_ bytes: [UInt8], limits: Limits = .default) throws(JPEGError) -> GrayImage {
        var decoder = JPEGDecodingSession(bytes: bytes, limits: limits)
        return try decoder.run()
    }
}

/// The state of one decode: tables and the frame as the marker loop meets them.
struct JPEGDecodingSession {
    let bytes: [UInt8]
    let limits: JPEGDecoder.Limits
    var quantizationTables: [[Int32]?] = [nil, nil, nil, nil]
    var dcTables: [JPEGHuffmanTable?] = [nil, nil, nil, nil]
    var acTables: [JPEGHuffmanTable?] = [nil, nil, nil, nil]
    var restartInterval = 0
    var orientation: JPEGExifOrientation?
    var adobeTransform: Int?
    var frame: JPEGFrame?
    var plane: JPEGLumaPlane?
    /// Progressive only: the luminance coefficients, inverse-transformed once all scans are in.
    var coefficients: [Int16] = []
    /// Progressive only: which coefficients of each luminance block are nonzero (bit k = zig-zag k).
    var nonzero: [UInt64] = []
    /// The luminance quantization table as it stood at the first luminance scan (libjpeg latches it there too).
    var lumaQuantization: [Int32]?
    var scans = 0

    init(bytes: [UInt8], limits: JPEGDecoder.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func run() throws(JPEGError) -> GrayImage {
        guard bytes.count >= 2 else { throw bytes.first.map { $0 == 0xFF ? .truncated(offset: bytes.count) : .notJPEG } ?? .notJPEG }
        guard bytes[0] == 0xFF, bytes[1] == JPEGMarker.soi else { throw .notJPEG }
        var position = 2
        while true {
            let (marker, offset) = try nextMarker(at: position)
            position = offset + 2
            if marker == JPEGMarker.eoi { return try finish() }
            // Markers without a length: RSTn outside a scan and TEM; libjpeg ignores them too.
            if JPEGMarker.isRestart(marker) || marker == JPEGMarker.tem { continue }
            if marker == JPEGMarker.soi { throw .unexpectedMarker(marker: marker, offset: offset) }
            // 02–BF are reserved and have no defined layout.
            if marker < 0xC0 { throw .unexpectedMarker(marker: marker, offset: offset) }
            let (start, end) = try segment(at: offset)
            position = end
            if let kind = JPEGMarker.frameKind(marker) {
                switch kind {
                case let .failure(refusal): throw .unsupportedProcess(refusal.process, marker: marker, offset: offset)
                case let .success(kind):
                    guard frame == nil else { throw .multipleFrames(offset: offset) }
                    let parsed = try JPEGFrame(kind: kind, bytes: bytes, start: start, end: end, offset: offset, limits: limits, adobeTransform: adobeTransform)
                    frame = parsed
                }
                continue
            }
            switch marker {
            case JPEGMarker.dht: try JPEGHuffmanTable.parse(bytes, start: start, end: end, dc: &dcTables, ac: &acTables)
            case JPEGMarker.dqt: try JPEGQuantizationTable.parse(bytes, start: start, end: end, into: &quantizationTables)
            case JPEGMarker.dri:
                guard end - start == 2 else { throw .invalidSegmentLength(marker: marker, length: end - start + 2, offset: offset) }
                restartInterval = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            case JPEGMarker.sos: position = try scan(start: start, end: end, offset: offset)
            case JPEGMarker.app1:
                if orientation == nil { orientation = JPEGExifOrientation.parse(bytes, start: start, end: end) }
            case JPEGMarker.app14:
                // "Adobe", version, two flag words, then the colour transform (T.872 6.5.3).
                if end - start >= 12, bytes[start..<(start + 5)].elementsEqual([0x41, 0x64, 0x6F, 0x62, 0x65]) {
                    adobeTransform = Int(bytes[start + 11])
                }
            default:
                break  // APPn, COM, DNL (height 0 is refused at the frame) and JPGn carry nothing needed here.
            }
        }
    }

    /// The marker at `position`, after any fill bytes (`FF FF …`).
    private func nextMarker(at position: Int) throws(JPEGError) -> (UInt8, Int) {
        guard position < bytes.count else { throw .truncated(offset: bytes.count) }
        guard bytes[position] == 0xFF else { throw .markerExpected(found: bytes[position], offset: position) }
        var index = position
        while index + 1 < bytes.count, bytes[index + 1] == 0xFF { index += 1 }
        guard index + 1 < bytes.count else { throw .truncated(offset: bytes.count) }
        return (bytes[index + 1], index)
    }

    /// The body of the segment whose marker is at `offset`: `[start, end)` after its length field.
    private func segment(at offset: Int) throws(JPEGError) -> (Int, Int) {
        guard offset + 4 <= bytes.count else { throw .truncated(offset: bytes.count) }
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        guard length >= 2 else { throw .invalidSegmentLength(marker: bytes[offset + 1], length: length, offset: offset) }
        guard offset + 2 + length <= bytes.count else { throw .truncated(offset: bytes.count) }
        return (offset + 4, offset + 2 + length)
    }

    /// Decodes (or, without luminance, skips) the scan whose header is `bytes[start..<end]`.
    /// - Returns: where the marker loop resumes.
    private mutating func scan(start: Int, end: Int, offset: Int) throws(JPEGError) -> Int {
        guard let frame else { throw .scanBeforeFrame(offset: offset) }
        scans += 1
        guard scans <= limits.maxScans else { throw .tooManyScans(limit: limits.maxScans) }
        let header = try JPEGScanHeader(bytes: bytes, start: start, end: end, offset: offset, frame: frame)
        guard header.includesLuma else {
            // Chroma-only scans add nothing to the luminance; their data runs to the next marker.
            let next = bytes.withUnsafeBufferPointer { JPEGBitReader.nextMarker(in: $0, from: end, skippingRestarts: true) }
            guard let (_, resume) = next else { throw .truncated(offset: bytes.count) }
            return resume
        }
        if frame.kind == .progressive, coefficients.isEmpty {
            // Allocated at the first luminance scan, not at the frame header, so a header alone
            // (a few bytes declaring 40 megapixels) costs nothing.
            let blocks = frame.luma.paddedBlocksWide * frame.luma.paddedBlocksHigh
            coefficients = [Int16](repeating: 0, count: blocks * 64)
            nonzero = [UInt64](repeating: 0, count: blocks)
        }
        if lumaQuantization == nil {
            let id = frame.luma.quantizationTable
            guard let table = quantizationTables[id] else { throw .missingQuantizationTable(id: id, component: frame.luma.id) }
            lumaQuantization = table
        }
        // Which tables the scan needs: progressive DC scans no AC table, AC scans no DC table,
        // DC refinement none at all.
        let progressive = frame.kind == .progressive
        let needsDC = !progressive || (header.start == 0 && header.high == 0)
        let needsAC = !progressive || header.start > 0
        // Flat copies of the tables, freed when the scan ends.
        let arena = JPEGHuffmanArena()
        var dc: [JPEGHuffmanLookup?] = [], ac: [JPEGHuffmanLookup?] = []
        for member in header.members {
            let dcTable = dcTables[member.dcTable], acTable = acTables[member.acTable]
            if needsDC, dcTable == nil { throw .missingHuffmanTable(isAC: false, id: member.dcTable, offset: offset) }
            if needsAC, acTable == nil { throw .missingHuffmanTable(isAC: true, id: member.acTable, offset: offset) }
            dc.append(needsDC ? dcTable.map(arena.lookup(for:)) : nil)
            ac.append(needsAC ? acTable.map(arena.lookup(for:)) : nil)
        }
        let quantization = lumaQuantization ?? []
        let restartInterval = self.restartInterval
        let bytes = self.bytes
        return try withExtendedLifetime(arena) { () throws(JPEGError) -> Int in
            if progressive {
                return try coefficients.withUnsafeMutableBufferPointer { (coefficients: inout UnsafeMutableBufferPointer<Int16>) throws(JPEGError) -> Int in
                    try nonzero.withUnsafeMutableBufferPointer { (nonzero: inout UnsafeMutableBufferPointer<UInt64>) throws(JPEGError) -> Int in
                        guard let base = coefficients.baseAddress, let masks = nonzero.baseAddress else { return end }
                        return try bytes.withUnsafeBufferPointer { (data: UnsafeBufferPointer<UInt8>) throws(JPEGError) -> Int in
                            try JPEGProgressiveScan.decode(header, frame: frame, dcTables: dc, acTables: ac, restartInterval: restartInterval,
                                                           coefficients: base, nonzero: masks, bytes: data, start: end)
                        }
                    }
                }
            }
            // The plane is made at the first sequential luminance scan (lazily, like the
            // coefficients) and moved out while the scan writes it, so it stays uniquely referenced.
            var plane = self.plane ?? JPEGLumaPlane(component: frame.luma)
            self.plane = nil
            defer { self.plane = plane }
            return try bytes.withUnsafeBufferPointer { (data: UnsafeBufferPointer<UInt8>) throws(JPEGError) -> Int in
                try JPEGSequentialScan.decode(header, frame: frame, dcTables: dc.compactMap { $0 }, acTables: ac.compactMap { $0 },
                                              restartInterval: restartInterval, quantization: quantization, plane: &plane, bytes: data, start: end)
            }
        }
    }

    /// At EOI: the upright luminance image.
    private mutating func finish() throws(JPEGError) -> GrayImage {
        guard let frame, let quantization = lumaQuantization else { throw .noImageData }
        var plane = self.plane ?? JPEGLumaPlane(component: frame.luma)
        if frame.kind == .progressive {
            JPEGProgressiveOutput.transform(coefficients, component: frame.luma, quantization: quantization, into: &plane)
        }
        let image = plane.image(frame: frame)
        return orientation?.apply(to: image) ?? image
    }
}
