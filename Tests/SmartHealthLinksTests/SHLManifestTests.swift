import Foundation
import SmartHealthLinks
import Testing

/// The manifest request and the manifest: the spec's JSON names, the IG's example, the answers a
/// manifest request can get.
@Suite struct SHLManifestTests {
    static let keyText = "rxTgYlOaKJPFtcEd0qcceN8wEU4p94SqAwIWQe6uX7Q"

    static func encodedText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    // MARK: The request

    @Test func writesTheRequestWithTheSpecsNames() throws {
        let request = SHLManifestRequest(recipient: "Example Clinic", passcode: "1234", embeddedLengthMax: 1000)
        #expect(try Self.encodedText(request) == #"{"embeddedLengthMax":1000,"passcode":"1234","recipient":"Example Clinic"}"#)
        // Absent members are left out, not null.
        #expect(try Self.encodedText(SHLManifestRequest(recipient: "Example Clinic")) == #"{"recipient":"Example Clinic"}"#)
    }

    @Test func sendsThePasscodeOnlyWhenTheLinkAsksForIt() throws {
        let key = SHLKey.random()
        let passcodeLink = try SHLinkPayload(url: "https://a.example/m", key: key, flags: [.passcode])
        #expect(throws: SHLError.passcodeRequired) { try SHLManifestRequest(for: passcodeLink, recipient: "Clinic") }
        #expect(throws: SHLError.passcodeRequired) { try SHLManifestRequest(for: passcodeLink, recipient: "Clinic", passcode: "") }
        #expect(SHLError.passcodeRequired.code == "shl.passcode")
        #expect(try SHLManifestRequest(for: passcodeLink, recipient: "Clinic", passcode: "1234").passcode == "1234")

        let openLink = try SHLinkPayload(url: "https://a.example/m", key: key, flags: [.longTerm])
        let request = try SHLManifestRequest(for: openLink, recipient: "Clinic", passcode: "1234", embeddedLengthMax: 500)
        #expect(request.passcode == nil)
        #expect(request.embeddedLengthMax == 500)
    }

