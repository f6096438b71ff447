import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import Testing
import TestSupport
import ZlibReference

@Suite struct IssuingTests {
    func bundle(_ rel: String) throws -> JSONObject { try JSONReader().read(FixtureFiles.data(rel)).objectValue! }

    @Test(arguments: [("covid-vaccines-bundle", 0), ("revoked-bundle", 3)])
    func minimizesTheSpecFixturesLikeTheSpec(_ fixture: String, _ example: Int) throws {
        let (minimized, warnings) = try BundleMinimizer().minimize(bundle("vectors/shc-spec/fixtures/\(fixture).json"))
        #expect(minimized == (try bundle("vectors/shc-spec/example-0\(example)-a-fhirBundle.json")))
        #expect(warnings.isEmpty)
    }

    /// Example 02 is deliberately not fully minimized by the spec (it keeps Organization/… references);
    /// ours rewrites what it can and reports the rest.
    @Test func minimizesTheDiagnosticReportFixtureAsFarAsItCan() throws {
        let (minimized, warnings) = try BundleMinimizer().minimize(bundle("vectors/shc-spec/fixtures/dr-bundle.json"))
        let expected = try bundle("vectors/shc-spec/example-02-a-fhirBundle.json")
        #expect(minimized.list("entry").count == expected.list("entry").count)
        #expect(minimized.list("entry").enumerated().allSatisfy { $0.element["fullUrl"]?.stringValue == "resource:\($0.offset)" })
        #expect(!warnings.isEmpty)
        #expect(warnings.allSatisfy { !$0.reference.hasPrefix("resource:") })
        let text = JSONWriter.minifiedString(.object(minimized))
        for gone in ["\"id\":", "\"meta\":", "\"div\":", "\"display\":\"General Health Profile\""] { #expect(!text.contains(gone), "\(gone)") }
        let report = BundleMinimizationCheck.check(minimized)
        #expect(report.errors.isEmpty)
    }

    @Test func keepsSecurityLabelsWhenAsked() throws {
        let (minimized, _) = try BundleMinimizer(keepSecurityLabels: true).minimize(bundle("vectors/shc-spec/fixtures/covid-vaccines-bundle.json"))
        let immunization = try #require(minimized.list("entry")[1].objectValue?.object("resource"))
        #expect(immunization.object("meta")?.keys == ["security"])
    }

    @Test func computesTheSpecsRevocationIDs() throws {
        let secret = "GWdbF5850vxNt3HhHFl0dRvvN--C6rD77obJgGjK_Zg"
        for (user, rid) in [("userid-00", "MKyCxh7p6uQ"), ("userid-02", "YjKhdFoxL_g"), ("userid-03", "vwAjHdarZuc"), ("fake-userid-1", "FKDIxsTCGlU"), ("fake-userid-2", "XkNHp2Iyk0Y"), ("fake-userid-3", "TqB_qu_6OtM")] {
            #expect(RevocationID.compute(secret: secret, keyID: Spec.kidCRL, userID: user) == rid)
        }
    }

    @Test func reproducesTheSpecPayloadByteForByte() throws {
        let key = try IssuerKey.load(FixtureFiles.data("vectors/shc-spec/issuer.jwks.private.json"), kid: Spec.kidCRL)
        #expect(key.keyID == Spec.kidCRL)
        let issuer = try HealthCardIssuer(issuer: Spec.issuer, key: key)
        let card = try issuer.issue(
            bundle: bundle("vectors/shc-spec/fixtures/covid-vaccines-bundle.json"), notBefore: Date(timeIntervalSince1970: 1_687_450_764.656),
            revocationID: "MKyCxh7p6uQ")
        #expect(Data(card.payload) == (try FixtureFiles.data("vectors/shc-spec/example-00-c-jws-payload-minified.json")))
        // Signatures are randomized: compare by verifying, and by the inflated payload.
        let parsed = try CompactJWS(card.jws)
        #expect(try RawDeflate.inflate(parsed.payload) == card.payload)
        // What peers run (zlib: Python's joserfc, browsers, other verifiers) reads it as well.
        #expect(ZlibOracle.inflate(parsed.payload, limit: card.payload.count) == .inflated(card.payload))
        // Compressed as zlib's level 9 would: the QR code must not grow (docs/deflate.md).
        let zlibSize = ZlibOracle.compress(card.payload, level: 9).count
        #expect(parsed.payload.count <= zlibSize + zlibSize / 50, "\(parsed.payload.count) bytes, zlib level 9 makes \(zlibSize)")
        #expect(parsed.header.keyID == Spec.kidCRL)
        #expect(String(decoding: try Base64URL.decode(card.jws.split(separator: ".")[0].description), as: UTF8.self) == #"{"zip":"DEF","alg":"ES256","kid":"\#(Spec.kidCRL)"}"#)
    }

    @Test func issuedCardsVerifyAndRoundTripThroughQRText() async throws {
        let key = IssuerKey.generate()
        let iss = "https://issuer.example.org/shc"
        let card = try HealthCardIssuer(issuer: iss, key: key).issue(
            bundle: bundle("vectors/shc-spec/fixtures/covid-vaccines-bundle.json"), types: ["https://smarthealth.cards#immunization"],
            notBefore: Date(timeIntervalSince1970: 1_700_000_000), expiration: Date(timeIntervalSince1970: 1_800_000_000))
        let verifier = SmartHealthCardVerifier(keys: StaticKeySource(keySets: [iss: JWKSet(keys: [key.publicJWK])]))
        let report = await verifier.verify(jws: card.jws, at: Date(timeIntervalSince1970: 1_750_000_000))
        #expect(report.isValid, "\(report.errors)")
        #expect(report.warnings.allSatisfy { $0.code != .fhirNotMinimized })
        #expect(report.payload?.types == ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"])
        #expect(key.publicJWK.signingKeyProblems().isEmpty)
        let qr = try card.qrText()
        #expect(try HealthCardQRText.decode(qr).jws == card.jws)
        #expect(try HealthCardContainer.jwsTexts(json: card.fileContents) == [card.jws])
    }

    @Test func turnsTheSpecJWSIntoTheSpecQRText() throws {
        for n in [0, 1, 3] {
            let jws = try Spec.text("vectors/shc-spec/example-0\(n)-d-jws.txt")
            #expect(HealthCardQRText.encode(jws: jws) == (try Spec.text("vectors/shc-spec/example-0\(n)-f-qr-code-numeric-value-0.txt")))
        }
    }

    @Test func refusesBadIssuersKeysAndBundles() throws {
        let key = IssuerKey.generate()
        #expect(throws: IssuingError.invalidIssuer("http://x.example")) { try HealthCardIssuer(issuer: "http://x.example", key: key) }
        #expect(throws: IssuingError.invalidIssuer("https://x.example/")) { try HealthCardIssuer(issuer: "https://x.example/", key: key) }
        let issuer = try HealthCardIssuer(issuer: "https://x.example", key: key)
        #expect(throws: IssuingError.notABundle) { try issuer.issue(bundle: JSONObject(["resourceType": .string("Patient")]), notBefore: Date()) }
        // A public key set has no private part.
        #expect { try IssuerKey.load(FixtureFiles.data("vectors/shc-spec/issuer/.well-known/jwks.json"), kid: Spec.kidCRL) } throws: {
            ($0 as? IssuingError) == .key(JWKError.missingPrivateKey.description)
        }
        // A P-384 key is not a P-256 key.
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect { try IssuerKey.load(Data(p384.utf8)) } throws: { if case .key = $0 as? IssuingError { return true } else { return false } }
        // Several signing keys need --kid; enc keys are skipped.
        #expect { try IssuerKey.load(FixtureFiles.data("vectors/shc-spec/issuer.jwks.private.json")) } throws: {
            "\($0)".contains("--kid")
        }
    }

    @Test func refusesACardTooBigForOneQRCode() throws {
        let key = IssuerKey.generate()
        let issuer = try HealthCardIssuer(issuer: "https://x.example", key: key)
        let card = try issuer.issue(bundle: bundle("vectors/shc-spec/fixtures/dr-bundle.json"), notBefore: Date())
        #expect(throws: IssuingError.tooLargeForQR(jwsLength: card.jws.utf8.count, limit: 1195)) { try card.qrText() }
    }
}
