import Foundation
import TestSupport
import Testing
@testable import QRCode

/// One cell of the encode → PNG → read matrix.
struct MatrixCase: CustomTestStringConvertible, Sendable {
    let version: Int
    let level: QRErrorCorrectionLevel
    let moduleSize: Int
    var testDescription: String { "v\(version)-\(level)-m\(moduleSize)" }

    var kind: Payloads.Kind { Payloads.Kind.allCases[(version + level.rawValue) % 3] }
    var seed: UInt64 { UInt64(version * 1000 + level.rawValue * 100 + moduleSize) }

    static let fullMatrix = ProcessInfo.processInfo.environment["QR_FULL_MATRIX"] == "1"

    /// By default every version × level at module size 2, plus module sizes 3–8 at a few
    /// versions (all 40 versions, 4 levels and sizes 2–8 stay covered); with
    /// QR_FULL_MATRIX=1, all 40 × 4 × 7 cells.
    static let cells: [MatrixCase] = {
        if fullMatrix {
            return (1...40).flatMap { v in QRErrorCorrectionLevel.allCases.flatMap { l in (2...8).map { MatrixCase(version: v, level: l, moduleSize: $0) } } }
        }
        var cells = (1...40).flatMap { v in QRErrorCorrectionLevel.allCases.map { MatrixCase(version: v, level: $0, moduleSize: 2) } }
        for (i, v) in [1, 7, 18, 27, 40].enumerated() {
            for m in 3...8 {
                cells.append(MatrixCase(version: v, level: QRErrorCorrectionLevel.allCases[(i + m) % 4], moduleSize: m))
            }
        }
        return cells
    }()

    /// A spread of cells for the image-distortion tests (all of them under QR_FULL_MATRIX=1).
    static let distortionCells: [MatrixCase] = fullMatrix ? cells : [
        MatrixCase(version: 1, level: .L, moduleSize: 3), MatrixCase(version: 2, level: .H, moduleSize: 2),
        MatrixCase(version: 7, level: .M, moduleSize: 4), MatrixCase(version: 10, level: .Q, moduleSize: 2),
        MatrixCase(version: 18, level: .L, moduleSize: 3), MatrixCase(version: 22, level: .H, moduleSize: 5),
        MatrixCase(version: 32, level: .M, moduleSize: 2), MatrixCase(version: 40, level: .Q, moduleSize: 3),
    ]

    func encode() throws -> (matrix: QRMatrix, text: String) {
        let segments = try Payloads.segments(version: version, level: level, kind: kind, seed: seed)
        let matrix = try QREncoder.encode(segments: segments, level: level)
        return (matrix, Payloads.text(segments))
    }
}

@Suite struct RoundTripMatrixTests {
    /// Reads `image` and checks it holds exactly the expected symbol.
    static func expectReads(_ image: GrayImage, text: String, matrix: QRMatrix, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) -> DecodedQR? {
        let results = QRReader.read(image: image)
        #expect(results.count == 1, "\(what): found \(results.count) codes", sourceLocation: sourceLocation)
        guard let result = results.first else { return nil }
        #expect(result.text == text, "\(what): text differs", sourceLocation: sourceLocation)
        #expect(result.version == matrix.version, sourceLocation: sourceLocation)
        #expect(result.level == matrix.level, sourceLocation: sourceLocation)
        #expect(result.mask == matrix.mask, sourceLocation: sourceLocation)
        return result
    }

    @Test(arguments: MatrixCase.cells)
    func encodedPNGReadsBack(cell: MatrixCase) throws {
        let (matrix, text) = try cell.encode()
        #expect(matrix.version.number == cell.version, "payload should need exactly version \(cell.version)")
        #expect(matrix.level == cell.level)
        let png = try matrix.pngData(moduleSize: cell.moduleSize)
        let results = try QRReader.read(png: png)
        #expect(results.count == 1)
        #expect(results.first?.text == text)
        #expect(results.first?.version.number == cell.version)
        #expect(results.first?.level == cell.level)
        #expect(results.first?.correctedErrors == 0)
    }

    @Test(arguments: MatrixCase.distortionCells)
    func readsRotatedScaledAndBlurredImages(cell: MatrixCase) throws {
        let (matrix, text) = try cell.encode()
        let image = try PNGDecoder.decode(try matrix.pngData(moduleSize: cell.moduleSize))
        for turns in 1...3 {
            let result = Self.expectReads(ImageTransforms.rotate(image, quarterTurns: turns), text: text, matrix: matrix, "\(cell) rotated \(turns * 90)°")
            #expect(result?.mirrored == false)
        }
        _ = Self.expectReads(ImageTransforms.scale(image, by: 1.5), text: text, matrix: matrix, "\(cell) scaled 1.5×")
        // A 3×3 box blur turns a lone 2 px module into mid-gray from every side (4 of the 9
        // pixels under the kernel), which no threshold can recover; blur from 3 px up.
        let blurSource = cell.moduleSize >= 3 ? image : try matrix.render(moduleSize: 3)
        _ = Self.expectReads(ImageTransforms.boxBlur(blurSource), text: text, matrix: matrix, "\(cell) blurred")
    }

    @Test(arguments: MatrixCase.distortionCells)
    func correctsFlippedModulesUpToTheLevelsCapacity(cell: MatrixCase) throws {
        var (matrix, text) = try cell.encode()
        let layout = matrix.version.blockLayout(level: matrix.level)
        let codewordModules = matrix.codewordModulePositions
        var rng = SplitMix64(state: cell.seed &+ 99)
        var damaged = 0
        for block in 0..<layout.blockCount {
            let length = layout.dataCount(ofBlock: block) + layout.eccCodewordsPerBlock
            let budget = layout.eccCodewordsPerBlock / 2
            var chosen = Set<Int>()
            while chosen.count < budget { chosen.insert(Int.random(in: 0..<length, using: &rng)) }
            for index in chosen {
                let modules = codewordModules[layout.interleavedIndex(block: block, indexInBlock: index)]
                // Flip between one and all eight modules of the codeword.
                let flips = Int.random(in: 1...8, using: &rng)
                for position in modules.shuffled(using: &rng).prefix(flips) {
                    matrix[position.x, position.y].toggle()
                }
                damaged += 1
            }
        }
        #expect(damaged > 0)
        let image = try PNGDecoder.decode(try matrix.pngData(moduleSize: cell.moduleSize))
        let result = Self.expectReads(image, text: text, matrix: matrix, "\(cell) with \(damaged) damaged codewords")
        #expect(result?.correctedErrors == damaged)
        // The same damage also decodes straight from the grid.
        #expect(try QRReader.decode(matrix).correctedErrors == damaged)
    }
}