    /// The sharing server's side: unknown members ignored, the recipient required.
    @Test func readsRequestsAsAServer() throws {
        let body = Data(#"{"recipient":"Clinic","passcode":"1234","embeddedLengthMax":10,"extra":true}"#.utf8)
        #expect(try SHLManifestRequest.decode(body) == SHLManifestRequest(recipient: "Clinic", passcode: "1234", embeddedLengthMax: 10))
        #expect(throws: SHLError.manifestRequest(.malformed(path: "recipient"))) { try SHLManifestRequest.decode(Data("{}".utf8)) }
        #expect(throws: SHLError.manifestRequest(.malformed(path: ""))) { try SHLManifestRequest.decode(Data("[]".utf8)) }
        #expect(throws: SHLError.manifestRequest(.emptyRecipient)) { try SHLManifestRequest.decode(Data(#"{"recipient":""}"#.utf8)) }
        #expect(throws: SHLError.manifestRequest(.negativeEmbeddedLengthMax(-1))) {
            try SHLManifestRequest.decode(Data(#"{"recipient":"a","embeddedLengthMax":-1}"#.utf8))
        }
        #expect(SHLError.manifestRequest(.emptyRecipient).code == "shl.request")
    }

    // MARK: The manifest

    /// The IG's example manifest: a location, an embedded JWE, and a file with every optional member.
    @Test func readsTheSpecExampleManifest() throws {
        let manifest = try SHLManifest.decode(SHLVectors.data("shl-manifest-1.json"))
        #expect(manifest.files.count == 3)

        let first = manifest.files[0]
        #expect(first.contentType == SHLContentType.smartHealthCard)
        #expect(first.location == "https://bucket.cloud.example.org/file1?sas=MFXK6jL3oL3SI_lRfi_-cEfzIs5oHs6rRWmrsCAFzvk")
        #expect(first.embedded == nil)

        let second = manifest.files[1]
        #expect(second.contentType == SHLContentType.smartHealthCard)
        #expect(second.location == nil)
        #expect(second.embedded?.hasPrefix("eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..8zH0NmUXGwMOqEya.") == true)

        let third = manifest.files[2]
        #expect(third.contentType == SHLContentType.fhirJSON)
        #expect(third.lastUpdated == "2025-03-09T15:29:46Z")
        #expect(third.status == .finalized)
        #expect(third.fhirVersion == "4.0.1")

        // Written and read again, nothing is lost.
        let written = try JSONEncoder().encode(manifest)
        #expect(try SHLManifest.decode(written) == manifest)
        #expect(try Self.encodedText(third).contains(#""status":"finalized""#))
    }

    @Test func toleratesWhatANewerServerMaySend() throws {
        let json = #"""
        {"files":[{"contentType":"application/x-future","location":"https://a.example/f","status":"archived","size":12}],
         "list":{"resourceType":"List","status":"current","mode":"working","entry":[]},"next":"x"}
        """#
        let manifest = try SHLManifest.decode(Data(json.utf8))
        #expect(manifest.files.count == 1)
        #expect(manifest.files[0].status == nil)
        #expect(!SHLContentType.known.contains(manifest.files[0].contentType))
        // No files at all is a manifest too.
        #expect(try SHLManifest.decode(Data("{}".utf8)).files.isEmpty)
    }

    @Test func refusesFilesItCannotFetch() throws {
        #expect(throws: SHLError.manifest(.fileWithoutContent(index: 1))) {
            try SHLManifest.decode(Data(#"{"files":[{"contentType":"application/fhir+json","location":"https://a.example/f"},{"contentType":"application/fhir+json"}]}"#.utf8))
        }
        #expect(throws: SHLError.manifest(.malformed(path: "files[0].contentType"))) {
            try SHLManifest.decode(Data(#"{"files":[{"location":"https://a.example/f"}]}"#.utf8))
        }
        #expect(throws: SHLError.manifest(.malformed(path: ""))) { try SHLManifest.decode(Data("not json".utf8)) }
        #expect(SHLError.manifest(.malformed(path: "")).code == "shl.manifest")
    }

    /// A sharing server holds itself to the request's `embeddedLengthMax`.
    @Test func checksEmbeddedLengths() throws {
        let manifest = SHLManifest(files: [
            SHLManifestFile(contentType: SHLContentType.fhirJSON, location: "https://a.example/f"),
            SHLManifestFile(contentType: SHLContentType.smartHealthCard, embedded: String(repeating: "e", count: 200), status: .canChange),
        ])
        try manifest.check(embeddedLengthMax: 200)
        try manifest.check(embeddedLengthMax: nil)
        #expect(throws: SHLError.manifest(.embeddedTooLong(index: 1, length: 200, limit: 199))) { try manifest.check(embeddedLengthMax: 199) }
    }

    /// What each status of a manifest request means.
    @Test func readsTheAnswersToAManifestRequest() throws {
        let url = "https://a.example/m"
        let body = Data(#"{"files":[{"contentType":"application/fhir+json","location":"https://a.example/f"}]}"#.utf8)
        #expect(try SHLManifest.read(status: 200, body: body, url: url).files.count == 1)
        #expect(throws: SHLError.notFound(url: url)) { try SHLManifest.read(status: 404, body: Data(), url: url) }
        #expect(throws: SHLError.passcodeRejected(remainingAttempts: 4)) {
            try SHLManifest.read(status: 401, body: Data(#"{"remainingAttempts":4}"#.utf8), url: url)
        }
        #expect(throws: SHLError.passcodeRejected(remainingAttempts: nil)) { try SHLManifest.read(status: 401, body: Data("no".utf8), url: url) }
        #expect(throws: SHLError.rateLimited(retryAfterSeconds: 30)) {
            try SHLManifest.read(status: 429, body: Data(), url: url, retryAfterSeconds: 30)
        }
        #expect(throws: SHLError.httpStatus(500, url: url)) { try SHLManifest.read(status: 500, body: Data(), url: url) }
        #expect(SHLError.notFound(url: url).code == "shl.notFound")
        #expect(SHLError.passcodeRejected(remainingAttempts: 4).code == "shl.passcode")
        #expect(SHLError.passcodeRejected(remainingAttempts: 1).description.contains("1 attempt left"))
        #expect(try Self.encodedText(SHLPasscodeFailure(remainingAttempts: 3)) == #"{"remainingAttempts":3}"#)
    }
}
