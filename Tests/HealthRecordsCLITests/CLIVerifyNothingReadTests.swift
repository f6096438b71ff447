import FHIR
import Foundation
import Testing
import TestSupport

/// A verifier must never report success when it verified nothing: every input in which no card
/// could be read is an `input.noCard` error, whatever kind of input it is.
@Suite struct CLIVerifyNothingReadTests {
    let dir = TemporaryDirectory()
    var cli: CommandRunner { CommandRunner(environment: ["HEALTHRECORDS_STORE": dir.path("store.sqlite")]) }
    let spec = FixtureFiles.url("vectors/shc-spec").path
    let iss = "https://spec.smarthealth.cards/examples/issuer"
    var offline: [String] { ["--issuer-files", "\(iss)=\(spec)/issuer", "--offline", "--at", "2023-07-01"] }

    /// Inputs a person might hand the verifier by mistake, none holding a card.
    enum Nothing: String, CaseIterable, Sendable {
        case photoWithoutQRCode, photoOfAnotherQRCode, emptyFile, whitespaceFile, prose, emptyStandardInput, emptyCardFile, emptyParameters
    }

    /// The command-line argument and standard input for one kind of input.
    func make(_ kind: Nothing) throws -> (argument: String, stdin: Data?) {
        switch kind {
        case .photoWithoutQRCode: return (try dir.write("photo.png", BlankPNG.data()), nil)
        case .photoOfAnotherQRCode:
            let png = dir.path("website.png")
            let drawn = try cli.run(["qr", "encode", "--text", "https://example.org/menu", "--png", png, "--module-size", "4"])
            #expect(drawn.status == 0, "\(drawn.stderr)")
            return (png, nil)
        case .emptyFile: return (try dir.write("empty.txt", ""), nil)
        case .whitespaceFile: return (try dir.write("blank.txt", " \n\t\r\n"), nil)
        case .prose: return (try dir.write("note.txt", "Dear doctor, my vaccination card is attached. Regards\n"), nil)
        case .emptyStandardInput: return ("-", Data())
        case .emptyCardFile: return (try dir.write("none.smart-health-card", #"{"verifiableCredential":[]}"#), nil)
        case .emptyParameters: return (try dir.write("issue-response.json", #"{"resourceType":"Parameters"}"#), nil)
        }
    }

    func codes(_ card: JSONValue?) -> [String] { card?["errors"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? [] }

    @Test(arguments: Nothing.allCases)
    func reportsNothingReadAsAFailureInJSON(_ kind: Nothing) throws {
        let (argument, stdin) = try make(kind)
        let r = try cli.run(["verify", argument, "--json"] + offline, stdin: stdin)
        #expect(r.status == 1, "\(r.output)\(r.stderr)")
        let report = try JSONReader().read(r.stdout)
        #expect(report["valid"]?.boolValue == false)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.count == 1)
        #expect(cards.first?["valid"]?.boolValue == false)
        #expect(codes(cards.first) == ["input.noCard"])
    }

    @Test(arguments: Nothing.allCases)
    func reportsNothingReadAsAFailureForPeople(_ kind: Nothing) throws {
        let (argument, stdin) = try make(kind)
        let r = try cli.run(["verify", argument] + offline, stdin: stdin)
        #expect(r.status == 1)
        #expect(r.output.contains("INVALID"), "\(r.output)")
        #expect(r.output.contains("✗ input"), "\(r.output)")
    }

    @Test func aGoodCardDoesNotHideAnInputThatHeldNothing() throws {
        let photo = try dir.write("photo.png", BlankPNG.data())
        let r = try cli.run(["verify", "\(spec)/example-00-d-jws.txt", photo, "--json"] + offline)
        #expect(r.status == 1)
        let report = try JSONReader().read(r.stdout)
        #expect(report["valid"]?.boolValue == false)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.map { $0["valid"]?.boolValue } == [true, false])
        #expect(codes(cards.last) == ["input.noCard"])
        #expect(cards.last?["origin"]?.stringValue == "photo.png")
    }

    @Test func readsShcTextWithoutTheSlashAsABadQRHeader() throws {
        let qr = try String(contentsOfFile: "\(spec)/example-00-f-qr-code-numeric-value-0.txt", encoding: .utf8)
        let noSlash = "shc:" + qr.dropFirst(5)
        let file = try dir.write("card.txt", noSlash)
        for argument in [noSlash, file] {
            let r = try cli.run(["verify", argument, "--json"] + offline)
            #expect(r.status == 1)
            let card = try JSONReader().read(r.stdout)["cards"]?[0]
            #expect(codes(card) == ["qr.header"], "\(r.output)")
        }
    }
}
