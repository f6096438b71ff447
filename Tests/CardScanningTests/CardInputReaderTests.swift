import CardScanning
import Foundation
import QRCode
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords

/// The one policy for card inputs: every input yields its cards or a typed error naming what is
/// wrong, with the verifier's stable code; nothing throws, nothing is dropped, nothing verified
/// is never a success.
@Suite struct CardInputReaderTests {
    static let spec = "vectors/shc-spec"
    static func text(_ name: String) throws -> String { String(decoding: try FixtureFiles.data("\(spec)/\(name)"), as: UTF8.self) }

    let jws: String
    let qr: String
    let chunks: [String]
    let chunkedJWS: String

    init() throws {
        jws = try Self.text("example-00-d-jws.txt")
        qr = try Self.text("example-00-f-qr-code-numeric-value-0.txt")
        chunks = try (0...2).map { try Self.text("example-02-f-qr-code-numeric-value-\($0).txt") }
        chunkedJWS = try Self.text("example-02-d-jws.txt")
    }

    /// The spec issuer's keys, offline.
    static let verifier = SmartHealthCardVerifier(
        keys: IssuerFilesKeySource(issuer: "https://spec.smarthealth.cards/examples/issuer", directory: FixtureFiles.url("\(spec)/issuer")))
    static let afterSigning = Date(timeIntervalSince1970: 1_688_169_600)  // 2023-07-01

    @Test func readsEveryKindOfInputToTheSameCard() async throws {
        let png = try CardQRCode.encode(qr).pngData(moduleSize: 3)
        let file = try FixtureFiles.data("\(Self.spec)/example-00-e-file.smart-health-card")
        let readings = CardInputReader.read([(png, "card.png"), (file, "card.smart-health-card"), (Data(qr.utf8), "card.txt"), (Data(jws.utf8), "card.jws")])
        #expect(readings.map(\.result) == Array(repeating: .success(jws), count: 4))
        #expect(readings.map(\.origin) == ["card.png", "card.smart-health-card#0", "card.txt", "card.jws"])
        #expect(readings.map(\.inputs) == [[0], [1], [2], [3]])
        #expect(readings.map(\.fromQR) == [true, false, true, false])
        for reading in readings {
            let report = await Self.verifier.verify(reading.card, at: Self.afterSigning)
            #expect(report.isValid, "\(reading.origin): \(report.errors)")
        }
    }

