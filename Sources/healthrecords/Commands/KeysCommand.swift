import ArgumentParser
import ByteEncodings
import Foundation
import FHIR
import JOSE
import SampleSignatures
import SmartHealthCards

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make signing keys (for tests and demos).", subcommands: [KeysGenerateCommand.self])
}

struct KeysGenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate a key pair.",
        discussion: """
            Without --p256: a SMART Health Card issuer key — a private JWKS (kty EC, crv P-256, use sig, \
            alg ES256, kid = RFC 7638 thumbprint, d) for `issue --key`, and the public JWKS to publish \
            at <iss>/.well-known/jwks.json. With --p256: a P-256 device key as PEM files (PKCS #8 private key, SubjectPublicKeyInfo \
            public key) and, with --certificate, a self-signed X.509 certificate for it — what a \
            device signs samples with (samples add --sign-key, signature sign --key). The private \
            key file is readable by its owner only. Existing files are kept unless --force.
            """)

    /// What the files hold; each format has its own writer.
    enum OutputFormat {
        /// A P-256 key pair as PEM files, with an optional self-signed certificate.
        case p256PEM
        /// A private JWKS and a public `jwks.json` (SMART Health Card issuer keys).
        case jwks
    }

    @Flag(help: "Write a P-256 key pair as PEM files.")
    var p256 = false

    @Option(name: .customLong("private"), help: "Where to write the private key.")
    var privatePath: String

    @Option(name: .customLong("public"), help: "Where to write the public key.")
    var publicPath: String

    @Option(name: .customLong("certificate"), help: "Also write a self-signed certificate for the key here (needs --p256).")
    var certificatePath: String?

    @Option(help: "The certificate's subject and issuer, e.g. \"CN=Glucose Meter Co, O=Example\".")
    var subject: String?

    @Flag(help: "Replace files that exist.")
    var force = false

    var format: OutputFormat { p256 ? .p256PEM : .jwks }

    func validate() throws {
        if subject != nil, certificatePath == nil { throw ValidationError("--subject needs --certificate") }
        if certificatePath != nil, !p256 { throw ValidationError("--certificate needs --p256") }
    }

    func run() async throws {
        switch format {
        case .p256PEM:
            try writeP256PEM()
        case .jwks:
            try writeJWKS()
        }
    }

    private func writeJWKS() throws {
        let key = IssuerKey.generate()
        let privateSet = JWKSet(keys: [key.privateJWK])
        let publicSet = JWKSet(keys: [key.publicJWK])
        try KeyFiles.write(Data((JSONWriter.pretty(privateSet.json) + "\n").utf8), to: privatePath, secret: true, force: force)
        try KeyFiles.write(Data((JSONWriter.pretty(publicSet.json) + "\n").utf8), to: publicPath, force: force)
        print("private JWKS: \(privatePath)")
        print("public JWKS:  \(publicPath)  (publish at <iss>/.well-known/jwks.json)")
        print("kid:          \(key.keyID)")
    }

    private func writeP256PEM() throws {
        let key = DeviceSigningKey()
        var certificate: DeviceCertificate?
        if certificatePath != nil {
            do {
                certificate = try DeviceCertificate.selfSigned(subject: subject ?? "CN=HealthRecords Test Device", key: key)
            } catch {
                throw CommandFailure.usage("cannot make the certificate: \(error)")
            }
        }
        try KeyFiles.write(Data(key.pkcs8PEMRepresentation.utf8), to: privatePath, secret: true, force: force)
        try KeyFiles.write(Data(key.publicKey.pemRepresentation.utf8), to: publicPath, force: force)
        if let certificatePath, let certificate {
            try KeyFiles.write(Data(certificate.pemRepresentation.utf8), to: certificatePath, force: force)
        }
        print("private key: \(privatePath)")
        print("public key:  \(publicPath)")
        if let certificatePath { print("certificate: \(certificatePath)") }
        print("key id:      \(Hex.encode(key.publicKey.subjectKeyIdentifier))")
    }
}
