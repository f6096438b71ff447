import Crypto
import Foundation

/// The ES256 signature check every card goes through: ECDSA P-256 with SHA-256 over the signing
/// input, the signature in the JWS 64-byte r‖s form (RFC 7515 §A.3).
public enum ES256 {
    /// Whether `signature` (r‖s) is valid for `message` under `key`; anything but 64 bytes is not.
    public static func isValid(signature: [UInt8], message: UnsafeRawBufferPointer, key: P256.Signing.PublicKey) -> Bool {
        guard signature.count == 64, let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(sig, for: message)
    }

    /// Whether `signature` (r‖s) is valid for `message` under `key`.
    public static func isValid(signature: [UInt8], message: [UInt8], key: P256.Signing.PublicKey) -> Bool {
        message.withUnsafeBytes { isValid(signature: signature, message: $0, key: key) }
    }

    /// Signs `message` and returns the 64-byte r‖s signature.
    public static func sign(_ message: [UInt8], key: P256.Signing.PrivateKey) throws -> [UInt8] {
        Array(try key.signature(for: message).rawRepresentation)
    }
}
