/// Turns one finder triplet into a decoded symbol: module size, dimension, version,
/// alignment pattern, perspective transform, sampling and decoding.
struct SymbolDetector {
    let image: BinaryImage

    func decode(_ triplet: FinderTriplet) -> DecodedQR? {
        let tl = triplet.topLeft.point, tr = triplet.topRight.point, bl = triplet.bottomLeft.point
        guard let moduleSize = ModuleSizeEstimator(image: image).moduleSize(topLeft: tl, topRight: tr, bottomLeft: bl),
              moduleSize >= 0.9
        else { return nil }
        let across = (Double(Int((tl.distance(to: tr) / moduleSize).rounded())) + Double(Int((tl.distance(to: bl) / moduleSize).rounded()))) / 2 + 7
        let estimated = Swift.min(177, Swift.max(21, 17 + 4 * Int(((across - 17) / 4).rounded())))

        var dimensions: [Int] = []
        if estimated >= 41, let fromVersionInfo = readVersion(tl: tl, tr: tr, bl: bl, dimension: estimated) {
            dimensions.append(fromVersionInfo.size)
        }
        for delta in [0, -4, 4] where (21...177).contains(estimated + delta) && !dimensions.contains(estimated + delta) {
            dimensions.append(estimated + delta)
        }

        var index = 0
        while index < dimensions.count && index < 5 {
            let dimension = dimensions[index]
            index += 1
            switch attempt(dimension: dimension, triplet: triplet, moduleSize: moduleSize) {
            case .success(let decoded):
                return decoded
            case .failure(.versionMismatch(let read, _)):
                // The version information is more trustworthy than the size estimate.
                let size = 17 + 4 * read
                if !dimensions[index...].contains(size) { dimensions.insert(size, at: index) }
            case .failure:
                continue
            }
        }
        return nil
    }

    private func attempt(dimension: Int, triplet: FinderTriplet, moduleSize: Double) -> Result<DecodedQR, QRDecodeError> {
        let tl = triplet.topLeft.point, tr = triplet.topRight.point, bl = triplet.bottomLeft.point
        let between = Double(dimension - 7)
        let unitX = QRPoint(x: (tr.x - tl.x) / between, y: (tr.y - tl.y) / between)
        let unitY = QRPoint(x: (bl.x - tl.x) / between, y: (bl.y - tl.y) / between)
        var transforms: [PerspectiveTransform] = []
        let d = Double(dimension)
        let source = [QRPoint(x: 3.5, y: 3.5), QRPoint(x: d - 3.5, y: 3.5), QRPoint(x: d - 6.5, y: d - 6.5), QRPoint(x: 3.5, y: d - 3.5)]
        if dimension > 21 {
            for guess in alignmentGuesses(triplet: triplet, unitX: unitX, unitY: unitY, between: between) {
                if let found = AlignmentPatternFinder.find(in: image, predicted: guess.point, unitX: guess.unitX, unitY: guess.unitY, radius: guess.radius),
                   let t = PerspectiveTransform.quadrilateral(from: source, to: [tl, tr, found, bl]) {
                    transforms.append(t)
                    break
                }
            }
        }
        // Parallelogram through the three finders: right for flat, unskewed symbols and a
        // fallback when the alignment pattern is damaged.
        let corner = QRPoint(x: tr.x + bl.x - tl.x, y: tr.y + bl.y - tl.y)
        var affineSource = source
        affineSource[2] = QRPoint(x: d - 3.5, y: d - 3.5)
        if let t = PerspectiveTransform.quadrilateral(from: affineSource, to: [tl, tr, corner, bl]) { transforms.append(t) }

        // Finder centres are only known to about half a pixel; with modules under three
        // pixels that can put every other sample on a module edge, so retry with the grid
        // shifted by a third of a pixel each way.
        var nudges = [QRPoint(x: 0, y: 0)]
        if moduleSize < 3 {
            for dy in [-0.35, 0, 0.35] {
                for dx in [-0.35, 0, 0.35] where dx != 0 || dy != 0 { nudges.append(QRPoint(x: dx, y: dy)) }
            }
        }
        var lastError = QRDecodeError.notFound
        // nil: this transform did not decode; go on to the next.
        func decode(with transform: PerspectiveTransform) -> Result<DecodedQR, QRDecodeError>? {
            let corners = QRCorners(topLeft: transform.apply(0, 0), topRight: transform.apply(d, 0),
                                    bottomRight: transform.apply(d, d), bottomLeft: transform.apply(0, d))
            for nudge in nudges {
                guard let grid = GridSampler.sample(image, transform: transform, size: dimension, nudge: nudge) else { continue }
                do {
                    return .success(try ModuleGridDecoder.decode(grid, size: dimension).with(position: corners, mirrored: false))
                } catch {
                    // A version mismatch may only mean this transform is off (a photo at an
                    // angle); keep trying the others at this size before giving it up.
                    if case .versionMismatch = lastError {} else { lastError = error }
                }
                // A mirror image samples to the transposed grid; its corners swap accordingly.
                if let decoded = try? ModuleGridDecoder.decode(ModuleGridDecoder.transposed(grid, size: dimension), size: dimension) {
                    let mirroredCorners = QRCorners(topLeft: corners.topLeft, topRight: corners.bottomLeft,
                                                    bottomRight: corners.bottomRight, bottomLeft: corners.topRight)
                    return .success(decoded.with(position: mirroredCorners, mirrored: true))
                }
            }
            return nil
        }
        for transform in transforms {
            if let result = decode(with: transform) { return result }
        }
        // Photos taken at an angle: pin the grid to the alignment patterns themselves,
        // starting from each estimate above (only reached when those fail to decode).
        if dimension > 21 {
            for transform in transforms {
                guard let refined = GridRefiner.refine(image: image, initial: transform, dimension: dimension, finders: [tl, tr, bl]) else { continue }
                if let result = decode(with: refined) { return result }
            }
        }
        return .failure(lastError)
    }

