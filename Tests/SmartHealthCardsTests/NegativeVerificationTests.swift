import ByteEncodings
import Crypto
import Deflate
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords
import X509

/// One test per verifier rule of the spec digest, each built from the spec examples and
/// asserting the specific code.
@Suite struct NegativeVerificationTests {
    let example00: String

    init() throws {
        example00 = try Spec.text("vectors/shc-spec/example-00-d-jws.txt")
    }

    func codes(_ jws: String, verifier: SmartHealthCardVerifier = Spec.verifier(), at time: Date = Spec.afterSigning) async -> [VerificationCode] {
        await verifier.verify(jws: jws, at: time).errors.map(\.code)
    }

    func forged(_ change: (inout CardForge) throws -> Void) throws -> String {
        var f = try CardForge()
        try change(&f)
        return try f.jws()
    }

    // MARK: JWS form

    @Test func rejectsPadding() async {
        let parts = example00.split(separator: ".")
        #expect(await codes("\(parts[0])=.\(parts[1]).\(parts[2])") == [.jwsMalformed])
    }

    @Test func rejectsWhitespaceInside() async {
        var s = example00
        s.insert(" ", at: s.index(s.startIndex, offsetBy: 30))
        #expect(await codes(s) == [.jwsMalformed])
    }

    @Test func rejectsAByteOrderMark() async {
        #expect(await codes("\u{FEFF}" + example00) == [.jwsMalformed])
    }

    @Test func rejectsATrailingNewline() async {
        #expect(await codes(example00 + "\n") == [.jwsTrailingCharacters])
    }

    @Test func rejectsTrailingJunk() async {
        #expect(await codes(example00 + " extra") == [.jwsTrailingCharacters])
    }

    @Test func rejectsTwoOrFourParts() async {
        let parts = example00.split(separator: ".")
        #expect(await codes("\(parts[0]).\(parts[1])") == [.jwsMalformed])
        #expect(await codes(example00 + ".AAAA") == [.jwsMalformed])
    }

    @Test func rejectsCharactersOutsideBase64URL() async {
        #expect(await codes(example00.replacingOccurrences(of: "-", with: "+")) == [.jwsMalformed])
    }

    // MARK: Header

    @Test func rejectsAnotherAlgorithm() async throws {
        let jws = try forged { $0.header["alg"] = .string("HS256") }
        #expect(await codes(jws) == [.jwsHeaderAlg])
        let missing = try forged { $0.header["alg"] = nil }
        #expect(await codes(missing) == [.jwsHeaderAlg])
    }

    @Test func rejectsAMissingZip() async throws {
        let jws = try forged {
            $0.header["zip"] = nil
            $0.compression = .none
        }
        #expect(await codes(jws) == [.jwsHeaderZip, .payloadInflate])
    }

    @Test func rejectsAMissingKid() async throws {
        #expect(await codes(try forged { $0.header["kid"] = nil }) == [.jwsHeaderKid])
    }

    // MARK: Signature

