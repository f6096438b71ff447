import Foundation
import Testing
@testable import QRCode

/// Fixtures made by Scripts/make-jpeg-fixtures.py: each NAME.jpg with NAME.luma.png, the
/// luminance libjpeg-turbo decodes from it (turned upright for EXIF-rotated files).
enum JPEGFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/jpeg")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Every fixture that has an expected luminance image.
    static let compared: [String] = {
        var names = ["gray-baseline-q95", "gray-baseline-q40", "gray-progressive-q40", "gray-progressive-q95-restart"]
        for sampling in ["444", "422", "420"] {
            for variant in ["baseline-q95", "baseline-q40", "progressive-q95", "progressive-q40"] {
                names.append("color-\(sampling)-\(variant)")
            }
        }
        names += ["color-420-baseline-optimized", "color-420-progressive-large", "color-420-restart-every-mcu",
                  "color-420-restart-rows", "color-420-progressive-restart", "color-411-baseline", "color-440-baseline",
                  "color-411-progressive-restart", "color-mixed-sampling"]
        names += [3, 6, 8, 2, 5, 7].map { "exif-orientation-\($0)" }
        return names
    }()
}

/// A small deterministic generator for the corruption loops.
private struct CorruptionRandom {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

@Suite struct JPEGDecoderTests {
    // MARK: - Against libjpeg-turbo

    @Test(arguments: JPEGFixtures.compared)
    func matchesLibjpegLuminance(name: String) throws {
        let image = try JPEGDecoder.decodeLuma(JPEGFixtures.data(name + ".jpg"))
        let expected = try PNGDecoder.decode(JPEGFixtures.data(name + ".luma.png"))
        #expect(image.width == expected.width && image.height == expected.height, "\(name): \(image.width)×\(image.height) vs \(expected.width)×\(expected.height)")
        guard image.pixels.count == expected.pixels.count else { return }
        var maxDifference = 0, total = 0
        for (a, b) in zip(image.pixels, expected.pixels) {
            let d = abs(Int(a) - Int(b))
            maxDifference = max(maxDifference, d)
            total += d
        }
        let mean = Double(total) / Double(max(image.pixels.count, 1))
        // The inverse DCT is libjpeg's own integer algorithm, so the match is normally exact;
        // the tolerance only allows for rounding differences.
        #expect(maxDifference <= 2, "\(name): max difference \(maxDifference)")
        #expect(mean < 0.5, "\(name): mean difference \(mean)")
    }

    /// Real phone screenshots (1080×2246, 4:2:0, with EXIF) from the EU DCC test data; their
    /// luminance matched libjpeg-turbo exactly when checked with djpeg (docs/jpeg.md).
    @Test func decodesRealPhoneJPEGsFromTheDCCTestData() throws {
        let folder = try Fixtures.url("eu-dcc/CY/Test/Validation/png/DK")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(files == ["DK_5_Vac_Valid.jpg", "DK_7_Rec_Valid.jpg"])
        for file in files {
            let image = try JPEGDecoder.decodeLuma(Data(contentsOf: folder.appendingPathComponent(file)))
            #expect(image.width == 1080 && image.height == 2246, "\(file)")
            #expect(Set(image.pixels).count > 32, "\(file) decodes to a flat image")
        }
    }

    @Test func exifOrientationSixSwapsSides() throws {
        let image = try JPEGDecoder.decodeLuma(JPEGFixtures.data("exif-orientation-6.jpg"))
        #expect(image.width == 30 && image.height == 48)
        let upsideDown = try JPEGDecoder.decodeLuma(JPEGFixtures.data("exif-orientation-3.jpg"))
        #expect(upsideDown.width == 48 && upsideDown.height == 30)
    }

    @Test func readsTheQRPhoto() throws {
        let expected = String(decoding: try JPEGFixtures.data("qr-photo-q40.txt"), as: UTF8.self)
        let results = try QRReader.read(jpeg: JPEGFixtures.data("qr-photo-q40.jpg"))
        #expect(results.map(\.text) == [expected])
        // The same through the sniffing entry point.
        #expect(try QRReader.read(imageData: JPEGFixtures.data("qr-photo-q40.jpg")).map(\.text) == [expected])
    }