    @Test func assemblesChunksFromAnyInputsAtTheFirstChunksPlace() throws {
        let blank = BlankPNG.data()
        let readings = CardInputReader.read([
            (Data(jws.utf8), "a.jws"), (Data("a note".utf8), "note.txt"), (Data(chunks[1].utf8), "c1.txt"), (blank, "blank.png"),
            (try CardQRCode.encode(chunks[0]).pngData(moduleSize: 3), "c0.png"), (Data(#"{"verifiableCredential":[]}"#.utf8), "none.smart-health-card"),
            (Data(chunks[2].utf8), "c2.txt"),
        ])
        #expect(readings.map(\.inputs) == [[0], [1], [2, 4, 6], [3], [5]])
        #expect(readings[2].origin == "c1.txt + c0.png + c2.txt")
        #expect(readings[2].result == .success(chunkedJWS))
        #expect(readings[2].warnings.map(\.code).contains(.qrChunks))
        #expect(readings.map(\.error) == [nil, .notACard, nil, .noQRCode, .container(.noCredentials)])
    }

    @Test func readsNothingFromNoInputs() {
        #expect(CardInputReader.read([]).isEmpty)
    }

    /// Inputs that hold no card, or a broken one, each with the error the reader must give.
    enum Bad: String, CaseIterable, Sendable {
        case empty, whitespace, byteOrderMarkOnly, prose, binary, tooLarge
        case truncatedJSON, deepJSON, notAContainer, emptyContainer, emptyParameters, tooManyCards
        case truncatedPNG, corruptPNG, oversizedImage, imageWithoutQRCode, imageOfAnotherQRCode
        case upperCaseHeader, noSlashHeader, oddDigits, trailingNewline, missingChunk, duplicateChunk, chunkOutOfRange
    }

    /// The reader's limits for these inputs: small, so the bounds are reached cheaply.
    static let limits = CardInputReader.Limits(
        maxInputBytes: 64 << 10, maxCardsPerInput: 2, png: PNGDecoder.Limits(maxWidth: 400, maxHeight: 400, maxPixels: 400 * 400, maxDecompressedBytes: 1 << 20))

    /// The inputs (several for chunk sets) and the one error they must give.
    func make(_ bad: Bad) throws -> (inputs: [Data], error: (CardInputError) -> Bool) {
        let png = try CardQRCode.encode(qr).pngData(moduleSize: 2)
        func text(_ s: String) -> [Data] { [Data(s.utf8)] }
        func qrError(_ code: VerificationCode) -> (CardInputError) -> Bool { { $0.code == code } }
        switch bad {
        case .empty: return ([Data()], { $0 == .empty })
        case .whitespace: return (text(" \n\t\r\n"), { $0 == .empty })
        case .byteOrderMarkOnly: return ([Data([0xEF, 0xBB, 0xBF])], { $0 == .empty })
        case .prose: return (text("Dear doctor, my vaccination card is attached.\n"), { $0 == .notACard })
        case .binary: return ([Data([0x00, 0xFF, 0x13, 0x37, 0x80, 0x2E])], { $0 == .notACard })
        case .tooLarge: return ([Data(jws.utf8) + Data(repeating: 0x41, count: 64 << 10)], { $0 == .tooLarge(limit: 64 << 10) })
        case .truncatedJSON: return (text(#"{"verifiableCredential":[""#), { if case .container(.notJSON) = $0 { return true }; return false })
        case .deepJSON:
            return (text("{\"verifiableCredential\":" + String(repeating: "[", count: 20_000)), { if case .container(.notJSON) = $0 { return true }; return false })
        case .notAContainer: return (text(#"{"resourceType":"Patient","id":"p"}"#), { $0 == .container(.unknownShape) })
        case .emptyContainer: return (text(#"{"verifiableCredential":[]}"#), { $0 == .container(.noCredentials) })
        case .emptyParameters: return (text(#"{"resourceType":"Parameters"}"#), { $0 == .container(.noCredentials) })
        case .tooManyCards: return (text(#"{"verifiableCredential":["a","b","c"]}"#), { $0 == .tooManyCards(count: 3, limit: 2) })
        case .truncatedPNG: return ([png.prefix(png.count / 2)], { if case .unreadableImage = $0 { return true }; return false })
        case .corruptPNG:
            var bytes = png
            bytes[40] ^= 0xFF
            return ([bytes], { if case .unreadableImage = $0 { return true }; return false })
        case .oversizedImage: return ([BlankPNG.data(width: 401, height: 8)], { if case .unreadableImage(let m) = $0 { return m.contains("401") }; return false })
        case .imageWithoutQRCode: return ([BlankPNG.data(width: 120, height: 80)], { $0 == .noQRCode })
        case .imageOfAnotherQRCode: return ([try CardQRCode.encode("https://example.org/menu").pngData(moduleSize: 3)], { $0 == .noCardQRCode(count: 1) })
        case .upperCaseHeader: return (text("SHC:/" + qr.dropFirst(5)), qrError(.qrHeader))
        case .noSlashHeader: return (text("shc:" + qr.dropFirst(5)), qrError(.qrHeader))
        case .oddDigits: return (text("shc:/567"), { $0 == .qrDigits("an odd number of digits (3)") })
        case .trailingNewline: return (text(qr + "\n"), qrError(.qrNumeric))
        case .missingChunk: return ([Data(chunks[0].utf8), Data(chunks[2].utf8)], { $0 == .chunkNumbering("missing chunk 2 of 3") })
        case .duplicateChunk: return (chunks.map { Data($0.utf8) } + [Data(chunks[1].utf8)], { $0 == .chunkNumbering("chunk 2 appears twice") })
        case .chunkOutOfRange: return (text(chunks[2].replacingOccurrences(of: "shc:/3/3/", with: "shc:/4/3/")), qrError(.qrChunks))
        }
    }

    @Test(arguments: Bad.allCases)
    func refusesBadInputWithItsOwnErrorAndCode(_ bad: Bad) async throws {
        let (inputs, expected) = try make(bad)
        let readings = CardInputReader.read(inputs.enumerated().map { ($0.element, "input\($0.offset)") }, limits: Self.limits)
        #expect(readings.count == 1)
        let reading = try #require(readings.first)
        let error = try #require(reading.error, "\(bad) was read as a card")
        #expect(expected(error), "\(bad): \(error)")
        let report = await Self.verifier.verify(reading.card, at: Self.afterSigning)
        #expect(!report.isValid)
        #expect(!report.isTrusted)
        #expect(report.errors.map(\.code) == [error.code])
        #expect(report.errors.first?.message == error.description)
    }

    /// Inputs that are cards in form but broken inside reach the verifier, which refuses them.
    @Test(arguments: [40, 101, 500])
    func hasTheVerifierRefuseATruncatedCard(_ length: Int) async {
        for data in [Data(jws.prefix(length).utf8), Data(qr.prefix(length + (length % 2 == 0 ? 5 : 6)).utf8)] {
            let readings = CardInputReader.read([(data, "cut")])
            #expect(readings.count == 1)
            let report = await Self.verifier.verify(readings[0].card, at: Self.afterSigning)
            #expect(!report.isValid)
        }
    }

    @Test func mapsEveryErrorToItsDocumentedCode() {
        let table: [(CardInputError, VerificationCode)] = [
            (.empty, .inputNoCard), (.notACard, .inputNoCard), (.tooLarge(limit: 1), .inputNoCard), (.container(.noCredentials), .inputNoCard),
            (.container(.notAnObject), .jwsMalformed), (.container(.unknownShape), .jwsMalformed), (.tooManyCards(count: 2, limit: 1), .jwsMalformed),
            (.unreadableImage("x"), .inputNoCard), (.noQRCode, .inputNoCard), (.noCardQRCode(count: 2), .inputNoCard),
            (.qrHeader("x"), .qrHeader), (.qrDigits("x"), .qrNumeric), (.chunkNumbering("x"), .qrChunks),
        ]
        for (error, code) in table { #expect(error.code == code, "\(error)") }
    }

    @Test func stopsReadingAnEndlessStreamOneBytePastTheLimit() throws {
        let zero = try #require(FileHandle(forReadingAtPath: "/dev/zero"))
        defer { try? zero.close() }
        let data = try CardInputReader.contents(of: zero, limit: 4096)
        #expect(data.count == 4097)
        var reader = CardInputReader(limits: CardInputReader.Limits(maxInputBytes: 4096))
        reader.add(data, name: "zero")
        #expect(reader.readings.map(\.error) == [.tooLarge(limit: 4096)])
    }

    @Test func sortsInputsByWhatTheyHold() throws {
        #expect(CardInputKind(of: Data()) == .empty)
        #expect(CardInputKind(of: Data(" \n\t\r\n".utf8)) == .empty)
        #expect(CardInputKind(of: Data("Dear doctor, my card is attached.\n".utf8)) == .unknown)
        #expect(CardInputKind(of: Data(jws.utf8)) == .jws)
        #expect(CardInputKind(of: Data((jws + "\n").utf8)) == .jws)
        // A JWS cut short is still a JWS, and is reported as a malformed one.
        #expect(CardInputKind(of: Data(jws.prefix(40).utf8)) == .jws)
        #expect(CardInputKind(of: Data(qr.utf8)) == .qrText)
        #expect(CardInputKind(of: Data(" SHC:/56".utf8)) == .qrText)
        #expect(CardInputKind(of: Data(#"{"verifiableCredential":[]}"#.utf8)) == .json)
        #expect(CardInputKind(of: BlankPNG.data()) == .png)
    }
}
