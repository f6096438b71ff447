import CardScanning
import Foundation
import QRCode
import SmartHealthCards
import Testing
import TestSupport

@Suite struct CardImageTests {
    let spec = "vectors/shc/spec-examples-2021"

    @Test(arguments: ["example-00_2021-05_qr", "legacy-2021-03_reference_pdf_vaccine"])
    func readsTheRealSpecImages(_ name: String) async throws {
        let png = try FixtureFiles.data("\(spec)/\(name == "example-00_2021-05_qr" ? "example-00_2021-05_qr" : name).png")
        let symbols = try CardImageReader.symbols(png: png, origin: name)
        let expected = String(decoding: try FixtureFiles.data("\(spec)/\(name.replacingOccurrences(of: "_qr", with: "")).qr.txt"), as: UTF8.self)
        #expect(symbols.map(\.decoded.text) == [expected])
        let cards = CardInputReader.read([(png, name)])
        #expect(cards.count == 1)
        #expect(cards[0].warnings.isEmpty)
        let jws = String(decoding: try FixtureFiles.data("\(spec)/\(name.replacingOccurrences(of: "_qr", with: "")).jws.txt"), as: UTF8.self)
        #expect(cards[0].result == .success(jws))
        // And the card read from the picture verifies with the spec issuer's keys (these 2021 cards
        // name the issuer's old host).
        let keys = IssuerFilesKeySource(issuer: "https://smarthealth.cards/examples/issuer", directory: FixtureFiles.url("vectors/shc-spec/issuer"))
        let report = await SmartHealthCardVerifier(keys: keys).verify(cards[0].card, at: Date(timeIntervalSince1970: 1_640_995_200))
        #expect(report.isValid, "\(report.errors)")
    }

    @Test(arguments: [0, 1, 3])
    func drawsSpecCardsAsVersion18LikeTheSpec(_ n: Int) throws {
        let jws = String(decoding: try FixtureFiles.data("vectors/shc-spec/example-0\(n)-d-jws.txt"), as: UTF8.self)
        let code = try CardQRCode.encode(jws: jws)
        #expect(code.version.number == 18)
        #expect(code.level == .L)
        let decoded = try QRReader.decode(code)
        #expect(decoded.segments.map(\.mode) == [.byte, .numeric])
        #expect(decoded.text == (String(decoding: try FixtureFiles.data("vectors/shc-spec/example-0\(n)-f-qr-code-numeric-value-0.txt"), as: UTF8.self)))
        #expect(CardImageReader.shapeFindings(decoded).isEmpty)
    }

    @Test func assemblesChunksSpreadOverSeveralImages() throws {
        var reader = CardInputReader()
        for k in [2, 0, 1] {
            let text = String(decoding: try FixtureFiles.data("vectors/shc-spec/example-02-f-qr-code-numeric-value-\(k).txt"), as: UTF8.self)
            reader.add(try CardQRCode.encode(text).pngData(moduleSize: 3), name: "chunk\(k).png")
        }
        let cards = reader.readings
        #expect(cards.count == 1)
        #expect(cards[0].inputs == [0, 1, 2])
        #expect(cards[0].origin == "chunk2.png + chunk0.png + chunk1.png")
        #expect(cards[0].result == .success(String(decoding: try FixtureFiles.data("vectors/shc-spec/example-02-d-jws.txt"), as: UTF8.self)))
        #expect(cards[0].warnings.map(\.code).contains(.qrChunks))
    }

    @Test func flagsAOneSegmentCardAndAnOversizedVersion() throws {
        let text = String(decoding: try FixtureFiles.data("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt"), as: UTF8.self)
        let oneSegment = try QREncoder.encode(segments: [QRSegment.byte(text)], level: .L)
        let flagged = CardImageReader.shapeFindings(try QRReader.decode(oneSegment))
        #expect(flagged.map(\.code).contains(.qrSegments))
        let tooBig = try QREncoder.encode(segments: try CardQRCode.segments(text), level: .L, minVersion: 25)
        let findings = CardImageReader.shapeFindings(try QRReader.decode(tooBig))
        #expect(findings.map(\.code) == [.qrVersion])
        // Both still read as the card, with the findings as warnings.
        let cards = CardInputReader.read([(try tooBig.pngData(moduleSize: 2), "big.png")])
        #expect(cards.first?.warnings.map(\.code).contains(.qrVersion) == true)
    }

    @Test func refusesTextThatIsNotACard() {
        #expect(throws: CardQRError.notCardText) { try CardQRCode.segments("https://example.org") }
    }
}
