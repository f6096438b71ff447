import Foundation
import Testing
@testable import SampleSignatures
import TestSupport

/// Interoperability with the real `openssl` CLI (run as a subprocess).
///
/// Not skipped when openssl is missing: the round trips are an acceptance criterion, so a
/// machine without openssl fails here (`.ci/run` installs it).
@Suite("OpenSSL interop")
struct OpenSSLInteropTests {
    enum Identification: String, CaseIterable, Sendable {
        case keyIdentifierWithoutCertificate
        case keyIdentifierWithCertificate
        case issuerAndSerialNumber
    }

    static let content: [UInt8] = Array("blood glucose 5.40 mmol/L\n\u{0}\u{1}binary\r\n".utf8)

    // MARK: - Ours, verified by OpenSSL

    @Test(
        "openssl cms -verify accepts our messages",
        arguments: Identification.allCases, [(true, false), (false, false), (true, true), (false, true)]
    )
    func opensslVerifiesOurMessages(identification: Identification, variant: (signedAttributes: Bool, detached: Bool)) throws {
        let openssl = try OpenSSLRunner()
        let key = DeviceSigningKey()
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        try openssl.write("cert.pem", certificate.pemRepresentation)
        try openssl.write("content.bin", Self.content)

        let signer: CMSSigner
        switch identification {
        case .keyIdentifierWithoutCertificate: signer = try CMSSigner(key: key)
        case .keyIdentifierWithCertificate: signer = try CMSSigner(key: key, certificate: certificate, identification: .subjectKeyIdentifier)
        case .issuerAndSerialNumber: signer = try CMSSigner(key: key, certificate: certificate)
        }
        let message = try signer.sign(
            Self.content,
            options: .init(detached: variant.detached, includesSignedAttributes: variant.signedAttributes, signingTime: Date())
        )
        try openssl.write("sig.der", message.derRepresentation)

        var arguments = ["cms", "-verify", "-inform", "DER", "-binary", "-in", "sig.der", "-certfile", "cert.pem", "-CAfile", "cert.pem", "-out", "recovered.bin"]
        if variant.detached { arguments += ["-content", "content.bin"] }
        let output = try openssl.runChecked(arguments)
        #expect(output.stderr.contains("Verification successful"))
        #expect(try openssl.read("recovered.bin") == Self.content)

        // -noverify skips the certificate chain but still checks the signature.
        arguments = ["cms", "-verify", "-inform", "DER", "-binary", "-in", "sig.der", "-noverify", "-certfile", "cert.pem", "-out", "recovered2.bin"]
        if variant.detached { arguments += ["-content", "content.bin"] }
        try openssl.runChecked(arguments)
        #expect(try openssl.read("recovered2.bin") == Self.content)
    }

