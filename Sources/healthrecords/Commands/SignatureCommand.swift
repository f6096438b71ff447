import ArgumentParser
import ByteEncodings
import FHIR
import Foundation
import SampleSignatures

struct SignatureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signature",
        abstract: "Sign and verify any content as CMS SignedData (DER, SHA-256, ECDSA P-256), for interop with openssl cms.",
        subcommands: [SignatureSignCommand.self, SignatureVerifyCommand.self])
}

struct SignatureSignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a file as a CMS SignedData.",
        discussion: """
            The output verifies with `openssl cms -verify -inform DER -binary -in SIG.der -certfile CERT.pem \
            -noverify` (add -content FILE for --detached). Without --certificate the signer is named by \
            subject key identifier.
            """)

    /// How the message is written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case der, pem, base64
    }

    @Option(help: "The file to sign.")
    var content: String

    @Option(help: "The P-256 private key (PEM or DER).")
    var key: String

    @OptionGroup var signing: SigningOptions

    @Flag(help: "Leave the content out of the message.")
    var detached = false

    @Option(help: "Where to write the message.")
    var out: String

    @Option(help: "der (default), pem or base64 (what HKMetadataKeyDigitalSignature holds).")
    var format: Format = .der

    @Flag(help: "Replace --out if it exists.")
    var force = false

    func run() async throws {
        let bytes = try KeyFiles.read(content, "content")
        let signer = try signing.signer(key: try KeyFiles.signingKey(key))
        let message: CMSSignedMessage
        do { message = try signer.sign(bytes, options: signing.options(detached: detached)) } catch {
            throw CommandFailure.failed("cannot sign: \(error)")
        }
        let output: Data
        switch format {
        case .der: output = Data(message.derRepresentation)
        case .pem: output = Data(message.pemRepresentation.utf8)
        case .base64: output = Data((message.base64EncodedString + "\n").utf8)
        }
        try KeyFiles.write(output, to: out, force: force)
        print("signed \(bytes.count) bytes\(detached ? " (detached)" : ""): \(out), \(message.derRepresentation.count)-byte message")
    }
}

struct SignatureVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a CMS SignedData (DER, PEM or base64) against a public key or certificate.",
        discussion: """
            Exit status: 0 when the signature verifies, 1 when it does not (the reason is printed), 2 for \
            usage and file errors.
            """)

    @Argument(help: "The signature file: DER, PEM (CMS or PKCS7) or base64.")
    var signature: String

    @Option(name: .customLong("key"), help: "A trusted public key: PEM, DER SubjectPublicKeyInfo or JWK (repeatable).")
    var keys: [String] = []

    @Option(name: .customLong("certificate"), help: "A trusted certificate, PEM or DER (repeatable).")
    var certificates: [String] = []

    @Option(help: "The signed content, for a detached signature.")
    var content: String?

    @Option(help: "Write the verified content here.")
    var contentOut: String?

    @Flag(help: "Replace --content-out if it exists.")
    var force = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let verifier = CMSVerifier(trusting: try KeyFiles.trustedSigners(keys: keys, certificates: certificates))
        let message = try KeyFiles.message(signature)
        let detached = try content.map { [UInt8](try KeyFiles.read($0, "content")) }
        let result: CMSVerificationResult
        do {
            result = try verifier.verify(message, detachedContent: detached)
        } catch {
            if json {
                JSONOutput.print(.object(JSONObject(["verified": .bool(false), "reason": .string(error.description)])))
                throw ExitCode(1)
            }
            throw CommandFailure.failed("verification failed: \(error)")
        }
        if let contentOut { try KeyFiles.write(Data(result.content), to: contentOut, force: force) }
        let signer: String
        switch result.signer {
        case .subjectKeyIdentifier(let id): signer = "subject key identifier \(Hex.encode(id))"
        case .issuerAndSerialNumber(let issuer, let serial): signer = "issuer \(issuer), serial \(Hex.encode(serial))"
        }
        if json {
            JSONOutput.print(.object(JSONObject([
                "verified": .bool(true),
                "signer": .string(signer),
                "signedAttributes": .bool(result.hasSignedAttributes),
                "signingTime": JSONOutput.date(result.signingTime),
                "detached": .bool(result.isDetached),
                "contentBytes": JSONOutput.int(result.content.count),
            ])))
            return
        }
        print("verified: signed by \(signer)")
        print("  signed attributes: \(result.hasSignedAttributes ? "yes" : "no")")
        if let time = result.signingTime { print("  signing time:      \(JSONOutput.iso8601(time))") }
        print("  content:           \(result.content.count) bytes\(result.isDetached ? " (detached)" : "")")
    }
}
