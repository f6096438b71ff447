import Foundation
import HealthStoreCore
import SampleSignatures

/// Reads and writes key, certificate and signature files for the commands; every problem is a
/// usage/I-O error (exit 2) naming the file and what is wrong with it.
enum KeyFiles {
    /// The bytes of a file; `what` names the file in the error, e.g. "cannot read private key …".
    static func read(_ path: String, _ what: String) throws(CommandFailure) -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .usage("cannot read \(what) \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// A P-256 private key: PEM (`PRIVATE KEY` or `EC PRIVATE KEY`) or DER (PKCS #8 or SEC 1).
    static func signingKey(_ path: String) throws(CommandFailure) -> DeviceSigningKey {
        let data = try read(path, "private key")
        do {
            if let text = pemText(data) { return try DeviceSigningKey(pemRepresentation: text) }
            return try DeviceSigningKey(derRepresentation: data)
        } catch {
            throw .usage("private key \(path): \(error)")
        }
    }

    /// An X.509 certificate for a P-256 key, PEM or DER.
    static func certificate(_ path: String) throws(CommandFailure) -> DeviceCertificate {
        let data = try read(path, "certificate")
        do {
            if let text = pemText(data) { return try DeviceCertificate(pemRepresentation: text) }
            return try DeviceCertificate(derRepresentation: data)
        } catch {
            throw .usage("certificate \(path): \(error)")
        }
    }

    /// A public key to trust: PEM (`PUBLIC KEY`, or a `CERTIFICATE`), DER SubjectPublicKeyInfo
    /// (or certificate), or a JSON Web Key.
    static func trustedKey(_ path: String) throws(CommandFailure) -> TrustedSigner {
        let data = try read(path, "public key")
        do {
            if let text = pemText(data) { return try TrustedSigner(pemRepresentation: text) }
            if data.first == UInt8(ascii: "{") || String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                return try TrustedSigner(jwk: String(decoding: data, as: UTF8.self))
            }
            return try TrustedSigner(derRepresentation: data)
        } catch {
            throw .usage("public key \(path): \(error)")
        }
    }

    /// Trusted signers from `--key` and `--certificate` files; at least one must be given.
    static func trustedSigners(keys: [String], certificates: [String]) throws(CommandFailure) -> [TrustedSigner] {
        var signers: [TrustedSigner] = []
        for path in keys { signers.append(try trustedKey(path)) }
        for path in certificates { signers.append(TrustedSigner(certificate: try certificate(path))) }
        guard !signers.isEmpty else { throw .usage("give the signer's public key (--key FILE) or certificate (--certificate FILE)") }
        return signers
    }

    /// A CMS message: PEM (`CMS`/`PKCS7`), DER, or base64 text.
    static func message(_ path: String) throws(CommandFailure) -> CMSSignedMessage {
        let data = try read(path, "signature")
        do {
            if let text = pemText(data) { return try CMSSignedMessage(pemRepresentation: text) }
            if data.first == 0x30 { return CMSSignedMessage(derRepresentation: data) }
            return try CMSSignedMessage(base64Encoded: String(decoding: data, as: UTF8.self))
        } catch {
            throw .usage("signature \(path): \(error)")
        }
    }

    /// Writes a file, refusing to replace one unless `force`; readable by the owner only
    /// (`secret` is kept for callers that say so; every file is written 0600).
    static func write(_ data: Data, to path: String, secret: Bool = false, force: Bool) throws(CommandFailure) {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            guard force else { throw .usage("\(path) exists; pass --force to replace it") }
            do { try manager.removeItem(atPath: path) } catch { throw .usage("cannot replace \(path): \((error as NSError).localizedDescription)") }
        }
        guard OwnerOnlyFiles.writeNew(data, to: path) else {
            throw .usage("cannot write \(path)")
        }
    }

    /// The text of a PEM document, when the file is one.
    private static func pemText(_ data: Data) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        return text.contains("-----BEGIN ") ? text : nil
    }
}
