import Crypto
import Foundation
import Testing
@testable import SampleSignatures

/// The allocation-free readers must never change an outcome: on every mutated
/// message, verification with the fast path gives exactly the result or error
/// that the full swift-asn1 parse gives.
@Suite("Fast path equivalence")
struct FastPathEquivalenceTests {
    static let key = DeviceSigningKey()

    enum Shape: String, CaseIterable, Sendable {
        case signedAttributes, noSignedAttributes, detached, embeddedCertificate
    }

    static func message(_ shape: Shape) throws -> (CMSSignedMessage, [UInt8]?) {
        let content = Array("glucose 5.40".utf8)
        let signer = try CMSSigner(key: key)
        switch shape {
        case .signedAttributes:
            return (try signer.sign(content, options: .init(signingTime: Date(timeIntervalSince1970: 1_773_477_000))), nil)
        case .noSignedAttributes:
            return (try signer.sign(content, options: .init(includesSignedAttributes: false)), nil)
        case .detached:
            return (try signer.sign(content, options: .init(detached: true)), content)
        case .embeddedCertificate:
            let certificate = try DeviceCertificate.selfSigned(subject: "CN=M", key: key)
            return (try CMSSigner(key: key, certificate: certificate, identification: .subjectKeyIdentifier).sign(content), nil)
        }
    }

    static func outcome(_ verifier: CMSVerifier, _ bytes: [UInt8], _ detached: [UInt8]?) -> Result<CMSVerificationResult, SignatureVerificationError> {
        Result { () throws(SignatureVerificationError) in try verifier.verify(derEncoded: bytes, detachedContent: detached) }
    }

    /// Checks both paths agree on `bytes` and every single-edit mutation of it; returns how many the fast path read.
    static func assertEquivalent(_ bytes: [UInt8], detached: [UInt8]?, trusting signer: TrustedSigner) -> Int {
        let fast = CMSVerifier(trusting: signer)
        var full = CMSVerifier(trusting: signer)
        full.usesFastPath = false
        var readByFastPath = 0
        for input in [bytes] + Mutations.of(bytes) {
            if SignedDataFastPath.read(input) != nil { readByFastPath += 1 }
            let a = outcome(fast, input, detached)
            let b = outcome(full, input, detached)
            if a != b {
                Issue.record("paths disagree on \(input.hex): fast \(a), full \(b)")
                break
            }
        }
        return readByFastPath
    }

    @Test(arguments: Shape.allCases)
    func bothPathsAgreeOnEveryMutation(shape: Shape) throws {
        let (message, detached) = try Self.message(shape)
        #expect(SignedDataFastPath.read(message.derRepresentation) != nil)
        let read = Self.assertEquivalent(message.derRepresentation, detached: detached, trusting: TrustedSigner(publicKey: Self.key.publicKey))
        #expect(read > 0)
    }

    @Test func fastPathDeclinesShapesItDoesNotHandle() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=M", key: Self.key)
        let byIssuer = try CMSSigner(key: Self.key, certificate: certificate).sign([1, 2, 3])
        #expect(SignedDataFastPath.read(byIssuer.derRepresentation) == nil)
        #expect(try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(byIssuer).content == [1, 2, 3])
    }

    @Test func fastPathReadsWhatTheFullParseReads() throws {
        let (message, _) = try Self.message(.signedAttributes)
        let fast = try #require(SignedDataFastPath.read(message.derRepresentation))
        let full = try CMSSurgery.parse(message).signedData
        let info = full.signerInfos[0]
        #expect(fast.eContent.map(Array.init) == full.encapContentInfo.eContent.map(Array.init))
        #expect(info.signerIdentifier == .subjectKeyIdentifier(fast.subjectKeyIdentifier))
        #expect(Array(fast.signature) == Array(info.signature))
        #expect(fast.signedAttributes.map { Array($0.encoding) } == info.signedAttributesEncoding.map(Array.init))
        let attributes = try SignedAttributes(validating: try #require(info.signedAttributes))
        #expect(fast.signedAttributes?.messageDigest.elementsEqual(attributes.messageDigest) == true)
        #expect(fast.signedAttributes?.signingTime == attributes.signingTime)
    }

    @Test func signatureFastParseNeverAcceptsWhatTheFullParseRejects() throws {
        var inputs: [[UInt8]] = []
        for _ in 0..<4 {
            let signature = try Self.key.key.signature(for: [UInt8](repeating: 7, count: 10)).derRepresentation
            inputs.append(Array(signature))
            inputs.append(contentsOf: Mutations.of(Array(signature)))
        }
        var fastlyRead = 0
        for input in inputs {
            guard let fast = P256SignatureCheck.fastParse(input) else { continue }
            fastlyRead += 1
            let full = try? P256SignatureCheck.fullParse(input)
            #expect(full.map { Array($0.r) } == Array(fast.r), "r differs for \(input.hex)")
            #expect(full.map { Array($0.s) } == Array(fast.s), "s differs for \(input.hex)")
        }
        #expect(fastlyRead >= 4)
    }
}
