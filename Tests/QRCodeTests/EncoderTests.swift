import Foundation
import TestSupport
import Testing
@testable import QRCode

@Suite struct EncoderTests {
    /// Capacities published in ISO/IEC 18004 Table 7 for the extreme versions.
    @Test func fillsPublishedCapacitiesExactly() throws {
        let cases: [(QRSegment, QRSegment, QRErrorCorrectionLevel, Int)] = [
            (try .numeric(String(repeating: "7", count: 7089)), try .numeric(String(repeating: "7", count: 7090)), .L, 40),
            (try .alphanumeric(String(repeating: "A", count: 4296)), try .alphanumeric(String(repeating: "A", count: 4297)), .L, 40),
            (.bytes([UInt8](repeating: 0x41, count: 2953)), .bytes([UInt8](repeating: 0x41, count: 2954)), .L, 40),
            (.bytes([UInt8](repeating: 0x41, count: 1273)), .bytes([UInt8](repeating: 0x41, count: 1274)), .H, 40),
            (try .numeric(String(repeating: "1", count: 17)), try .numeric(String(repeating: "1", count: 18)), .H, 1),
            (.bytes([UInt8](repeating: 0x41, count: 17)), .bytes([UInt8](repeating: 0x41, count: 18)), .L, 1),
        ]
        for (fits, tooBig, level, version) in cases {
            let matrix = try QREncoder.encode(segments: [fits], level: level, maxVersion: version, mask: 0)
            #expect(matrix.version.number == version)
            #expect(throws: QREncodingError.self) { try QREncoder.encode(segments: [tooBig], level: level, maxVersion: version, mask: 0) }
        }
    }

    @Test func dataTooLongSaysHowManyBitsWereNeededAndFit() throws {
        let segment = QRSegment.bytes([UInt8](repeating: 0x41, count: 100))
        let error = #expect(throws: QREncodingError.self) { try QREncoder.encode(segments: [segment], level: .H, maxVersion: 3) }
        // Byte mode in version 3: 4-bit mode, 8-bit count, 800 data bits; version 3-H holds 26 codewords.
        #expect(error == .dataTooLong(neededBits: 812, capacityBits: 26 * 8, level: .H, maxVersion: 3))
        #expect(error?.description.contains("812") == true)
        #expect(error?.description.contains("208") == true)
    }

    @Test func neverRaisesTheRequestedLevel() throws {
        for level in QRErrorCorrectionLevel.allCases {
            let matrix = try QREncoder.encode(text: "HI", level: level)
            #expect(matrix.level == level)
            #expect(matrix.version.number == 1)
        }
    }

    @Test func honoursVersionRangeAndFixedMask() throws {
        for mask in 0..<8 {
            let matrix = try QREncoder.encode(segments: [.byte("mask test")], level: .Q, minVersion: 5, maxVersion: 9, mask: mask)
            #expect(matrix.mask == mask)
            #expect(matrix.version.number == 5)
            #expect(try QRReader.decode(matrix).mask == mask)
        }
        #expect(throws: QREncodingError.invalidMask(8)) { try QREncoder.encode(segments: [], level: .L, mask: 8) }
        #expect(throws: QREncodingError.invalidVersionRange(min: 5, max: 4)) { try QREncoder.encode(segments: [], level: .L, minVersion: 5, maxVersion: 4) }
        #expect(throws: QREncodingError.invalidVersionRange(min: 0, max: 4)) { try QREncoder.encode(segments: [], level: .L, minVersion: 0, maxVersion: 4) }
    }

    @Test func automaticMaskHasTheLowestPenalty() throws {
        let segments: [QRSegment] = [.byte("penalty comparison across all eight masks")]
        let chosen = try QREncoder.encode(segments: segments, level: .M)
        let scores = try (0..<8).map { try MaskPenalty.score(QREncoder.encode(segments: segments, level: .M, mask: $0).modules, size: chosen.size) }
        #expect(scores[chosen.mask] == scores.min())
        #expect(scores.firstIndex(of: scores.min()!) == chosen.mask)
    }

    @Test func rejectsCharactersOutsideTheMode() {
        #expect(throws: QREncodingError.invalidCharacter(mode: .numeric, byte: UInt8(ascii: "a"), offset: 3)) { try QRSegment.numeric("123a") }
        #expect(throws: QREncodingError.invalidCharacter(mode: .alphanumeric, byte: UInt8(ascii: "b"), offset: 1)) { try QRSegment.alphanumeric("AbC") }
        #expect(throws: QREncodingError.invalidECI(1_000_000)) { try QRSegment.eci(1_000_000) }
        #expect(QRSegment.automatic("0123").mode == .numeric)
        #expect(QRSegment.automatic("AB:12").mode == .alphanumeric)
        #expect(QRSegment.automatic("ab").mode == .byte)
        #expect(QRSegment.segments(for: "é").map(\.mode) == [.eci, .byte])
    }

