import Foundation
import TestSupport
import Testing
import Deflate
@testable import QRCode

struct PNGFormat: CustomTestStringConvertible, Sendable {
    let colorType: Int
    let bitDepth: Int
    let interlaced: Bool
    var testDescription: String { "type \(colorType) depth \(bitDepth)\(interlaced ? " Adam7" : "")" }

    static let all: [PNGFormat] = {
        let depths: [(Int, [Int])] = [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])]
        return depths.flatMap { type, list in list.flatMap { d in [false, true].map { PNGFormat(colorType: type, bitDepth: d, interlaced: $0) } } }
    }()
}

@Suite struct PNGDecoderTests {
    /// Expected luminance from the PNG and Rec. 601 definitions, computed independently of the decoder.
    static func scaled(_ v: Int, depth: Int) -> Int {
        let maxValue = (1 << depth) - 1
        return Int((Double(v) * 255 / Double(maxValue)).rounded())
    }

    static func luma(_ r: Int, _ g: Int, _ b: Int) -> Double { 0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b) }

    static func composite(_ luma: Double, alpha: Int) -> Double {
        (luma * Double(alpha) + 255 * Double(255 - alpha)) / 255
    }

    @Test(arguments: PNGFormat.all)
    func decodesEveryColorTypeBitDepthAndInterlace(format: PNGFormat) throws {
        var rng = SplitMix64(state: UInt64(format.colorType * 100 + format.bitDepth * 2 + (format.interlaced ? 1 : 0)))
        let width = 19, height = 13  // odd sizes leave Adam7 passes partly empty
        let maxValue = (1 << format.bitDepth) - 1
        var builder = TestPNGBuilder(width: width, height: height, colorType: format.colorType, bitDepth: format.bitDepth,
                                     interlaced: format.interlaced, samples: [])
        var expected = [Double](repeating: 0, count: width * height)
        if format.colorType == 3 {
            let entries = 1 << format.bitDepth
            builder.palette = (0..<entries).map { _ in (Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng)) }
        }
        builder.samples = (0..<height).map { y in
            (0..<width).map { x in
                let pixel = (0..<builder.channels).map { _ in Int.random(in: 0...maxValue, using: &rng) }
                let value: Double
                switch format.colorType {
                case 0: value = Double(Self.scaled(pixel[0], depth: format.bitDepth))
                case 2: value = Self.luma(Self.scaled(pixel[0], depth: format.bitDepth), Self.scaled(pixel[1], depth: format.bitDepth), Self.scaled(pixel[2], depth: format.bitDepth))
                case 3: let p = builder.palette[pixel[0]]; value = Self.luma(p.r, p.g, p.b)
                case 4: value = Self.composite(Double(Self.scaled(pixel[0], depth: format.bitDepth)), alpha: Self.scaled(pixel[1], depth: format.bitDepth))
                default:
                    let l = Self.luma(Self.scaled(pixel[0], depth: format.bitDepth), Self.scaled(pixel[1], depth: format.bitDepth), Self.scaled(pixel[2], depth: format.bitDepth))
                    value = Self.composite(l, alpha: Self.scaled(pixel[3], depth: format.bitDepth))
                }
                expected[y * width + x] = value
                return pixel
            }
        }
        for stored in [false, true] {
            builder.stored = stored
            let image = try PNGDecoder.decode(builder.build())
            #expect(image.width == width && image.height == height)
            let worst = zip(image.pixels, expected).map { abs(Double($0) - $1) }.max() ?? 0
            // Integer rounding in two steps (scale, then luma/composite) may differ by one.
            #expect(worst <= 1.5, "largest luminance error \(worst)")
        }
    }

    @Test func transparentColorKeysAndPaletteAlphaBecomeWhite() throws {
        // Gray 8-bit, key 0: the black pixel turns white, the other stays.
        var gray = TestPNGBuilder(width: 2, height: 1, colorType: 0, bitDepth: 8, samples: [[[0], [100]]])
        gray.transparency = [0, 0]
        #expect(try PNGDecoder.decode(gray.build()).pixels == [255, 100])

        var rgb = TestPNGBuilder(width: 2, height: 1, colorType: 2, bitDepth: 16, samples: [[[0, 0, 0], [1, 0, 0]]])
        rgb.transparency = [0, 0, 0, 0, 0, 0]
        let rgbImage = try PNGDecoder.decode(rgb.build())
        #expect(rgbImage.pixels[0] == 255)
        #expect(rgbImage.pixels[1] == 0)

        var indexed = TestPNGBuilder(width: 3, height: 1, colorType: 3, bitDepth: 2, samples: [[[0], [1], [2]]])
        indexed.palette = [(0, 0, 0), (0, 0, 0), (0, 0, 0)]
        indexed.transparency = [0, 128]
        let pixels = try PNGDecoder.decode(indexed.build()).pixels
        #expect(pixels[0] == 255)
        #expect(abs(Int(pixels[1]) - 127) <= 1)
        #expect(pixels[2] == 0)
    }

    @Test func roundTripsOurOwnPNG() throws {
        let matrix = try QREncoder.encode(text: "HELLO PNG ROUND TRIP 123", level: .M)
        for moduleSize in [1, 3, 7] {
            let png = try matrix.pngData(moduleSize: moduleSize, quietZone: 2)
            let decoded = try PNGDecoder.decode(png)
            #expect(decoded == (try matrix.render(moduleSize: moduleSize, quietZone: 2)))
        }
    }

    @Test(arguments: ["example-00_2021-05_qr.png", "legacy-2021-03_reference_pdf_vaccine.png"])
    func decodesRealSpecPNGs(name: String) throws {
        let data = try Fixtures.data("shc/spec-examples-2021/\(name)")
        let image = try PNGDecoder.decode(data)
        // IHDR's own dimensions, read straight from the file's bytes 16..<24.
        let bytes = [UInt8](data)
        let width = Int(bytes[16]) << 24 | Int(bytes[17]) << 16 | Int(bytes[18]) << 8 | Int(bytes[19])
        let height = Int(bytes[20]) << 24 | Int(bytes[21]) << 16 | Int(bytes[22]) << 8 | Int(bytes[23])
        #expect(image.width == width && image.height == height)
        // Black-on-white QR content: both extremes are present.
        #expect(image.pixels.contains { $0 < 40 })
        #expect(image.pixels.contains { $0 > 215 })
    }

    @Test func rejectsCorruptedCRCNamingTheChunk() throws {
        var png = try QREncoder.encode(text: "CRC", level: .L).pngData(moduleSize: 2).map { $0 }
        png[8 + 8 + 3] ^= 0x01  // inside IHDR data
        #expect(throws: PNGError.badCRC(chunk: "IHDR", offset: 8)) { try PNGDecoder.decode(png) }
    }

    @Test func rejectsTruncatedFilesWithTypedErrors() throws {
        let png = try QREncoder.encode(text: "TRUNCATED", level: .L).pngData(moduleSize: 2).map { $0 }
        for length in [0, 4, 8, 20, 33, png.count / 2, png.count - 1] {
            #expect(throws: PNGError.self) { try PNGDecoder.decode(Array(png.prefix(length))) }
        }
        #expect(throws: PNGError.notPNG) { try PNGDecoder.decode(Array("GIF89a not a png".utf8)) }
    }

    @Test func rejectsBadHeaderFilterAndPalette() throws {
        var badDepth = TestPNGBuilder(width: 1, height: 1, colorType: 2, bitDepth: 8, samples: [[[1, 2, 3]]]).build()
        badDepth[24] = 4  // RGB at 4 bits is not defined
        TestPNGBuilder.fixCRC(&badDepth, chunkOffset: 8)
        #expect(throws: PNGError.invalidColorTypeAndBitDepth(colorType: 2, bitDepth: 4)) { try PNGDecoder.decode(badDepth) }

        var indexed = TestPNGBuilder(width: 2, height: 1, colorType: 3, bitDepth: 8, samples: [[[0], [5]]])
        indexed.palette = [(1, 2, 3), (4, 5, 6)]
        #expect(throws: PNGError.paletteIndexOutOfRange(index: 5, paletteSize: 2)) { try PNGDecoder.decode(indexed.build()) }
        indexed.palette = []
        #expect(throws: PNGError.missingPalette) { try PNGDecoder.decode(indexed.build()) }

        // Filter type 9 on the first row, written as a stored zlib stream so it is easy to place.
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        TestPNGBuilder.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0], &bytes)
        TestPNGBuilder.chunk("IDAT", Compress.zlib([9, 0], level: .stored), &bytes)
        TestPNGBuilder.chunk("IEND", [], &bytes)
        #expect(throws: PNGError.invalidFilterType(9, row: 0, pass: 0)) { try PNGDecoder.decode(bytes) }

        var critical: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        TestPNGBuilder.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0], &critical)
        TestPNGBuilder.chunk("ZZZZ", [1, 2, 3], &critical)
        #expect(throws: PNGError.unknownCriticalChunk(chunk: "ZZZZ", offset: 33)) { try PNGDecoder.decode(critical) }
    }

    @Test func enforcesDimensionLimitsBeforeDecompressing() throws {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // 100000 × 100000 claimed, with a tiny IDAT: must fail on the header alone.
        TestPNGBuilder.chunk("IHDR", [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 0, 0, 0, 0], &bytes)
        TestPNGBuilder.chunk("IDAT", Compress.zlib([0], level: .stored), &bytes)
        TestPNGBuilder.chunk("IEND", [], &bytes)
        #expect(throws: PNGError.imageTooLarge(width: 100_000, height: 100_000, limits: .default)) { try PNGDecoder.decode(bytes) }

        let png = try QREncoder.encode(text: "LIMITS", level: .L).pngData(moduleSize: 4)
        let small = PNGDecoder.Limits(maxWidth: 10_000, maxHeight: 10_000, maxPixels: 10_000_000, maxDecompressedBytes: 1000)
        #expect(throws: PNGError.self) { try PNGDecoder.decode(png, limits: small) }
        let narrow = PNGDecoder.Limits(maxWidth: 50, maxHeight: 10_000, maxPixels: 10_000_000, maxDecompressedBytes: 1 << 30)
        #expect(throws: PNGError.self) { try PNGDecoder.decode(png, limits: narrow) }
    }

    @Test func decompressionBombFailsAtTheExpectedSize() throws {
        // 8 MiB of zeros squeezed into a few kilobytes, behind a header claiming 64 × 64 pixels.
        let bomb = Compress.zlib([UInt8](repeating: 0, count: 8 << 20))
        #expect(bomb.count < 100_000)
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        TestPNGBuilder.chunk("IHDR", [0, 0, 0, 64, 0, 0, 0, 64, 8, 0, 0, 0, 0], &bytes)
        TestPNGBuilder.chunk("IDAT", bomb, &bytes)
        TestPNGBuilder.chunk("IEND", [], &bytes)
        #expect(throws: PNGError.imageDataTooLong(expected: 64 * 65)) { try PNGDecoder.decode(bytes) }
        #expect(throws: InflateError.outputTooLarge(limit: 1 << 20)) { try Inflate.zlib(bomb, limit: 1 << 20) }
    }
}

extension TestPNGBuilder {
    /// Recomputes the CRC of the chunk starting at `chunkOffset` after a deliberate edit.
    static func fixCRC(_ bytes: inout [UInt8], chunkOffset: Int) {
        let length = Int(bytes[chunkOffset]) << 24 | Int(bytes[chunkOffset + 1]) << 16 | Int(bytes[chunkOffset + 2]) << 8 | Int(bytes[chunkOffset + 3])
        let crc = CRC32.checksum(bytes[(chunkOffset + 4)..<(chunkOffset + 8 + length)])
        let at = chunkOffset + 8 + length
        bytes[at] = UInt8(crc >> 24); bytes[at + 1] = UInt8(crc >> 16 & 0xFF); bytes[at + 2] = UInt8(crc >> 8 & 0xFF); bytes[at + 3] = UInt8(crc & 0xFF)
    }
}
