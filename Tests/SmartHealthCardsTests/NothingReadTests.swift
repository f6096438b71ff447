import Foundation
import SmartHealthCards
import Testing
import TestSupport

/// Text that names the `shc:` scheme must be judged as QR text, and a container that lists no
/// card must say so, so a person learns what is actually wrong. (Sorting inputs, and turning
/// "nothing read" into `input.noCard`, is the card-input reader's: CardScanningTests.)
@Suite struct NothingReadTests {
    let qr: String

    init() throws {
        qr = try Spec.text("vectors/shc-spec/example-00-f-qr-code-numeric-value-0.txt")
    }

    @Test(arguments: ["shc:", "SHC:/", "Shc:/", "shc:5676", "shc:\\5676", " shc:/5676"])
    func judgesAnythingNamingTheSchemeAsQRText(_ header: String) throws {
        let text = header.hasSuffix("5676") ? header : header + qr.dropFirst(5)
        #expect(HealthCardQRText.namesScheme(text.utf8))
        #expect { try HealthCardQRText.decode(text) } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrHeader }
    }

    @Test(arguments: [#"{"verifiableCredential":[]}"#, #"{"resourceType":"Parameters"}"#, #"{"resourceType":"Parameters","parameter":[{"name":"resourceLink","part":[]}]}"#])
    func findsNoCardInAnEmptyContainer(_ json: String) {
        #expect(throws: HealthCardContainerError.noCredentials) { try HealthCardContainer.jwsTexts(json: Data(json.utf8)) }
    }

    @Test func namesWhatIsWrongWithABrokenContainer() {
        func error(_ json: String) -> HealthCardContainerError? {
            do { _ = try HealthCardContainer.jwsTexts(json: Data(json.utf8)); return nil } catch { return error }
        }
        #expect(error(#"{"verifiableCredential":"eyJ"}"#) == .credentialsNotAList)
        #expect(error(#"{"verifiableCredential":["eyJ",7]}"#) == .credentialNotAString(index: 1))
        #expect(error(#"{"resourceType":"Parameters","parameter":[{"name":"verifiableCredential"}]}"#) == .parameterWithoutValue)
        #expect(error(#"{"resourceType":"Patient"}"#) == .unknownShape)
        #expect(error(#"["eyJ"]"#) == .notAnObject)
        guard case .notJSON? = error(#"{"verifiableCredential":["#) else { Issue.record("a truncated container must be notJSON"); return }
    }
}