    /// Where to look for the bottom-right alignment pattern, nearest guesses first.
    ///
    /// The first guess completes the parallelogram of the three finders (exact for flat
    /// views). The second treats the finders' differing module sizes as depth: in
    /// homogeneous coordinates a projective map is linear, and each finder's weight is
    /// inversely proportional to its apparent module size, which predicts a keystoned
    /// symbol's far corner and how much larger its modules appear there.
    private func alignmentGuesses(triplet: FinderTriplet, unitX: QRPoint, unitY: QRPoint, between: Double)
        -> [(point: QRPoint, unitX: QRPoint, unitY: QRPoint, radius: Double)] {
        let tl = triplet.topLeft.point, tr = triplet.topRight.point, bl = triplet.bottomLeft.point
        let steps = between - 3
        let affine = QRPoint(x: tl.x + steps * (unitX.x + unitY.x), y: tl.y + steps * (unitX.y + unitY.y))
        var guesses = [(affine, unitX, unitY, 4.0), (affine, unitX, unitY, 8.0)]
        let wTR = triplet.topLeft.moduleSize / triplet.topRight.moduleSize
        let wBL = triplet.topLeft.moduleSize / triplet.bottomLeft.moduleSize
        if abs(wTR - 1) > 0.04 || abs(wBL - 1) > 0.04 {
            let f = steps / between
            let w = 1 + f * (wTR - 1 + wBL - 1)
            if w > 0.2 {
                let hx = tl.x + f * (wTR * tr.x - tl.x + wBL * bl.x - tl.x)
                let hy = tl.y + f * (wTR * tr.y - tl.y + wBL * bl.y - tl.y)
                let k = 1 / w
                let scaledX = QRPoint(x: unitX.x * k, y: unitX.y * k), scaledY = QRPoint(x: unitY.x * k, y: unitY.y * k)
                let projective = QRPoint(x: hx / w, y: hy / w)
                guesses += [(projective, scaledX, scaledY, 4.0), (projective, scaledX, scaledY, 8.0)]
            }
        }
        guesses.append((affine, unitX, unitY, 16.0))
        return guesses
    }

    /// Reads the version information blocks beside the top-right and bottom-left finders,
    /// using only the local geometry next to each, so a dimension estimate a few modules
    /// off still lands on the right modules.
    private func readVersion(tl: QRPoint, tr: QRPoint, bl: QRPoint, dimension: Int) -> QRVersion? {
        let between = Double(dimension - 7)
        let ux = QRPoint(x: (tr.x - tl.x) / between, y: (tr.y - tl.y) / between)
        let uy = QRPoint(x: (bl.x - tl.x) / between, y: (bl.y - tl.y) / between)
        func sample(_ origin: QRPoint, _ du: Double, _ dv: Double) -> Int? {
            let x = Int((origin.x + du * ux.x + dv * uy.x).rounded(.down))
            let y = Int((origin.y + du * ux.y + dv * uy.y).rounded(.down))
            guard x >= 0, y >= 0, x < image.width, y < image.height else { return nil }
            return image.isBlack(x, y) ? 1 : 0
        }
        var topRight = 0, bottomLeft = 0
        var topRightOK = true, bottomLeftOK = true
        for i in 0..<18 {
            // Bit i sits at column size−11+i%3, row i/3 (top right), transposed at bottom left;
            // offsets are from the finder centre at (size−3.5, 3.5).
            let along = Double(i % 3) - 7, across = Double(i / 3) - 3
            if let b = sample(tr, along, across) { topRight |= b << i } else { topRightOK = false }
            if let b = sample(bl, across, along) { bottomLeft |= b << i } else { bottomLeftOK = false }
        }
        let candidates = [topRightOK ? VersionInformation.decode(topRight) : nil, bottomLeftOK ? VersionInformation.decode(bottomLeft) : nil]
        return candidates.compactMap { $0 }.min { $0.distance < $1.distance }?.version
    }
}
