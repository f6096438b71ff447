import CardScanning
import Foundation
import QRCode
import SmartHealthCards
import Testing
import TestSupport

/// A photo with no card in it must be reported as such, never as an empty success.
@Suite struct CardImageNothingReadTests {
    let qr: String

    init() throws {
        qr = String(decoding: try FixtureFiles.data("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt"), as: UTF8.self)
    }

    func read(_ png: Data) -> [CardReading] { CardInputReader.read([(png, "photo.png")]) }

    @Test func findsNoCardInAPhotoWithoutQRCodes() {
        let found = read(BlankPNG.data(width: 120, height: 80))
        #expect(found.map(\.error) == [.noQRCode])
    }

    @Test func findsNoCardInAPhotoOfSomeOtherQRCode() throws {
        let found = read(try CardQRCode.encode("https://example.org/menu").pngData(moduleSize: 3))
        #expect(found.map(\.error) == [.noCardQRCode(count: 1)])
    }

    @Test func findsACardInAPhotoOfACard() throws {
        let found = read(try CardQRCode.encode(qr).pngData(moduleSize: 3))
        #expect(found.count == 1)
        #expect(found.first?.error == nil)
    }

    @Test(arguments: ["shc:", "SHC:/"])
    func reportsABadHeaderInAPhotographedCodeAsAQRHeaderError(_ header: String) throws {
        let text = header + qr.dropFirst(5)
        let png = try QREncoder.encode(text: text, level: .L).pngData(moduleSize: 3)
        #expect(try CardImageReader.symbols(png: png, origin: "photo.png").map(\.decoded.text) == [text])
        let cards = read(png)
        #expect(cards.count == 1)
        #expect(cards.first?.card.inputError?.code == .qrHeader)
    }
}
