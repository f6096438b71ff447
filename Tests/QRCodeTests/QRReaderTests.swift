import Foundation
import TestSupport
import Testing
@testable import QRCode

@Suite struct QRReaderTests {
    @Test(arguments: [
        ("example-00_2021-05_qr.png", "example-00_2021-05.qr.txt"),
        ("legacy-2021-03_reference_pdf_vaccine.png", "legacy-2021-03_reference_pdf_vaccine.qr.txt"),
    ])
    func readsRealSpecImagesExactly(png: String, expected: String) throws {
        let data = try Fixtures.data("shc/spec-examples-2021/\(png)")
        let text = try Fixtures.text("shc/spec-examples-2021/\(expected)")
        let results = try QRReader.read(png: data)
        #expect(results.count == 1)
        #expect(results.first?.text == text)
        #expect(results.first?.segments.first?.mode == .byte)
        #expect(results.first?.segments.first?.text == "shc:/")
        #expect(results.first?.segments.dropFirst().first?.mode == .numeric)
        #expect(results.first?.level == .L)
    }

    @Test(arguments: ["00", "01", "03"])
    func decodesSpecSVGGridToItsNumericText(example: String) throws {
        let svg = try SpecSVG.modules(try Fixtures.text("shc-spec/example-\(example)-g-qr-code-0.svg"))
        let decoded = try QRReader.decode(modules: svg.modules, size: svg.size)
        #expect(decoded.text == (try Fixtures.text("shc-spec/example-\(example)-f-qr-code-numeric-value-0.txt")))
        #expect(decoded.version.number == 18)
        #expect(decoded.correctedErrors == 0)
    }

    @Test func readsSeveralCodesInOneImageWithoutDuplicates() throws {
        let texts = ["FIRST CODE 1", "second code, bytes", "314159265358979323846"]
        let images = try texts.enumerated().map { i, text in
            try QREncoder.encode(text: text, level: .M).render(moduleSize: 3 + i)
        }
        var canvas = ImageTransforms.sideBySide(images, gap: 30)
        canvas = ImageTransforms.sideBySide([canvas, ImageTransforms.rotate(images[0], quarterTurns: 1)], gap: 10)
        let results = QRReader.read(image: canvas)
        #expect(results.map(\.text).sorted() == (texts + [texts[0]]).sorted())
        // Results come back left to right for codes on one band.
        #expect(results.map(\.position.center.x) == results.map(\.position.center.x).sorted())
    }

    @Test(arguments: [7.0, 23.0, 45.0, 62.0, 133.0, 301.0])
    func readsCodesRotatedByArbitraryAngles(degrees: Double) throws {
        let text = "ROTATED BY \(Int(degrees)) DEGREES"
        let matrix = try QREncoder.encode(segments: [.byte(text)], level: .Q, minVersion: 6)
        let image = ImageTransforms.rotate(try matrix.render(moduleSize: 4), degrees: degrees)
        let results = QRReader.read(image: image)
        #expect(results.map(\.text) == [text])
    }

    @Test func reportsCornerPositionsInImageCoordinates() throws {
        let matrix = try QREncoder.encode(text: "CORNERS", level: .L)
        let moduleSize = 5, quiet = 4
        let results = QRReader.read(image: try matrix.render(moduleSize: moduleSize, quietZone: quiet))
        let corners = try #require(results.first).position
        let near = Double(quiet * moduleSize), far = Double((quiet + matrix.size) * moduleSize)
        for (point, expected) in [(corners.topLeft, (near, near)), (corners.topRight, (far, near)),
                                  (corners.bottomRight, (far, far)), (corners.bottomLeft, (near, far))] {
            #expect(abs(point.x - expected.0) < 2 && abs(point.y - expected.1) < 2, "corner \(point) vs \(expected)")
        }
        // After a quarter turn clockwise the symbol's top-left corner sits at the image's top right.
        let turned = QRReader.read(image: ImageTransforms.rotate(try matrix.render(moduleSize: moduleSize, quietZone: quiet), quarterTurns: 1))
        let turnedCorners = try #require(turned.first).position
        #expect(turnedCorners.topLeft.x > turnedCorners.bottomLeft.x)
    }

    @Test func readsMirroredImages() throws {
        let text = "MIRROR IMAGE 42"
        let matrix = try QREncoder.encode(segments: [.byte(text)], level: .M, minVersion: 3)
        let results = QRReader.read(image: ImageTransforms.mirror(try matrix.render(moduleSize: 4)))
        #expect(results.map(\.text) == [text])
        #expect(results.first?.mirrored == true)
    }

    @Test func readsUnderUnevenLighting() throws {
        let text = "shc:/" + String(repeating: "5676290952432060346029243740446031222959532654603460", count: 6)
        let matrix = try QREncoder.encode(segments: [.byte("shc:/"), try .numeric(String(text.dropFirst(5)))], level: .L)
        let image = ImageTransforms.unevenLighting(try matrix.render(moduleSize: 5))
        #expect(QRReader.read(image: image).map(\.text) == [text])
    }

    @Test func readsModulesOfOneAndAHalfPixels() throws {
        let text = "SMALL MODULES 1.5PX"
        let matrix = try QREncoder.encode(segments: [try .alphanumeric(text)], level: .M, minVersion: 5)
        let image = ImageTransforms.scale(try matrix.render(moduleSize: 1), by: 1.5)
        #expect(QRReader.read(image: image).map(\.text) == [text])
    }