    @Test func imageDataSniffsPNGAndRefusesOtherData() throws {
        let matrix = try QREncoder.encode(text: "HELLO JPEG", level: .M)
        let png = try matrix.pngData(moduleSize: 4)
        #expect(QRImageFormat.sniff(png) == .png)
        #expect(try QRReader.read(imageData: png).map(\.text) == ["HELLO JPEG"])
        #expect(throws: QRImageFormatError.unrecognizedFormat(signature: Array("GIF89a".utf8))) {
            try QRReader.read(imageData: Data("GIF89a".utf8))
        }
        #expect(throws: QRImageFormatError.unrecognizedFormat(signature: [])) { try QRReader.read(imageData: Data()) }
        #expect(QRImageFormat.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        // FF D8 without a following marker is not taken for a JPEG.
        #expect(QRImageFormat.sniff(Data([0xFF, 0xD8, 0x00])) == nil)
    }

    // MARK: - Refused formats

    @Test func refusesArithmeticCoding() throws {
        let error = decodeError([UInt8](try JPEGFixtures.data("arithmetic.jpg")))
        guard case .unsupportedProcess(.arithmeticCoding, _, _) = error else {
            Issue.record("expected arithmetic coding refusal, got \(String(describing: error))")
            return
        }
    }

    @Test func refusesCMYK() throws {
        let error = decodeError([UInt8](try JPEGFixtures.data("cmyk.jpg")))
        guard case .unsupportedColorSpace(components: 4, _) = error else {
            Issue.record("expected unsupported colour space, got \(String(describing: error))")
            return
        }
    }

    /// The baseline fixture with its SOF0 marker byte (and what follows) patched.
    private func patchedFrame(_ patch: (inout [UInt8], Int) -> Void) throws -> [UInt8] {
        var bytes = [UInt8](try JPEGFixtures.data("color-420-baseline-q95.jpg"))
        let sof = try #require(sofOffset(bytes))
        patch(&bytes, sof)
        return bytes
    }

