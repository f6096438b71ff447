import Foundation
import SmartHealthCards
import Testing
import TestSupport

/// Inputs that hold no card must say so (`input.noCard`), and text that names the `shc:` scheme
/// must be judged as QR text, so a person learns what is actually wrong.
@Suite struct NothingReadTests {
    let jws: String
    let qr: String

    init() throws {
        jws = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
        qr = try Spec.text("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt")
    }

    @Test func sortsInputsByWhatTheyHold() {
        #expect(HealthCardInput.kind(of: Data()) == .nothing(.empty))
        #expect(HealthCardInput.kind(of: Data(" \n\t\r\n".utf8)) == .nothing(.empty))
        #expect(HealthCardInput.kind(of: Data("Dear doctor, my card is attached.\n".utf8)) == .nothing(.notCardText))
        #expect(HealthCardInput.kind(of: Data(jws.utf8)) == .jws)
        #expect(HealthCardInput.kind(of: Data((jws + "\n").utf8)) == .jws)
        // A JWS cut short is still a JWS, and is reported as a malformed one.
        #expect(HealthCardInput.kind(of: Data(jws.prefix(40).utf8)) == .jws)
        #expect(HealthCardInput.kind(of: Data(qr.utf8)) == .qrText)
        #expect(HealthCardInput.kind(of: Data(#"{"verifiableCredential":[]}"#.utf8)) == .json)
    }

    @Test(arguments: ["shc:", "SHC:/", "Shc:/", "shc:5676", "shc:\\5676", " shc:/5676"])
    func judgesAnythingNamingTheSchemeAsQRText(_ header: String) throws {
        let text = header.hasSuffix("5676") ? header : header + qr.dropFirst(5)
        #expect(HealthCardInput.kind(of: Data(text.utf8)) == .qrText)
        #expect { try HealthCardQRText.decode(text) } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrHeader }
    }

    @Test(arguments: [#"{"verifiableCredential":[]}"#, #"{"resourceType":"Parameters"}"#, #"{"resourceType":"Parameters","parameter":[{"name":"resourceLink","part":[]}]}"#])
    func findsNoCardInAnEmptyContainer(_ json: String) {
        #expect { try HealthCardInput.cards(json: Data(json.utf8), origin: "f") } throws: {
            ($0 as? VerificationIssueError)?.issue.code == .inputNoCard
        }
    }

    @Test(arguments: [NoCardReason.empty, .notCardText, .noCredentials, .noQRCode, .noCardQRCode(count: 2)])
    func neverCallsAnInputThatHeldNothingValid(_ reason: NoCardReason) async {
        let report = await Spec.verifier().verify(HealthCardInput.Card(nothingReadIn: "photo.png", because: reason), at: Spec.afterSigning)
        #expect(!report.isValid)
        #expect(!report.isTrusted)
        #expect(report.errors.map(\.code) == [.inputNoCard])
        #expect(report.errors.first?.message == "photo.png: \(reason)")
    }
}
