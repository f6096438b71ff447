import CBOR
import Deflate
import Foundation
import SmartHealthCards
import Testing

@testable import DigitalCovidCertificates

/// Each step of the chain, each with its own code, on certificates the tests sign.
@Suite struct DCCVerifierTests {
    @Test func issuedCertificatesVerifyWithES256AndPS256() throws {
        for kind in [TestSigner.KeyKind.p256, .rsa] {
            let signer = try TestSigner.make(kind)
            let text = try signer.issue()
            #expect(text.hasPrefix("HC1:"))
            let report = DCCVerifier(trustList: signer.trustList).verify(text, at: TestSigner.during)
            #expect(report.isValid && report.isTrusted, "\(report.errors)")
            #expect(report.algorithm == (kind == .p256 ? .es256 : .ps256))
            #expect(report.certificate?.kind == .vaccination)
            #expect(report.certificate?.payload == TestSigner.vaccination())
            #expect(report.warnings.isEmpty, "\(report.warnings)")
        }
    }

    @Test func theRecordIsWhatHealthKitShows() throws {
        let signer = try TestSigner.make()
        let text = try signer.issue()
        let record = try #require(DCCVerifier(trustList: signer.trustList).verify(text, at: TestSigner.during).record)
        #expect(record.sourceType == .euDigitalCOVIDCertificate)
        #expect(record.recordTypes == ["https://smarthealth.cards#immunization", "https://smarthealth.cards#covid19"])
        #expect(record.subject.fullName == "Erika Musterfrau")
        #expect(record.subject.dateOfBirth?.text == "1964-08-12")
        #expect(record.issuerIdentifier == "DE")
        #expect(record.itemNames == ["COVID-19 vaccination: Comirnaty, dose 2 of 2"])
        #expect(record.relevantDate == Date(timeIntervalSince1970: 1_622_246_400))  // 2021-05-29
        #expect(record.issuedDate == TestSigner.iat && record.expirationDate == TestSigner.exp)
        #expect(record.jws == text)
        #expect(record.decodedPayload?.objectValue?.string("dob") == "1964-08-12")

        let test = try #require(DCCVerifier(trustList: signer.trustList).verify(try signer.issue(TestSigner.test()), at: TestSigner.during).record)
        #expect(test.recordTypes.contains("https://smarthealth.cards#laboratory"))
        #expect(test.itemNames == ["COVID-19 NAAT (PCR): not detected"])
        #expect(test.relevantDate == Date(timeIntervalSince1970: 1_622_369_542))
    }

    @Test func everyFailedStepHasItsCode() throws {
        let signer = try TestSigner.make()
        let verifier = DCCVerifier(trustList: signer.trustList)
        let good = try signer.issue()
        func codes(_ text: String, at time: Date = TestSigner.during) -> [String] { verifier.verify(text, at: time).codes }

        #expect(codes("hc1:" + good.dropFirst(4)) == ["dcc.prefix"])
        #expect(codes(String(good.dropFirst(4))) == ["dcc.prefix"])
        #expect(codes("HC1:" + good.dropFirst(4).lowercased()) == ["dcc.base45"])
        #expect(codes(good + "\n") == ["dcc.base45"])
        #expect(codes("HC1:" + Base45.encode(Array("not zlib at all".utf8))) == ["dcc.zlib"])
        // An inflate bomb: a megabyte of zeros compresses to about a kilobyte and is refused by the cap.
        #expect(codes("HC1:" + Base45.encode(Compress.zlib([UInt8](repeating: 0, count: 1 << 20)))) == ["dcc.zlib"])
        #expect(codes("HC1:" + Base45.encode(Compress.zlib([0x82, 0x01, 0x02]))) == ["dcc.cose"])
        #expect(codes("HC1:" + Base45.encode(Compress.zlib([0x84, 0x41]))) == ["dcc.cbor"])

        // A signature over other bytes: flip one byte of the payload inside the COSE.
        var message = try #require(verifier.verify(good, at: TestSigner.during).certificate).message
        var payload = message.payload
        payload[payload.count - 3] ^= 0x01
        message = COSESign1(protectedHeader: message.protectedHeader, payload: payload, signature: message.signature)
        #expect(codes("HC1:" + Base45.encode(Compress.zlib(message.encoded))).contains("dcc.signature"))

        #expect(DCCVerifier(trustList: try TestSigner.make().trustList).verify(good, at: TestSigner.during).codes == ["dcc.key.notFound"])
        #expect(codes(good, at: TestSigner.exp.addingTimeInterval(1)) == ["dcc.expired"])
        #expect(codes(good, at: TestSigner.iat.addingTimeInterval(-1)) == ["dcc.notYetValid"])
        #expect(codes(try signer.issue(TestSigner.vaccination(dob: "born 1964"))) == ["dcc.schema"])
    }