    private func sofOffset(_ bytes: [UInt8]) -> Int? {
        (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1]) }
    }

    private func decodeError(_ bytes: [UInt8], limits: JPEGDecoder.Limits = .default) -> JPEGError? {
        do {
            _ = try JPEGDecoder.decodeLuma(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func refusesOtherProcessesByMarker() throws {
        let cases: [(UInt8, JPEGProcess)] = [(0xC9, .arithmeticCoding), (0xCA, .arithmeticCoding), (0xC3, .lossless),
                                             (0xC5, .hierarchical), (0xC7, .hierarchical), (0xC8, .extensions)]
        for (marker, process) in cases {
            let bytes = try patchedFrame { b, sof in b[sof + 1] = marker }
            let error = decodeError(bytes)
            guard case .unsupportedProcess(process, marker, _) = error else {
                Issue.record("marker \(marker): expected \(process), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func refusesTwelveBitPrecision() throws {
        let bytes = try patchedFrame { b, sof in b[sof + 4] = 12 }
        guard case .unsupportedPrecision(bits: 12, _) = decodeError(bytes) else {
            Issue.record("expected 12-bit refusal, got \(String(describing: decodeError(bytes)))")
            return
        }
    }

    @Test func refusesOversizedDimensionsBeforeAllocating() throws {
        // 65535 × 65535: 4.3 gigapixels declared in a 4 KB file.
        let huge = try patchedFrame { b, sof in b[sof + 5] = 0xFF; b[sof + 6] = 0xFF; b[sof + 7] = 0xFF; b[sof + 8] = 0xFF }
        guard case .imageTooLarge(width: 65535, height: 65535, _) = decodeError(huge) else {
            Issue.record("expected imageTooLarge, got \(String(describing: decodeError(huge)))")
            return
        }
        // Within the default limits but over custom ones.
        let small = JPEGDecoder.Limits(maxPixels: 1000, maxDimension: 100)
        let normal = [UInt8](try JPEGFixtures.data("color-420-baseline-q95.jpg"))
        guard case .imageTooLarge(width: 75, height: 53, limits: small) = decodeError(normal, limits: small) else {
            Issue.record("expected imageTooLarge under small limits")
            return
        }
        let zeroHeight = try patchedFrame { b, sof in b[sof + 5] = 0; b[sof + 6] = 0 }
        #expect(decodeError(zeroHeight) == .invalidDimensions(width: 75, height: 0))
    }

    @Test func capsTheNumberOfScans() throws {
        let bytes = [UInt8](try JPEGFixtures.data("color-420-progressive-q95.jpg"))
        let limits = JPEGDecoder.Limits(maxPixels: 1 << 20, maxDimension: 1024, maxScans: 3)
        #expect(decodeError(bytes, limits: limits) == .tooManyScans(limit: 3))
    }

    @Test func refusesNonJPEGData() {
        #expect(decodeError([]) == .notJPEG)
        #expect(decodeError([0x89, 0x50, 0x4E, 0x47]) == .notJPEG)
        #expect(decodeError([0xFF, 0xD8]) == .truncated(offset: 2))
        #expect(decodeError([0xFF, 0xD8, 0xFF, 0xD9]) == .noImageData)
        #expect(decodeError([0xFF, 0xD8, 0x00, 0x00]) == .markerExpected(found: 0, offset: 2))
    }

    @Test func refusesAnOverSubscribedHuffmanTable() throws {
        var bytes = [UInt8](try JPEGFixtures.data("gray-baseline-q95.jpg"))
        let dht = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC4 })
        // Counts start after marker (2), length (2) and class/id (1). Move two codes to length 1,
        // where only two codes fit and the all-ones one is forbidden: the table over-subscribes.
        let counts = dht + 5
        let donor = try #require((1..<16).first { bytes[counts + $0] >= 2 })
        bytes[counts + donor] -= 2
        bytes[counts] += 2
        guard case .invalidHuffmanTable = decodeError(bytes) else {
            Issue.record("expected invalidHuffmanTable, got \(String(describing: decodeError(bytes)))")
            return
        }
    }

    @Test func refusesARestartMarkerOutOfSequence() throws {
        var bytes = [UInt8](try JPEGFixtures.data("color-420-restart-every-mcu.jpg"))
        let sos = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let rst = try #require((sos..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD0 })
        bytes[rst + 1] = 0xD3
        guard case .badRestartMarker(expected: 0, found: 0xD3, _) = decodeError(bytes) else {
            Issue.record("expected badRestartMarker, got \(String(describing: decodeError(bytes)))")
            return
        }
    }

    // MARK: - Damaged files: typed errors, never a crash or a hang

    static let damaged = ["color-420-baseline-q95", "color-420-progressive-q95", "gray-progressive-q95-restart",
                          "color-411-progressive-restart", "color-420-restart-every-mcu", "exif-orientation-6"]

    @Test(arguments: damaged)
    func truncationIsAnErrorAtEveryCut(name: String) throws {
        let bytes = [UInt8](try JPEGFixtures.data(name + ".jpg"))
        let sos = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        var cuts = Array(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 150)))
        cuts += [sos, sos + 5, bytes.count - 1, bytes.count - 2]
        for cut in cuts where cut < bytes.count {
            let error = decodeError(Array(bytes[..<cut]))
            #expect(error != nil, "\(name) cut at \(cut) of \(bytes.count) decoded")
            if cut > sos + 20, let error {
                // Inside the scans, a cut shows as the data ending, not as some other fault.
                switch error {
                case .truncated, .scanDataExhausted: break
                default: Issue.record("\(name) cut at \(cut): \(error)")
                }
            }
        }
    }

    @Test(arguments: damaged)
    func randomByteDamageNeverCrashes(name: String) throws {
        let original = [UInt8](try JPEGFixtures.data(name + ".jpg"))
        var random = CorruptionRandom(state: UInt64(original.count))
        var failures = 0
        for _ in 0..<60 {
            var bytes = original
            for _ in 0..<(1 + random.next(3)) {
                let at = 2 + random.next(bytes.count - 2)
                bytes[at] = UInt8(truncatingIfNeeded: random.next(256))
            }
            do {
                let image = try JPEGDecoder.decodeLuma(bytes)
                #expect(image.pixels.count == image.width * image.height)
            } catch {
                failures += 1
                #expect(!error.description.isEmpty)
            }
        }
        // Most damage lands in entropy-coded data and may still decode; some must be caught.
        #expect(failures > 0)
    }
}