    @Test func versionInformationMatchesTheStandardsAnnexDExamples() {
        // ISO/IEC 18004 Annex D: version 7 → 000111 110010 010100.
        #expect(VersionInformation.bits(for: 7) == 0b000111_110010_010100)
        // Annex C: level M, mask 5 → 100000011001110 after masking.
        #expect(FormatInformation(level: .M, mask: 5).bits == 0b100000011001110)
    }

    @Test func reedSolomonCorrectsUpToHalfTheECCCodewords() throws {
        var rng = SplitMix64(state: 3)
        for ecc in [7, 10, 18, 30] {
            let data = (0..<(60 - ecc)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let codeword = data + ReedSolomonEncoder(degree: ecc).remainder(of: data[...])
            for errors in 0...(ecc / 2) {
                var received = codeword
                var positions = Set<Int>()
                while positions.count < errors { positions.insert(Int.random(in: 0..<received.count, using: &rng)) }
                for p in positions { received[p] ^= UInt8.random(in: 1...255, using: &rng) }
                #expect(try ReedSolomonDecoder.correct(&received, eccCount: ecc) == errors)
                #expect(received == codeword)
            }
        }
    }

    @Test func rendererValidatesModuleSizeAndImageSide() throws {
        let matrix = try QREncoder.encode(text: "SIZE", level: .L)
        #expect(throws: QRRenderError.invalidModuleSize(0, allowed: 1...100)) { try matrix.pngData(moduleSize: 0) }
        #expect(throws: QRRenderError.invalidModuleSize(10_000, allowed: 1...100)) { try matrix.pngData(moduleSize: 10_000) }
        #expect(throws: QRRenderError.invalidQuietZone(-1, allowed: 0...100)) { try matrix.svgString(moduleSize: 2, quietZone: -1) }
        let big = try QREncoder.encode(segments: [.bytes([UInt8](repeating: 1, count: 2900))], level: .L)
        #expect(throws: QRRenderError.imageTooLarge(side: 185 * 100, maxSide: 16384)) { try big.pngData(moduleSize: 100) }
    }

    @Test func pngIsGrayscaleBlackOnWhiteWithQuietZone() throws {
        let matrix = try QREncoder.encode(text: "PNG LAYOUT", level: .M)
        let png = try matrix.pngData(moduleSize: 3, quietZone: 4)
        let bytes = [UInt8](png)
        #expect(bytes[25] == 0 && bytes[24] == 8)  // colour type 0, bit depth 8
        let image = try PNGDecoder.decode(png)
        #expect(image.width == (matrix.size + 8) * 3)
        for y in 0..<matrix.size {
            for x in 0..<matrix.size {
                #expect(image[(x + 4) * 3 + 1, (y + 4) * 3 + 1] == (matrix[x, y] ? 0 : 255))
            }
        }
        #expect(image.pixels[0..<(image.width * 12)].allSatisfy { $0 == 255 })
    }

    @Test func pngCompressesWellBelowRawSize() throws {
        let matrix = try QREncoder.encode(segments: [.bytes([UInt8](repeating: 7, count: 600))], level: .M)
        let png = try matrix.pngData(moduleSize: 8)
        let side = (matrix.size + 8) * 8
        #expect(png.count < side * side / 20)
    }

    @Test func svgDrawsExactlyTheDarkModules() throws {
        let matrix = try QREncoder.encode(text: "SVG OUTPUT", level: .H)
        let svg = try matrix.svgString(moduleSize: 5, quietZone: 2)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.contains("width=\"\((matrix.size + 4) * 5)\""))
        // Each run is "Mx yhNv1h-Nz"; repaint them onto a grid.
        var grid = [Bool](repeating: false, count: matrix.size * matrix.size)
        let path = svg.components(separatedBy: "d=\"").last!.prefix { $0 != "\"" }
        for run in path.split(separator: "M") {
            let numbers = run.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            let (x, y, length) = (numbers[0] - 2, numbers[1] - 2, numbers[2])
            for i in x..<(x + length) { grid[y * matrix.size + i] = true }
        }
        #expect(grid == matrix.modules)
    }
}
