import Deflate
import Foundation
import Testing

@testable import QRCode

/// Large images are read at a bounded size (review finding 4 of issue 28): a PNG is decoded
/// straight to the reduced image, and the codes found keep their positions in the file's pixels.
@Suite struct ReducedDecodeTests {
    /// Samples that vary in every channel, so the mean of a block is a real test.
    static func samples(_ width: Int, _ height: Int, channels: Int, depth: Int) -> [[[Int]]] {
        let top = (1 << depth) - 1
        return (0..<height).map { y in (0..<width).map { x in (0..<channels).map { c in ((x * 37 + y * 101 + c * 59) * 7919) % (top + 1) } } }
    }

    @Test(arguments: [(0, 8, false), (0, 16, false), (2, 8, false), (4, 8, true), (6, 8, false), (6, 16, true), (0, 1, true)])
    func aReducedDecodeIsTheMeanOfTheFullDecode(colorType: Int, depth: Int, interlaced: Bool) throws {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][colorType]!
        let png = TestPNGBuilder(
            width: 53, height: 41, colorType: colorType, bitDepth: depth, interlaced: interlaced,
            samples: Self.samples(53, 41, channels: channels, depth: depth)
        ).build()
        let full = try PNGDecoder.decode(png)
        for cap in [53 * 41, 53 * 41 - 1, 500, 100, 7, 1] {
            let (reduced, factor) = try PNGDecoder.decode(Data(png), atMostPixels: cap)
            #expect(factor == GrayImage.reduction(width: 53, height: 41, toAtMost: cap))
            #expect(reduced.width * reduced.height <= cap)
            #expect(reduced == full.reduced(by: factor), "cap \(cap), factor \(factor)")
        }
        #expect(GrayImage.reduction(width: 53, height: 41, toAtMost: 53 * 41) == 1)
    }

    @Test func aBlockMeanRoundsAndCountsOnlyThePixelsThatExist() throws {
        let image = try GrayImage(width: 3, height: 2, pixels: [0, 255, 10, 1, 2, 20])
        let half = image.reduced(by: 2)
        // (0+255+1+2)/4 = 64.5 → 65; the last column's block has two pixels: (10+20)/2 = 15.
        #expect(half.width == 2 && half.height == 1 && half.pixels == [65, 15])
        #expect(image.reduced(by: 1) == image)
    }

    @Test func aCodeInAVeryLargePNGIsReadWhereItIs() throws {
        // 100 px a module: a file of over 8 Mpx, read at a reduced size.
        let text = "HC1:" + String(repeating: "A", count: 20)
        let matrix = try QREncoder.encode(text: text, level: .L)
        let png = try matrix.pngData(moduleSize: 100)
        let found = try QRReader.read(png: png)
        #expect(found.map(\.text) == [text])
        let side = Double((matrix.size + 8) * 100)
        #expect(side * side > 8e6 && GrayImage.reduction(width: Int(side), height: Int(side), toAtMost: QRReader.maxWorkingPixels) >= 2)
        // The corners are in the file's pixels: the code spans from 4 modules in to 4 from the end.
        let corners = try #require(found.first?.position)
        #expect(abs(corners.topLeft.x - 400) < 120 && abs(corners.topLeft.y - 400) < 120, "\(corners)")
        #expect(abs(corners.bottomRight.x - (side - 400)) < 120 && abs(corners.bottomRight.y - (side - 400)) < 120, "\(corners)")
    }
}
