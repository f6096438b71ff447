import ByteEncodings
import Crypto
import Foundation

/// Random bearer secrets and their digests: access tokens, session ids, request ids, the
/// person's login token. Only digests are kept where a lookup is needed.
public enum SecretToken {
    /// 256 random bits, base64url without padding.
    public static func make() -> String {
        var g = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &g) }
        return Base64URL.encode(bytes)
    }

    /// SHA-256 of a token, the key it is looked up by.
    static func digest(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// Whether two secrets are equal, in time that does not depend on where they differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = digest(a)
        let y = digest(b)
        var d: UInt8 = 0
        for (p, q) in zip(x, y) { d |= p ^ q }
        return d == 0
    }
}
