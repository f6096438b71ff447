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

    /// How many bits of guessing a secret a person chose stands for, at most — a rough upper
    /// bound, meant to refuse what is plainly weak. Each character counts the bits of the smaller
    /// of the alphabet its character classes span (lower case, upper case, digits, anything
    /// else) and the number of distinct characters it uses; and a secret counts no more than its
    /// distinct adjacent pairs (plus one) times the alphabet's bits, so a run of one character or
    /// a repeated pattern counts for little. It undercounts short random secrets: 22 random
    /// base64url characters (132 bits) count about 95, 43 of them (`make()`) about 200.
    public static func estimatedBits(_ secret: String) -> Double {
        let scalars = Array(secret.unicodeScalars)
        guard !scalars.isEmpty else { return 0 }
        var alphabet = 0
        if scalars.contains(where: { $0.properties.isLowercase }) { alphabet += 26 }
        if scalars.contains(where: { $0.properties.isUppercase }) { alphabet += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
        if scalars.contains(where: { !$0.properties.isLowercase && !$0.properties.isUppercase && !("0"..."9").contains($0) }) { alphabet += 32 }
        let distinct = Set(scalars).count
        let perCharacter = log2(Double(max(1, min(alphabet, distinct))))
        var pairs = Set<[UnicodeScalar]>()
        for i in scalars.indices.dropLast() { pairs.insert([scalars[i], scalars[i + 1]]) }
        return min(Double(scalars.count) * perCharacter, Double(pairs.count + 1) * log2(Double(alphabet)))
    }

    /// The least `estimatedBits` a person token given by hand must have.
    public static let minimumBits = 128.0

    /// Whether two secrets are equal, in time that does not depend on where they differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = digest(a)
        let y = digest(b)
        var d: UInt8 = 0
        for (p, q) in zip(x, y) { d |= p ^ q }
        return d == 0
    }
}
