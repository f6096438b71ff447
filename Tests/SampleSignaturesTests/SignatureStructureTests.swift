import Foundation
import Testing
@testable import SampleSignatures

/// `SignedSample.structure(of:)`: what a store can check about a signature without the key.
@Suite("Signature structure without a key")
struct SignatureStructureTests {
    let key = DeviceSigningKey()

    @Test func describesAWellFormedSignature() throws {
        let attached = try SignedSample.sign(TestSamples.glucose, signer: CMSSigner(key: key))
        let structure = try SignedSample.structure(of: attached)
        #expect(structure.signers == [.subjectKeyIdentifier(key.publicKey.subjectKeyIdentifier)])
        #expect(!structure.isDetached)
        #expect(structure.certificateCount == 0)

        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Meter", key: key)
        let detached = try SignedSample.sign(
            TestSamples.glucose, signer: CMSSigner(key: key, certificate: certificate), options: .init(detached: true))
        let detachedStructure = try SignedSample.structure(of: detached)
        #expect(detachedStructure.isDetached)
        #expect(detachedStructure.certificateCount == 1)
    }

    @Test func reportsGarbageTruncationAndBERAsMalformedSignatures() throws {
        #expect(throws: SampleSignatureFailure.signature(.invalidBase64)) { try SignedSample.structure(of: "not base64!") }
        let der = try CMSSigner(key: key).sign(SignedSampleContent(TestSamples.glucose).derRepresentation).derRepresentation
        let truncated = Data(der.dropLast(10)).base64EncodedString()
        let error = #expect(throws: SampleSignatureFailure.self) { try SignedSample.structure(of: truncated) }
        guard case .signature(.malformedDER(let fault)) = error else {
            Issue.record("expected malformed DER, got \(String(describing: error))")
            return
        }
        #expect(fault.kind == .truncated)
        var indefinite = der
        indefinite[1] = 0x80
        indefinite += [0, 0]
        let berError = #expect(throws: SampleSignatureFailure.self) {
            try SignedSample.structure(of: Data(indefinite).base64EncodedString())
        }
        guard case .signature(.malformedDER(let berFault)) = berError else {
            Issue.record("expected malformed DER, got \(String(describing: berError))")
            return
        }
        #expect(berFault.kind == .indefiniteLength)
    }

    @Test func reportsAttachedContentThatIsNotASample() throws {
        let message = try CMSSigner(key: key).sign(Array("just text".utf8))
        let error = #expect(throws: SampleSignatureFailure.self) { try SignedSample.structure(of: message.base64EncodedString) }
        guard case .signedContent(.malformedDER) = error else {
            Issue.record("expected signed content error, got \(String(describing: error))")
            return
        }
    }

    @Test func rejectsMessagesOverTheSizeLimit() throws {
        let signature = try SignedSample.sign(TestSamples.glucose, signer: CMSSigner(key: key))
        #expect(throws: SampleSignatureFailure.self) { try SignedSample.structure(of: signature, maximumMessageSize: 100) }
    }
}
