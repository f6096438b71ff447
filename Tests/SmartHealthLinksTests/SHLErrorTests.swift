import Deflate
import Foundation
import SmartHealthLinks
import Testing

/// Every error has a stable `shl.` code and a message for people.
@Suite struct SHLErrorTests {
    static let everyKind: [SHLError] = [
        .payload(.notALink), .key(.length(characters: 3)), .unsupportedVersion(2, label: "x"),
        .expired(expiration: 1, checkedAt: Date(timeIntervalSince1970: 2)), .notFound(url: "https://a.example/m"),
        .passcodeRequired, .passcodeRejected(remainingAttempts: 2), .rateLimited(retryAfterSeconds: nil),
        .httpStatus(500, url: "https://a.example/m"), .manifestRequest(.emptyRecipient), .manifest(.fileWithoutContent(index: 0)),
        .notEncrypted(.compactJWS), .malformedJWE(.partCount(2)), .decryptionFailed,
        .contentType(expected: SHLContentType.fhirJSON, found: SHLContentType.smartHealthCard), .inflate(.truncated),
        .tooLarge(limit: 1), .encryptionFailed,
    ]

    @Test func codesAreTheDocumentedOnes() {
        let codes = Set(Self.everyKind.map(\.code))
        #expect(codes == [
            "shl.payload", "shl.key", "shl.version", "shl.expired", "shl.notFound", "shl.passcode", "shl.rateLimited", "shl.http",
            "shl.request", "shl.manifest", "shl.notEncrypted", "shl.jwe", "shl.decrypt", "shl.contentType", "shl.inflate",
            "shl.tooLarge", "shl.encrypt",
        ])
        for error in Self.everyKind {
            #expect(!error.description.isEmpty, "\(error.code)")
        }
    }

    @Test func messagesNameWhatIsWrong() {
        #expect(SHLError.malformedJWE(.algorithm("ES256")).description.contains("\"ES256\""))
        #expect(SHLError.malformedJWE(.algorithm(nil)).description.contains("absent"))
        #expect(SHLError.notEncrypted(.compactJWS).description.contains("JWS"))
        #expect(SHLError.tooLarge(limit: 4096).description.contains("4096"))
        #expect(SHLError.manifest(.fileWithoutContent(index: 2)).description.contains("2"))
    }
}