    @Test func findsNothingInBlankOrNoisyImages() throws {
        #expect(QRReader.read(image: try GrayImage(width: 300, height: 200)).isEmpty)
        #expect(QRReader.read(image: try GrayImage(width: 0, height: 0)).isEmpty)
        var rng = SplitMix64(state: 11)
        let noise = try GrayImage(width: 257, height: 263, pixels: (0..<(257 * 263)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        #expect(QRReader.read(image: noise).isEmpty)
        #expect(throws: PNGError.notPNG) { try QRReader.read(png: Data("not a png".utf8)) }
    }

    @Test func decodesECIAndMixedSegments() throws {
        let segments: [QRSegment] = [try .eci(26), .byte("Grüße "), try .alphanumeric("AB-12"), try .numeric("0123456")]
        let matrix = try QREncoder.encode(segments: segments, level: .H)
        let decoded = try QRReader.decode(matrix)
        #expect(decoded.text == "Grüße AB-120123456")
        #expect(decoded.segments.map(\.mode) == [.eci, .byte, .alphanumeric, .numeric])
        #expect(decoded.segments.first?.eciAssignment == 26)
        #expect(decoded.bytes == Array("Grüße AB-120123456".utf8))
    }

    @Test func latin1ECIBytesDecodeAsLatin1() throws {
        let matrix = try QREncoder.encode(segments: [try .eci(3), .bytes([0x63, 0x61, 0x66, 0xE9])], level: .M)
        #expect(try QRReader.decode(matrix).text == "café")
        // Without any ECI, invalid UTF-8 falls back to ISO-8859-1 as the standard's default.
        let plain = try QREncoder.encode(segments: [.bytes([0x63, 0x61, 0x66, 0xE9])], level: .M)
        #expect(try QRReader.decode(plain).text == "café")
    }

    @Test func reportsUnreadableFormatInformation() throws {
        var matrix = try QREncoder.encode(text: "FORMAT", level: .L)
        for i in 0..<9 { matrix[i, 8].toggle(); matrix[8, i].toggle() }
        for i in 0..<8 { matrix[matrix.size - 1 - i, 8].toggle(); matrix[8, matrix.size - 1 - i].toggle() }
        #expect(throws: QRDecodeError.self) { try QRReader.decode(matrix) }
    }

    @Test func reportsTooManyErrorsNamingTheBlock() throws {
        var matrix = try QREncoder.encode(text: "TOO MANY ERRORS", level: .L, mask: 0)
        // Invert every data codeword of a one-block version 1 symbol.
        for codeword in matrix.codewordModulePositions { for p in codeword { matrix[p.x, p.y].toggle() } }
        #expect(throws: QRDecodeError.tooManyErrors(block: 0, blockCount: 1)) { try ModuleGridDecoder.decode(matrix.modules, size: matrix.size) }
    }
}

@Suite struct KanjiTests {
    @Test func kanjiSegmentsRoundTripThroughShiftJIS() throws {
        // 点 (0x935F) and あ (0x82A0) in Shift JIS, both inside the kanji mode ranges.
        let bytes: [UInt8] = [0x93, 0x5F, 0x82, 0xA0]
        let matrix = try QREncoder.encode(segments: [try .kanji(shiftJIS: bytes)], level: .M)
        let decoded = try QRReader.decode(matrix)
        #expect(decoded.segments.map(\.mode) == [.kanji])
        #expect(decoded.segments.first?.bytes == bytes)
        #expect(decoded.text == "点あ")
        #expect(throws: QREncodingError.self) { try QRSegment.kanji(shiftJIS: [0x41, 0x42]) }
    }
}

@Suite struct PerspectiveTests {
    /// Warps `image` so its corners land on `corners` (a keystone view), bilinear, white outside.
    static func warp(_ image: GrayImage, corners: [QRPoint], width: Int, height: Int) throws -> GrayImage {
        let source = [QRPoint(x: 0, y: 0), QRPoint(x: Double(image.width), y: 0),
                      QRPoint(x: Double(image.width), y: Double(image.height)), QRPoint(x: 0, y: Double(image.height))]
        let inverse = try #require(PerspectiveTransform.quadrilateral(from: corners, to: source))
        var out = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = inverse.apply(Double(x) + 0.5, Double(y) + 0.5)
                out[y * width + x] = UInt8(Swift.max(0, Swift.min(255, ImageTransforms.bilinear(image, p.x - 0.5, p.y - 0.5).rounded())))
            }
        }
        return try GrayImage(width: width, height: height, pixels: out)
    }

    @Test(arguments: [2, 10, 25])
    func readsKeystonedCodesUsingTheAlignmentPattern(version: Int) throws {
        let text = "PERSPECTIVE V\(version)"
        let matrix = try QREncoder.encode(segments: [.byte(text)], level: .M, minVersion: version)
        let image = try matrix.render(moduleSize: 4)
        let s = Double(image.width)
        // Top edge 12% narrower than the bottom, as if photographed from below.
        let warped = try Self.warp(image, corners: [QRPoint(x: 0.12 * s, y: 0.03 * s), QRPoint(x: 0.88 * s + 20, y: 0),
                                                    QRPoint(x: s + 20, y: s), QRPoint(x: 0, y: s + 10)],
                                   width: image.width + 30, height: image.height + 20)
        #expect(QRReader.read(image: warped).map(\.text) == [text])
    }
}