    @Test func rejectsADERSignatureWithItsOwnReason() async throws {
        let report = await Spec.verifier().verify(jws: try forged { $0.signatureForm = .der }, at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.signatureFormat])
        #expect(report.errors[0].message.contains("DER"))
    }

    @Test func rejectsAShortSignature() async throws {
        #expect(await codes(try forged { $0.signatureForm = .truncated }) == [.signatureFormat])
    }

    @Test func rejectsAFlippedSignature() async {
        let parts = example00.split(separator: ".").map(String.init)
        var sig = try! Base64URL.decode(parts[2])
        sig[10] ^= 1
        #expect(await codes("\(parts[0]).\(parts[1]).\(Base64URL.encode(sig))") == [.signatureInvalid])
    }

    @Test func rejectsAPayloadChangedAfterSigning() async throws {
        let parts = example00.split(separator: ".").map(String.init)
        var payload = try Spec.payload(0)
        payload["iss"] = .string(Spec.issuer)
        payload["nbf"] = .number(JSONNumber(1_687_450_765))
        let swapped = "\(parts[0]).\(Base64URL.encode(Compress.raw(JSONWriter.minified(.object(payload)), level: .best))).\(parts[2])"
        #expect(await codes(swapped) == [.signatureInvalid])
    }

    // MARK: Payload

    @Test func rejectsZlibAndGzipWrappedPayloads() async throws {
        let zlib = await Spec.verifier().verify(jws: try forged { $0.compression = .zlib }, at: Spec.afterSigning)
        #expect(zlib.errors.map(\.code) == [.payloadInflate])
        #expect(zlib.errors[0].message.contains("zlib"))
        let gzip = await Spec.verifier().verify(jws: try forged { $0.compression = .gzip }, at: Spec.afterSigning)
        #expect(gzip.errors.map(\.code) == [.payloadInflate])
        #expect(gzip.errors[0].message.contains("gzip"))
    }

    @Test func stopsAnInflateBombAtTheCap() async throws {
        let bomb = try forged { $0.payloadBytes = [UInt8](repeating: 0x20, count: 20 << 20) }
        #expect(bomb.utf8.count < 100_000)
        var options = SmartHealthCardVerifier.Options()
        options.inflateLimit = 1 << 20
        let report = await Spec.verifier(options: options).verify(jws: bomb, at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.payloadInflate])
        #expect(report.errors[0].message.contains("limit"))
    }

    @Test func rejectsPayloadsThatAreNotJSON() async throws {
        #expect(await codes(try forged { $0.payloadBytes = Array("not json".utf8) }) == [.payloadJSON])
        #expect(await codes(try forged { $0.payloadBytes = [0xEF, 0xBB, 0xBF] + JSONWriter.minified(.object($0.payload)) }) == [.payloadJSON])
    }

    @Test func rejectsMissingOrMistypedClaims() async throws {
        #expect(await codes(try forged { $0.payload["iss"] = nil }) == [.payloadClaims])
        #expect(await codes(try forged { $0.payload["iss"] = .number(JSONNumber(1)) }) == [.payloadClaims])
        #expect(await codes(try forged { $0.payload["nbf"] = nil }) == [.payloadClaims])
        #expect(await codes(try forged { $0.payload["nbf"] = .string("1687450764") }) == [.payloadClaims])
        #expect(await codes(try forged { $0.payload["vc"] = nil }) == [.payloadClaims])
    }

    @Test func requiresTheHealthCardType() async throws {
        #expect(await codes(try forged { $0.setVC("type", .array([.string("https://smarthealth.cards#immunization")])) }) == [.payloadVCType])
    }

    @Test func ignoresUnknownTypes() async throws {
        let jws = try forged {
            $0.setVC("type", .array([.string("https://smarthealth.cards#health-card"), .string("https://example.org#whatever")]))
        }
        #expect(await codes(jws).isEmpty)
    }

    @Test func acceptsFractionalNumericDates() async throws {
        #expect(await codes(try forged { $0.payload["nbf"] = .number(JSONNumber("1687450764.999")!) }).isEmpty)
    }

    // MARK: Time

    @Test func rejectsAFutureNotBefore() async throws {
        #expect(await codes(try forged { $0.payload["nbf"] = .number(JSONNumber(1_900_000_000)) }) == [.timeNotYetValid])
        // Within the clock skew is fine.
        let soon = Int(Spec.afterSigning.timeIntervalSince1970) + 60
        #expect(await codes(try forged { $0.payload["nbf"] = .number(JSONNumber(soon)) }).isEmpty)
    }

    @Test func reportsMillisecondTimes() async throws {
        #expect(await codes(try forged { $0.payload["nbf"] = .number(JSONNumber("1687450764656")!) }) == [.timeUnits])
        #expect(await codes(try forged { $0.payload["exp"] = .number(JSONNumber("1787450764656")!) }) == [.timeUnits])
    }

    @Test func rejectsAnExpiredCard() async throws {
        #expect(await codes(try forged { $0.payload["exp"] = .number(JSONNumber(1_687_500_000)) }, at: Date(timeIntervalSince1970: 1_700_000_000)) == [.timeExpired])
    }

    // MARK: Issuer

    @Test func requiresHTTPSAndNoTrailingSlash() async throws {
        #expect(await codes(try forged { $0.payload["iss"] = .string("http://spec.smarthealth.cards/examples/issuer") }) == [.issuerURL])
        #expect(await codes(try forged { $0.payload["iss"] = .string(Spec.issuer + "/") }) == [.issuerURL])
    }

    @Test func reportsUntrustedIssuersApartFromInvalidCards() async throws {
        let verifier = Spec.verifier(trust: TrustPolicy(allowList: ["https://other.example/issuer"]))
        let report = await verifier.verify(jws: example00, at: Spec.afterSigning)
        #expect(report.isValid)
        #expect(!report.isTrusted)
        #expect(report.warnings.map(\.code).contains(.issuerUntrusted))
        let trusted = await Spec.verifier(trust: TrustPolicy(allowList: [Spec.issuer])).verify(jws: example00, at: Spec.afterSigning)
        #expect(trusted.isTrusted && trusted.isValid)
    }

    @Test func trustsIssuersListedInAVCIDirectory() async throws {
        let directory = #"{"participating_issuers":[{"iss":"\#(Spec.issuer)","name":"SMART Health Card Example Issuer"}]}"#
        let policy = TrustPolicy(directory: try IssuerDirectory(data: Data(directory.utf8)))
        let report = await Spec.verifier(trust: policy).verify(jws: example00, at: Spec.afterSigning)
        #expect(report.trust == .trusted(name: "SMART Health Card Example Issuer"))
    }

    @Test func reportsUnavailableKeys() async throws {
        let verifier = SmartHealthCardVerifier(keys: StaticKeySource())
        #expect(await codes(example00, verifier: verifier) == [.issuerKeysUnavailable])
    }

    // MARK: Keys

    func verifier(keys: [JSONObject], crl: RevocationList? = nil) -> SmartHealthCardVerifier {
        let set = JWKSet(keys: keys.map(JSONWebKey.init(json:)))
        let lists = crl.map { [Spec.issuer: [$0.keyID: $0]] } ?? [:]
        return SmartHealthCardVerifier(keys: StaticKeySource(keySets: [Spec.issuer: set], revocationLists: lists))
    }

    func specKey(_ kid: String = Spec.kidCRL) throws -> JSONObject { try Spec.jwks.keys(withID: kid)[0].json }

    @Test func rejectsAKidMissingFromTheIssuersSet() async throws {
        #expect(await codes(example00, verifier: verifier(keys: [try specKey(Spec.kidX5C)])) == [.keyNotFound])
    }

    @Test func neverTakesAKeyFromAnotherIssuer() async throws {
        let other = JWKSet(keys: [JSONWebKey(json: try specKey())])
        let source = StaticKeySource(keySets: [Spec.issuer: JWKSet(keys: []), "https://other.example/issuer": other])
        #expect(await codes(example00, verifier: SmartHealthCardVerifier(keys: source)) == [.keyNotFound])
    }

    @Test func rejectsPublishedPrivateKeys() async throws {
        let privateKey = try Spec.privateJWKS.keys(withID: Spec.kidCRL)[0].json
        let report = await verifier(keys: [privateKey]).verify(jws: example00, at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.keyInvalid])
        #expect(report.errors[0].message.contains("private"))
    }

    @Test func rejectsKeysForAnotherUseOrAlgorithm() async throws {
        var enc = try specKey()
        enc["use"] = .string("enc")
        #expect(await codes(example00, verifier: verifier(keys: [enc])) == [.keyInvalid])
        var noAlg = try specKey()
        noAlg["alg"] = nil
        #expect(await codes(example00, verifier: verifier(keys: [noAlg])) == [.keyInvalid])
    }

    @Test func rejectsAKidThatIsNotTheThumbprint() async throws {
        var k = try specKey()
        k["kid"] = .string("not-the-thumbprint")
        let jws = try forged { $0.header["kid"] = .string("not-the-thumbprint") }
        let report = await verifier(keys: [k]).verify(jws: jws, at: Spec.afterSigning)
        #expect(report.errors.map(\.code) == [.keyInvalid])
        #expect(report.errors[0].message.contains("thumbprint"))
    }

    @Test func computesRFC7638Thumbprints() throws {
        for key in try Spec.jwks.keys { #expect(try key.thumbprint() == key.keyID) }
        let vectors = try JSONReader().read(FixtureFiles.data("vectors/jose/rfc7638_thumbprints.json"))
        var checked = 0
        for v in vectors["cases"]?.arrayValue ?? [] {
            guard let jwk = v["jwk"]?.objectValue, jwk.string("kty") == "EC", let expected = v["sha256_thumbprint_b64url"]?.stringValue else { continue }
            #expect(try JSONWebKey(json: jwk).thumbprint() == expected)
            checked += 1
        }
        #expect(checked >= 1)
    }

    // MARK: Revocation

    @Test func revokesAListedRidWithoutTimestamp() async throws {
        let crl = RevocationList(keyID: Spec.kidCRL, counter: 1, entries: [.init(rid: "MKyCxh7p6uQ", timestamp: nil)])
        #expect(await codes(example00, verifier: verifier(keys: [try specKey()], crl: crl)) == [.revoked])
    }

    @Test func revokesOnlyCardsIssuedBeforeATimestamp() async throws {
        let before = RevocationList(keyID: Spec.kidCRL, counter: 1, entries: [.init(rid: "MKyCxh7p6uQ", timestamp: 1_687_450_764)])
        #expect(await codes(example00, verifier: verifier(keys: [try specKey()], crl: before)).isEmpty)
        let after = RevocationList(keyID: Spec.kidCRL, counter: 1, entries: [.init(rid: "MKyCxh7p6uQ", timestamp: 1_687_450_765)])
        #expect(await codes(example00, verifier: verifier(keys: [try specKey()], crl: after)) == [.revoked])
    }

    @Test func rejectsAStaleRevocationList() async throws {
        let crl = RevocationList(keyID: Spec.kidCRL, counter: 0, entries: [])
        #expect(await codes(example00, verifier: verifier(keys: [try specKey()], crl: crl)) == [.revocationList])
    }

    @Test func rejectsAMissingRevocationList() async throws {
        #expect(await codes(example00, verifier: verifier(keys: [try specKey()])) == [.revocationUnavailable])
    }

    // MARK: x5c

    func x5cCard(sanURI: String, leafKey: P256.Signing.PublicKey? = nil, brokenChain: Bool = false) async throws -> [VerificationCode] {
        let signing = P256.Signing.PrivateKey()
        let caKey = P256.Signing.PrivateKey()
        let ca = try TestPKI.ca("Test CA", key: caKey)
        let otherCA = try TestPKI.ca("Other CA", key: P256.Signing.PrivateKey())
        let leaf = try TestPKI.leaf(uri: sanURI, key: leafKey ?? signing.publicKey, issuer: ca, issuerKey: caKey)
        let raw = Array(signing.publicKey.rawRepresentation)
        var jwk = JSONObject([
            "kty": .string("EC"), "crv": .string("P-256"),
            "x": .string(Base64URL.encode(raw[0..<32])), "y": .string(Base64URL.encode(raw[32..<64])),
        ])
        let kid = try JSONWebKey(json: jwk).thumbprint()
        jwk["kid"] = .string(kid)
        jwk["use"] = .string("sig")
        jwk["alg"] = .string("ES256")
        jwk["x5c"] = .array([.string(try TestPKI.base64(leaf)), .string(try TestPKI.base64(brokenChain ? otherCA : ca))])
        var forge = try CardForge()
        forge.key = signing
        forge.header["kid"] = .string(kid)
        let jws = try forge.jws()
        let verifier = SmartHealthCardVerifier(
            keys: StaticKeySource(keySets: [Spec.issuer: JWKSet(keys: [JSONWebKey(json: jwk)])]), x5c: X5CValidator(roots: [ca]))
        return await verifier.verify(jws: jws, at: Spec.afterSigning).errors.map(\.code)
    }

    @Test func acceptsAGoodChain() async throws {
        #expect(try await x5cCard(sanURI: Spec.issuer).isEmpty)
    }

    @Test func rejectsAChainBoundToAnotherURI() async throws {
        #expect(try await x5cCard(sanURI: "https://evil.example/issuer") == [.keyX5C])
    }

    @Test func rejectsALeafWithAnotherKey() async throws {
        #expect(try await x5cCard(sanURI: Spec.issuer, leafKey: P256.Signing.PrivateKey().publicKey) == [.keyX5C])
    }

    @Test func rejectsABrokenChain() async throws {
        #expect(try await x5cCard(sanURI: Spec.issuer, brokenChain: true).contains(.keyX5C))
    }

    // MARK: QR text

    @Test func rejectsBadNumericQRText() {
        #expect(throws: VerificationIssueError(.qrNumeric, "an odd number of digits (3)")) { try HealthCardQRText.decode("shc:/567") }
        #expect { try HealthCardQRText.decode("shc:/5678") } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrNumeric }
        #expect { try HealthCardQRText.decode("shc:/5676\n") } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrNumeric }
        #expect { try HealthCardQRText.decode("https://x/5676") } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrHeader }
        #expect { try HealthCardQRText.decode("SHC:/5676") } throws: { ($0 as? VerificationIssueError)?.issue.code == .qrHeader }
    }

    @Test func rejectsMissingDuplicateAndOutOfRangeChunks() throws {
        let c = try (0...2).map { try Spec.text("vectors/shc-spec/example-02-f-qr-code-numeric-value-\($0).txt") }
        func code(_ texts: [String]) -> VerificationCode? {
            do { _ = try HealthCardQRText.assemble(texts); return nil } catch { return error.issue.code }
        }
        #expect(code([c[0], c[2]]) == .qrChunks)
        #expect(code([c[0], c[1], c[1], c[2]]) == .qrChunks)
        #expect(code([c[0], c[1], c[2].replacingOccurrences(of: "shc:/3/3/", with: "shc:/4/3/")]) == .qrChunks)
        #expect(code([c[0], c[1], c[2].replacingOccurrences(of: "shc:/3/3/", with: "shc:/3/4/")]) == .qrChunks)
    }

    // MARK: FHIR

    @Test func rejectsDanglingReferences() async throws {
        let jws = try forged { f in
            var bundle = f.payload.object("vc")!.object("credentialSubject")!.object("fhirBundle")!
            let text = JSONWriter.minifiedString(.object(bundle)).replacingOccurrences(of: #""reference":"resource:0""#, with: #""reference":"resource:9""#)
            bundle = try JSONReader().read(text).objectValue!
            var subject = f.payload.object("vc")!.object("credentialSubject")!
            subject["fhirBundle"] = .object(bundle)
            f.setVC("credentialSubject", .object(subject))
        }
        #expect(await codes(jws) == [.fhirReferences])
    }

    @Test func rejectsABundleThatIsNotABundle() async throws {
        let jws = try forged { f in
            var subject = f.payload.object("vc")!.object("credentialSubject")!
            subject["fhirBundle"] = .object(JSONObject(["resourceType": .string("Patient")]))
            f.setVC("credentialSubject", .object(subject))
        }
        #expect(await codes(jws) == [.fhirBundle])
    }

    @Test func warnsAboutBundlesThatAreNotMinimized() async throws {
        let report = await Spec.verifier().verify(jws: try Spec.text("vectors/shc-spec/example-02-d-jws.txt"), at: Spec.afterSigning)
        #expect(report.isValid)
        #expect(report.warnings.contains { $0.code == .fhirNotMinimized })
    }
}
