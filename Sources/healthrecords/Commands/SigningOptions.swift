import ArgumentParser
import Foundation
import SampleSignatures

/// How `samples add --sign-key` and `signature sign` make a CMS signature.
struct SigningOptions: ParsableArguments {
    @Option(name: .customLong("certificate"), help: "The signer's certificate: embed it and name the signer by issuer and serial number.")
    var certificatePath: String?

    @Flag(help: "Sign content-type, message-digest and signing-time attributes rather than the content itself.")
    var signedAttributes = false

    @Flag(help: "With --certificate, name the signer by subject key identifier instead of issuer and serial number.")
    var keyID = false

    /// A signer for `key`, with the certificate when one was given.
    func signer(key: DeviceSigningKey) throws -> CMSSigner {
        let certificate = try certificatePath.map(KeyFiles.certificate)
        do {
            return try CMSSigner(key: key, certificate: certificate, identification: keyID ? .subjectKeyIdentifier : nil)
        } catch {
            throw CommandFailure.usage("\(certificatePath ?? "certificate"): \(error)")
        }
    }

    /// Signing options; signed attributes carry the current time.
    func options(detached: Bool = false) -> CMSSigningOptions {
        CMSSigningOptions(detached: detached, includesSignedAttributes: signedAttributes, signingTime: signedAttributes ? Date() : nil)
    }
}