    @Test func theSignersValidityAndKeyUsageBindIt() throws {
        let shortLived = try TestSigner.make(notAfter: Date(timeIntervalSince1970: 1_640_995_200))  // ends 2022-01-01, before exp
        #expect(DCCVerifier(trustList: shortLived.trustList).verify(try shortLived.issue(), at: TestSigner.during).codes == ["dcc.certificate.validity"])
        let late = try TestSigner.make(notBefore: Date(timeIntervalSince1970: 1_625_097_600))  // starts 2021-07-01, after iat
        #expect(DCCVerifier(trustList: late.trustList).verify(try late.issue(), at: TestSigner.during).codes == ["dcc.certificate.validity"])

        let testsOnly = try TestSigner.make(usages: ["1.3.6.1.4.1.1847.2021.1.1"])
        #expect(DCCVerifier(trustList: testsOnly.trustList).verify(try testsOnly.issue(), at: TestSigner.during).codes == ["dcc.keyUsage"])
        #expect(DCCVerifier(trustList: testsOnly.trustList).verify(try testsOnly.issue(TestSigner.test()), at: TestSigner.during).isValid)
        let vaccinations = try TestSigner.make(usages: ["1.3.6.1.4.1.1847.2021.1.2", "1.3.6.1.4.1.1847.2021.1.3"])
        #expect(DCCVerifier(trustList: vaccinations.trustList).verify(try vaccinations.issue(), at: TestSigner.during).isValid)
        let icaoOnly = try TestSigner.make(usages: ["2.23.136.1.1.14.2"])
        #expect(DCCVerifier(trustList: icaoOnly.trustList).verify(try icaoOnly.issue(), at: TestSigner.during).codes == ["dcc.keyUsage"])
    }

    @Test func headersAreReadFromEitherBucketAndTheAlgorithmMustFitTheKey() throws {
        let signer = try TestSigner.make()
        let verifier = DCCVerifier(trustList: signer.trustList)
        let decoded = try #require(verifier.verify(try signer.issue(), at: TestSigner.during).certificate)
        // Untagged, with kid in the unprotected header: still verifies (the harness accepts both).
        let kidOnly = decoded.message.protectedHeader.filter { $0.key.int64 == COSESign1.Label.algorithm }
        let unsigned = COSESign1(protectedHeader: kidOnly, unprotectedHeader: [CBORMapEntry(.unsigned(4), .bytes(signer.certificate.keyIdentifier))], payload: decoded.message.payload, signature: [])
        guard case .p256(let key) = signer.key else { return }
        let signature = Array(try key.signature(for: unsigned.signedBytes).rawRepresentation)
        let untagged = CBORWriter.encode(.array([.bytes(unsigned.protectedBytes), .map(unsigned.unprotectedHeader), .bytes(unsigned.payload), .bytes(signature)]))
        #expect(verifier.verify("HC1:" + Base45.encode(Compress.zlib(untagged)), at: TestSigner.during).isValid)

        // alg PS256 over an EC key, and an unknown alg.
        for (alg, code) in [(Int64(-37), "dcc.algorithm"), (Int64(-8), "dcc.algorithm")] {
            let header = [CBORMapEntry(.integer(1), .integer(alg)), CBORMapEntry(.integer(4), .bytes(signer.certificate.keyIdentifier))]
            let m = COSESign1(protectedHeader: header, payload: decoded.message.payload, signature: Array(repeating: 1, count: 64))
            #expect(verifier.verify("HC1:" + Base45.encode(Compress.zlib(m.encoded)), at: TestSigner.during).codes == [code])
        }
        let noKid = COSESign1(protectedHeader: [CBORMapEntry(.integer(1), .integer(-7))], payload: decoded.message.payload, signature: decoded.message.signature)
        #expect(verifier.verify("HC1:" + Base45.encode(Compress.zlib(noKid.encoded)), at: TestSigner.during).codes == ["dcc.key.notFound"])
    }

