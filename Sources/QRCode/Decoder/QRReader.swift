import Foundation

/// Finds and decodes QR codes in images.
public enum QRReader {
    /// Reads every QR code in `image`, top to bottom then left to right. Returns an empty
    /// array when none can be decoded; never throws for image content.
    public static func read(image: GrayImage) -> [DecodedQR] {
        guard image.width > 0, image.height > 0 else { return [] }
        let local = Binarizer.local(image)
        var results = read(binary: local)
        if results.isEmpty {
            // A second opinion for images the local threshold breaks up (very large modules, flat lighting).
            results = read(binary: Binarizer.global(image))
        }
        if results.isEmpty {
            // A mirrored image whose finders still order correctly is handled while sampling;
            // flipping the whole image covers the remaining orientation mix-ups.
            results = read(binary: local.mirrored()).map { mirror($0, width: Double(image.width)) }
        }
        if results.isEmpty, image.width >= 120, image.height >= 120 {
            // Photos: averaging 2×2 pixels halves sensor noise and JPEG ringing that break
            // the finder runs at full size, and modules of 4+ pixels survive it (as
            // zxing-cpp's downscaled retry does).
            let half = Downsampler.half(image)
            results = read(binary: Binarizer.local(half)).map { scale($0, by: 2) }
        }
        if results.isEmpty, image.width >= 60, image.height >= 60 {
            // Noise that survives halving, or modules too small to halve: smooth in place.
            results = read(binary: Binarizer.local(Downsampler.smoothed(image)))
        }
        return readingOrder(results)
    }

    /// Top to bottom in bands, left to right within a band: a symbol joins the current
    /// band when its centre lies above the band's lowest bottom edge.
    static func readingOrder(_ results: [DecodedQR]) -> [DecodedQR] {
        func top(_ r: DecodedQR) -> Double { [r.position.topLeft, r.position.topRight, r.position.bottomLeft, r.position.bottomRight].map(\.y).min()! }
        func bottom(_ r: DecodedQR) -> Double { [r.position.topLeft, r.position.topRight, r.position.bottomLeft, r.position.bottomRight].map(\.y).max()! }
        var ordered: [DecodedQR] = []
        var band: [DecodedQR] = []
        var bandBottom = -Double.infinity
        for result in results.sorted(by: { top($0) < top($1) }) {
            if !band.isEmpty && result.position.center.y > bandBottom {
                ordered += band.sorted { $0.position.center.x < $1.position.center.x }
                band = []
            }
            band.append(result)
            bandBottom = Swift.max(band.count == 1 ? -Double.infinity : bandBottom, bottom(result))
        }
        ordered += band.sorted { $0.position.center.x < $1.position.center.x }
        return ordered
    }

    /// The most pixels a file's image is read at: a larger one is made smaller first (by a
    /// whole factor, each pixel a block's mean). 4 Mpx keeps a version-40 code filling a third
    /// of a 50 Mpx photo at about 4 pixels a module, and bounds the reader's working memory
    /// whatever the file's size (the detector holds several copies of the image).
    public static let maxWorkingPixels = 1 << 22

    /// Decodes a PNG file and reads every QR code in it, at most ``maxWorkingPixels`` at a time.
    /// - Throws: `PNGError` when the PNG itself cannot be decoded.
    public static func read(png: Data, limits: PNGDecoder.Limits = .default) throws -> [DecodedQR] {
        let (image, factor) = try PNGDecoder.decode(png, limits: limits, atMostPixels: maxWorkingPixels)
        return read(image: image).map { scale($0, by: Double(factor)) }
    }

    /// Decodes a clean module grid (row-major, true = dark, no quiet zone), trying the
    /// mirrored grid if the grid as given does not decode.
    /// - Throws: `QRDecodeError` naming what failed.
    public static func decode(modules: [Bool], size: Int) throws -> DecodedQR {
        do {
            return try ModuleGridDecoder.decode(modules, size: size)
        } catch {
            guard modules.count == size * size, let mirrored = try? ModuleGridDecoder.decode(ModuleGridDecoder.transposed(modules, size: size), size: size) else {
                throw error
            }
            let p = mirrored.position
            return mirrored.with(position: QRCorners(topLeft: p.topLeft, topRight: p.bottomLeft, bottomRight: p.bottomRight, bottomLeft: p.topRight), mirrored: true)
        }
    }

    /// Decodes an encoded matrix directly (no image), e.g. to check damaged modules.
    public static func decode(_ matrix: QRMatrix) throws -> DecodedQR {
        try decode(modules: matrix.modules, size: matrix.size)
    }

    private static let maxTripletsTried = 60

    static func read(binary: BinaryImage) -> [DecodedQR] {
        let patterns = FinderPatternFinder.find(in: binary)
        guard patterns.count >= 3 else { return [] }
        let detector = SymbolDetector(image: binary)
        var used = Set<Int>()
        var results: [DecodedQR] = []
        for triplet in FinderTriplet.all(from: patterns, limit: maxTripletsTried) {
            if triplet.members.contains(where: used.contains) { continue }
            guard let decoded = detector.decode(triplet) else { continue }
            used.formUnion(triplet.members)
            // The same symbol can be reached through look-alike finder candidates.
            let duplicate = results.contains {
                $0.text == decoded.text && $0.position.center.distance(to: decoded.position.center) < 10
            }
            if !duplicate { results.append(decoded) }
        }
        return results
    }

    static func scale(_ decoded: DecodedQR, by factor: Double) -> DecodedQR {
        guard factor != 1 else { return decoded }
        func grow(_ p: QRPoint) -> QRPoint { QRPoint(x: p.x * factor, y: p.y * factor) }
        let p = decoded.position
        return decoded.with(position: QRCorners(topLeft: grow(p.topLeft), topRight: grow(p.topRight),
                                                bottomRight: grow(p.bottomRight), bottomLeft: grow(p.bottomLeft)),
                            mirrored: decoded.mirrored)
    }

    private static func mirror(_ decoded: DecodedQR, width: Double) -> DecodedQR {
        func flip(_ p: QRPoint) -> QRPoint { QRPoint(x: width - p.x, y: p.y) }
        let p = decoded.position
        return decoded.with(position: QRCorners(topLeft: flip(p.topLeft), topRight: flip(p.topRight),
                                                bottomRight: flip(p.bottomRight), bottomLeft: flip(p.bottomLeft)),
                            mirrored: !decoded.mirrored)
    }
}
