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
        qr = String(decoding: try Shared.data("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt"), as: UTF8.self)
    }

    func symbols(_ png: Data) throws -> [CardImageReader.Symbol] { try CardImageReader.symbols(png: png, origin: "photo.png") }

    @Test func findsNoCardInAPhotoWithoutQRCodes() throws {
        let found = try symbols(BlankPNG.data(width: 120, height: 80))
        #expect(found.isEmpty)
        #expect(CardImageReader.nothingRead(in: found) == .noQRCode)
    }

    @Test func findsNoCardInAPhotoOfSomeOtherQRCode() throws {
        let found = try symbols(try CardQRCode.encode("https://example.org/menu").pngData(moduleSize: 3))
        #expect(found.count == 1)
        #expect(CardImageReader.nothingRead(in: found) == .noCardQRCode(count: 1))
    }

    @Test func findsACardInAPhotoOfACard() throws {
        let found = try symbols(try CardQRCode.encode(qr).pngData(moduleSize: 3))
        #expect(CardImageReader.nothingRead(in: found) == nil)
    }

    @Test(arguments: ["shc:", "SHC:/"])
    func reportsABadHeaderInAPhotographedCodeAsAQRHeaderError(_ header: String) throws {
        let text = header + qr.dropFirst(5)
        let found = try symbols(try QREncoder.encode(text: text, level: .L).pngData(moduleSize: 3))
        #expect(found.map(\.decoded.text) == [text])
        #expect(CardImageReader.nothingRead(in: found) == nil)
        let cards = CardImageReader.cards(found)
        #expect(cards.count == 1)
        #expect(cards.first?.inputError?.code == .qrHeader)
    }
}