    @Test func claimsMustBeThere() throws {
        func claims(_ entries: [CBORMapEntry]) -> [String] {
            let m = COSESign1(protectedHeader: [CBORMapEntry(.integer(1), .integer(-7))], payload: CBORWriter.encode(.map(entries)), signature: [])
            return DCCVerifier(trustList: DSCTrustList()).verify("HC1:" + Base45.encode(Compress.zlib(m.encoded)), at: TestSigner.during).codes
        }
        let hcert = CBORMapEntry(.integer(-260), .map([CBORMapEntry(.unsigned(1), TestSigner.vaccination())]))
        #expect(claims([CBORMapEntry(.unsigned(6), .unsigned(1_622_505_600)), hcert]) == ["dcc.claims"])  // no exp
        #expect(claims([CBORMapEntry(.unsigned(4), .unsigned(1_654_041_600)), hcert]) == ["dcc.claims"])  // no iat
        #expect(claims([CBORMapEntry(.unsigned(6), .text("2021")), CBORMapEntry(.unsigned(4), .unsigned(1)), hcert]) == ["dcc.claims"])
        #expect(claims([CBORMapEntry(.unsigned(6), .unsigned(1)), CBORMapEntry(.unsigned(4), .unsigned(2))]) == ["dcc.claims"])  // no hcert
        let two = CBORMapEntry(.integer(-260), .map([CBORMapEntry(.unsigned(1), TestSigner.vaccination()), CBORMapEntry(.unsigned(2), .null)]))
        #expect(claims([CBORMapEntry(.unsigned(6), .unsigned(1)), CBORMapEntry(.unsigned(4), .unsigned(2)), two]) == ["dcc.claims"])
    }

    @Test func trustListsReadEveryFileForm() throws {
        let a = try TestSigner.make(), b = try TestSigner.make(.rsa)
        let der = Data(a.certificate.der)
        func pem(_ c: DocumentSignerCertificate) -> String {
            "-----BEGIN CERTIFICATE-----\n" + Data(c.der).base64EncodedString(options: .lineLength64Characters) + "\n-----END CERTIFICATE-----\n"
        }
        #expect(try DSCTrustList.certificates(in: der).map(\.keyIdentifier) == [a.certificate.keyIdentifier])
        #expect(try DSCTrustList.certificates(in: Data((pem(a.certificate) + pem(b.certificate)).utf8)).count == 2)
        let lines = [a, b].map { Data($0.certificate.der).base64EncodedString() }.joined(separator: "\n") + "\n"
        #expect(try DSCTrustList.certificates(in: Data(lines.utf8)).map(\.algorithm) == [.es256, .ps256])
        #expect(throws: DSCError.self) { try DSCTrustList.certificates(in: Data("not a certificate".utf8)) }
        #expect(throws: DSCError.self) { try DSCTrustList.certificates(in: Data()) }
        // The kid is the first 8 bytes of the SHA-256 of the DER.
        #expect(a.certificate.keyIdentifier.count == 8)
    }

    @Test func issuingRefusesAKeyThatIsNotTheCertificates() throws {
        let a = try TestSigner.make(), b = try TestSigner.make()
        #expect(throws: DCCIssuingError.self) { try DCCIssuer(key: a.key, certificate: b.certificate) }
        #expect(throws: DCCIssuingError.self) { try a.issuer.issue(payload: TestSigner.vaccination(), issuer: "DE", issuedAt: TestSigner.exp, expiration: TestSigner.iat) }
    }
}
