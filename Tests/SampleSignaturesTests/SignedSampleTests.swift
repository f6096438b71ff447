import Foundation
import Testing
@testable import SampleSignatures

@Suite("Signed samples")
struct SignedSampleTests {
    let key = DeviceSigningKey()
    var trusted: TrustedSigner { TrustedSigner(publicKey: key.publicKey) }

    func signature(_ values: SampleValues = TestSamples.glucose, options: CMSSigningOptions = .init()) throws -> String {
        try SignedSample.sign(values, signer: CMSSigner(key: key), options: options)
    }

    @Test func acceptsUntouchedSamples() throws {
        #expect(SignedSample.verify(TestSamples.glucose, signature: try signature(), trusting: trusted) == .valid)
        let withoutAttributes = try signature(options: .init(includesSignedAttributes: false))
        #expect(SignedSample.verify(TestSamples.glucose, signature: withoutAttributes, trusting: trusted) == .valid)
    }

    @Test func acceptsSamplesSignedWithACertificate() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        let base64 = try SignedSample.sign(TestSamples.glucose, signer: CMSSigner(key: key, certificate: certificate))
        #expect(SignedSample.verify(TestSamples.glucose, signature: base64, trusting: TrustedSigner(certificate: certificate)) == .valid)
    }

    @Test func reportsAChangedValuePrecisionAsTampering() throws {
        var stored = TestSamples.glucose
        stored.value = "5.4"
        #expect(SignedSample.verify(stored, signature: try signature(), trusting: trusted) == .tampered(fields: ["value"]))
    }

    @Test func namesEveryTamperedField() throws {
        var stored = TestSamples.glucose
        stored.sampleType = .bodyMass
        stored.unit = "mg/dL"
        stored.startDate = stored.startDate.addingTimeInterval(-60)
        stored.endDate = stored.endDate.addingTimeInterval(60)
        stored.deviceIdentifier = "OTHER"
        stored.extras["HKWasUserEntered"] = "1"
        stored.extras["added"] = "x"
        stored.extras.removeValue(forKey: "HKMetadataKeyBloodGlucoseMealTime")
        let outcome = SignedSample.verify(stored, signature: try signature(), trusting: trusted)
        #expect(
            outcome == .tampered(fields: [
                "sampleType", "unit", "startDate", "endDate", "deviceIdentifier",
                "extras[HKMetadataKeyBloodGlucoseMealTime]", "extras[HKWasUserEntered]", "extras[added]",
            ])
        )
    }

    @Test func comparesTextByteForByte() throws {
        var values = TestSamples.glucose
        values.deviceIdentifier = "Caf\u{E9}-1"
        let base64 = try signature(values)
        var stored = values
        stored.deviceIdentifier = "Cafe\u{301}-1"
        #expect(stored.deviceIdentifier == values.deviceIdentifier)  // canonically equivalent in Swift
        #expect(SignedSample.verify(stored, signature: base64, trusting: trusted) == .tampered(fields: ["deviceIdentifier"]))
        #expect(SignedSample.verify(values, signature: base64, trusting: trusted) == .valid)
    }

    @Test func comparesDatesAtMillisecondPrecision() throws {
        var stored = TestSamples.glucose
        stored.startDate = stored.startDate.addingTimeInterval(0.000_2)
        stored.endDate = stored.startDate
        #expect(SignedSample.verify(stored, signature: try signature(), trusting: trusted) == .valid)
        stored.endDate = stored.endDate.addingTimeInterval(0.002)
        #expect(SignedSample.verify(stored, signature: try signature(), trusting: trusted) == .tampered(fields: ["endDate"]))
    }

    @Test func reportsAnUntrustedSignerAsInvalid() throws {
        let other = TrustedSigner(publicKey: DeviceSigningKey().publicKey)
        #expect(SignedSample.verify(TestSamples.glucose, signature: try signature(), trusting: other) == .invalid(.signature(.signerNotFound)))
    }

    @Test func reportsGarbageAsInvalid() {
        #expect(SignedSample.verify(TestSamples.glucose, signature: "%%%", trusting: trusted) == .invalid(.signature(.invalidBase64)))
        let outcome = SignedSample.verify(TestSamples.glucose, signature: "MAA=", trusting: trusted)
        #expect(outcome == .invalid(.signature(.malformedDER(DERFault(kind: .invalidValue, structure: .contentInfo, offset: 0)))))
    }

    @Test func reportsSignedContentThatIsNotASample() throws {
        let base64 = try CMSSigner(key: key).sign(Array("not a sample".utf8)).base64EncodedString
        let outcome = SignedSample.verify(TestSamples.glucose, signature: base64, trusting: trusted)
        guard case .invalid(.signedContent(.malformedDER)) = outcome else {
            Issue.record("expected signed content error, got \(outcome)")
            return
        }
    }

    @Test func checksDetachedSampleSignaturesAgainstTheStoredValues() throws {
        let base64 = try signature(options: .init(detached: true))
        #expect(SignedSample.verify(TestSamples.glucose, signature: base64, trusting: trusted) == .valid)
        var stored = TestSamples.glucose
        stored.value = "5.4"
        #expect(SignedSample.verify(stored, signature: base64, trusting: trusted) == .invalid(.signature(.digestMismatch)))
        stored.value = "five"
        #expect(SignedSample.verify(stored, signature: base64, trusting: trusted) == .invalid(.storedValues(.invalidDecimal(.unexpectedCharacter(offset: 0)))))
    }

    @Test func returnsTheSignedContentAndSigner() throws {
        let (content, result) = try SignedSample.signedContent(
            of: TestSamples.glucose, signature: try signature(options: .init(signingTime: TestSamples.start)),
            verifier: CMSVerifier(trusting: trusted)
        )
        #expect(content.value.text == "5.40")
        #expect(result.signer == .subjectKeyIdentifier(key.publicKey.subjectKeyIdentifier))
        #expect(result.signingTime == Date(timeIntervalSince1970: 1_773_477_000))
    }

    @Test func refusesToSignInvalidValues() {
        var values = TestSamples.glucose
        values.value = "5.4 mmol"
        #expect(throws: SigningError.invalidSample(.invalidDecimal(.unexpectedCharacter(offset: 3)))) {
            try SignedSample.sign(values, signer: CMSSigner(key: key))
        }
    }

    @Test func staysNearTheOneKilobyteBudget() throws {
        let base64 = try signature(options: .init(signingTime: TestSamples.start))
        #expect(base64.utf8.count < 1024)
    }
}