    @Test func opensslRejectsOurMessageWhenTheContentIsTampered() throws {
        let openssl = try OpenSSLRunner()
        let key = DeviceSigningKey()
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        try openssl.write("cert.pem", certificate.pemRepresentation)
        try openssl.write("other.bin", Array("blood glucose 9.90 mmol/L".utf8))
        try openssl.write("sig.der", try CMSSigner(key: key).sign(Self.content, options: .init(detached: true)).derRepresentation)
        let output = try openssl.run(["cms", "-verify", "-inform", "DER", "-binary", "-in", "sig.der", "-noverify", "-certfile", "cert.pem", "-content", "other.bin", "-out", "x.bin"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("digest failure") || output.stderr.contains("Verification failure"))
    }

    @Test func opensslReadsOurPEMMessages() throws {
        let openssl = try OpenSSLRunner()
        let key = DeviceSigningKey()
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        try openssl.write("cert.pem", certificate.pemRepresentation)
        try openssl.write("sig.pem", try CMSSigner(key: key, certificate: certificate).sign(Self.content).pemRepresentation)
        try openssl.runChecked(["cms", "-verify", "-inform", "PEM", "-binary", "-in", "sig.pem", "-CAfile", "cert.pem", "-out", "recovered.bin"])
        #expect(try openssl.read("recovered.bin") == Self.content)
    }

    @Test func opensslVerifiesOurSelfSignedCertificates() throws {
        let openssl = try OpenSSLRunner()
        let key = DeviceSigningKey()
        for isCA in [true, false] {
            let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co, O=Example", key: key, isCertificateAuthority: isCA)
            try openssl.write("cert.pem", certificate.pemRepresentation)
            let verified = try openssl.runChecked(["verify", "-CAfile", "cert.pem", "cert.pem"])
            #expect(verified.stdout.contains("cert.pem: OK"))
            let ski = try openssl.runChecked(["x509", "-in", "cert.pem", "-noout", "-ext", "subjectKeyIdentifier"])
            let expected = key.publicKey.subjectKeyIdentifier.map { String(format: "%02X", $0) }.joined(separator: ":")
            #expect(ski.stdout.contains(expected))
            let subject = try openssl.runChecked(["x509", "-in", "cert.pem", "-noout", "-subject"])
            #expect(subject.stdout.contains("CN = Glucose Meter Co"))
        }
    }

    // MARK: - OpenSSL's, verified by us

    struct OpenSSLSigning: Sendable, CustomStringConvertible {
        var noattr: Bool
        var keyid: Bool
        var detached: Bool
        var description: String { "noattr=\(noattr) keyid=\(keyid) detached=\(detached)" }

        static let all: [OpenSSLSigning] = [false, true].flatMap { noattr in
            [false, true].flatMap { keyid in [false, true].map { OpenSSLSigning(noattr: noattr, keyid: keyid, detached: $0) } }
        }
    }

    /// An openssl-generated P-256 key and self-signed certificate.
    func opensslCredentials(_ openssl: OpenSSLRunner) throws -> (DeviceSigningKey, DeviceCertificate) {
        try openssl.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"])
        try openssl.runChecked(["req", "-new", "-x509", "-key", "key.pem", "-subj", "/O=Example/CN=OpenSSL Meter", "-days", "30", "-out", "cert.pem"])
        let key = try DeviceSigningKey(pemRepresentation: try openssl.readText("key.pem"))
        let certificate = try DeviceCertificate(pemRepresentation: try openssl.readText("cert.pem"))
        return (key, certificate)
    }

    @Test("we verify openssl cms -sign output", arguments: OpenSSLSigning.all)
    func weVerifyOpenSSLMessages(signing: OpenSSLSigning) throws {
        let openssl = try OpenSSLRunner()
        let (key, certificate) = try opensslCredentials(openssl)
        try openssl.write("content.bin", Self.content)
        var arguments = ["cms", "-sign", "-binary", "-md", "sha256", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.der"]
        if !signing.detached { arguments.append("-nodetach") }
        if signing.noattr { arguments.append("-noattr") }
        if signing.keyid { arguments.append("-keyid") }
        try openssl.runChecked(arguments)
        let message = CMSSignedMessage(derRepresentation: try openssl.read("sig.der"))
        let detached = signing.detached ? Self.content : nil

        let byCertificate = try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(message, detachedContent: detached)
        #expect(byCertificate.content == Self.content)
        #expect(byCertificate.hasSignedAttributes == !signing.noattr)
        #expect(byCertificate.isDetached == signing.detached)
        #expect((byCertificate.signingTime != nil) == !signing.noattr)
        if signing.keyid {
            #expect(byCertificate.signer == .subjectKeyIdentifier(key.publicKey.subjectKeyIdentifier))
        } else {
            #expect(byCertificate.signer == .issuerAndSerialNumber(
                issuer: certificate.certificate.issuer,
                serialNumber: Array(certificate.certificate.serialNumber.bytes.drop(while: { $0 == 0 }))
            ))
        }

        // OpenSSL's signed attributes, as received, are exactly their DER re-encoding.
        if !signing.noattr {
            let info = try CMSSurgery.parse(message).signedData.signerInfos[0]
            let received = try #require(info.signedAttributesEncoding)
            let reencoded = try SignerInfo.signedAttributesSigningInput(try #require(info.signedAttributes))
            #expect(Array(received.dropFirst()) == Array(reencoded.dropFirst()))
        }

        // The bare public key works too: by SKI for -keyid, through the embedded certificate otherwise.
        let byKey = try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message, detachedContent: detached)
        #expect(byKey.content == Self.content)

        // And a tampered copy of the content is caught.
        var tampered = Self.content
        tampered[0] ^= 0x20
        if signing.detached {
            let error = #expect(throws: SignatureVerificationError.self) {
                try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(message, detachedContent: tampered)
            }
            #expect(error == (signing.noattr ? .signatureInvalid : .digestMismatch))
        }
    }

    @Test func weVerifyOpenSSLKeyIdentifierMessagesAgainstTheBarePublicKeyFromPEM() throws {
        let openssl = try OpenSSLRunner()
        _ = try opensslCredentials(openssl)
        try openssl.write("content.bin", Self.content)
        try openssl.runChecked(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"])
        try openssl.runChecked(["cms", "-sign", "-nodetach", "-binary", "-md", "sha256", "-outform", "DER", "-keyid", "-nocerts", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.der"])
        let trusted = try TrustedSigner(pemRepresentation: try openssl.readText("pub.pem"))
        let result = try CMSVerifier(trusting: trusted).verify(CMSSignedMessage(derRepresentation: try openssl.read("sig.der")))
        #expect(result.content == Self.content)
        #expect(trusted.certificate == nil)
    }

    @Test func fastPathAndFullParseAgreeOnMutatedOpenSSLMessages() throws {
        let openssl = try OpenSSLRunner()
        let (key, _) = try opensslCredentials(openssl)
        try openssl.write("content.bin", Self.content)
        // -keyid with signed attributes (including S/MIME capabilities) is the shape the fast path reads.
        try openssl.runChecked(["cms", "-sign", "-nodetach", "-binary", "-md", "sha256", "-outform", "DER", "-keyid", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.der"])
        let der = try openssl.read("sig.der")
        #expect(SignedDataFastPath.read(der) != nil)
        let read = FastPathEquivalenceTests.assertEquivalent(der, detached: nil, trusting: TrustedSigner(publicKey: key.publicKey))
        #expect(read > 0)
    }

    @Test func rejectsOpenSSLStreamingOutputAsIndefiniteLength() throws {
        let openssl = try OpenSSLRunner()
        let (_, certificate) = try opensslCredentials(openssl)
        try openssl.write("content.bin", Self.content)
        try openssl.runChecked(["cms", "-sign", "-stream", "-nodetach", "-binary", "-md", "sha256", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "content.bin", "-out", "sig.ber"])
        let ber = try openssl.read("sig.ber")
        #expect(ber[1] == 0x80)
        #expect(throws: SignatureVerificationError.malformedDER(DERFault(kind: .indefiniteLength, structure: .encoding, offset: 0))) {
            try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(derEncoded: ber)
        }
    }

    // MARK: - Keys

    @Test func readsOpenSSLKeysInBothFormsAndRejectsP384() throws {
        let openssl = try OpenSSLRunner()
        try openssl.runChecked(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sec1.pem"])
        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "pkcs8.pem"])
        for name in ["sec1", "pkcs8"] {
            try openssl.runChecked(["pkey", "-in", "\(name).pem", "-pubout", "-out", "\(name)-pub.pem"])
            try openssl.runChecked(["pkey", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
            let key = try DeviceSigningKey(pemRepresentation: try openssl.readText("\(name).pem"))
            #expect(try DeviceSigningKey(derRepresentation: try openssl.read("\(name).der")).publicKey == key.publicKey)
            #expect(try DevicePublicKey(pemRepresentation: try openssl.readText("\(name)-pub.pem")) == key.publicKey)
        }
        try openssl.runChecked(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"])
        try openssl.runChecked(["pkey", "-in", "p384.pem", "-pubout", "-out", "p384-pub.pem"])
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DeviceSigningKey(pemRepresentation: try openssl.readText("p384.pem"))
        }
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DevicePublicKey(pemRepresentation: try openssl.readText("p384-pub.pem"))
        }
        try openssl.runChecked(["req", "-new", "-x509", "-key", "p384.pem", "-subj", "/CN=P384", "-days", "1", "-out", "p384-cert.pem"])
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try TrustedSigner(pemRepresentation: try openssl.readText("p384-cert.pem"))
        }
    }

    @Test func opensslReadsOurKeysInBothForms() throws {
        let openssl = try OpenSSLRunner()
        let key = DeviceSigningKey()
        try openssl.write("pkcs8.pem", key.pkcs8PEMRepresentation)
        try openssl.write("sec1.pem", key.sec1PEMRepresentation)
        for name in ["pkcs8", "sec1"] {
            try openssl.runChecked(["pkey", "-in", "\(name).pem", "-pubout", "-outform", "DER", "-out", "\(name)-pub.der"])
            #expect(try openssl.read("\(name)-pub.der") == key.publicKey.derRepresentation)
        }
        let check = try openssl.runChecked(["ec", "-in", "sec1.pem", "-check", "-noout"])
        #expect(check.stderr.contains("valid") || check.stdout.contains("valid"))
        // OpenSSL's own SEC1 export of our PKCS #8 key is byte-identical to ours.
        try openssl.runChecked(["ec", "-in", "pkcs8.pem", "-outform", "DER", "-out", "openssl-sec1.der"])
        #expect(try openssl.read("openssl-sec1.der") == key.sec1DERRepresentation)
        try openssl.runChecked(["pkcs8", "-topk8", "-nocrypt", "-in", "sec1.pem", "-outform", "DER", "-out", "openssl-pkcs8.der"])
        #expect(try openssl.read("openssl-pkcs8.der") == key.pkcs8DERRepresentation)
    }

    @Test func computesTheSameSubjectKeyIdentifierAsOpenSSL() throws {
        let openssl = try OpenSSLRunner()
        let (key, certificate) = try opensslCredentials(openssl)
        #expect(certificate.subjectKeyIdentifierExtension == key.publicKey.subjectKeyIdentifier)
    }
}
