import ByteEncodings
import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), S256 only: SMART App Launch 2 requires it and
/// forbids `plain`.
public enum PKCE {
    /// Whether a challenge is well formed: 43 base64url characters (a SHA-256 digest).
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && (try? Base64URL.decode(challenge))?.count == 32
    }

    /// Whether a verifier is well formed (RFC 7636 §4.1: 43–128 unreserved characters).
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { c in
                (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
            }
    }

    /// The S256 challenge of a verifier: `BASE64URL(SHA256(verifier))`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether a verifier answers a challenge, compared in constant time.
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        let a = Array(self.challenge(for: verifier).utf8), b = Array(challenge.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
