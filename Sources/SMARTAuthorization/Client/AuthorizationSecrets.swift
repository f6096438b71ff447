import ByteEncodings

/// A random `state` (≥ 128 bits: 32 bytes base64url) and PKCE verifier (43..128 chars, 32 random bytes base64url).
///
/// Both are the client's proof that a callback answers its own request: `state` stops a forged
/// callback (CSRF), the verifier stops a stolen code from being redeemed elsewhere (RFC 7636).
/// Each is 256 bits from the system's cryptographic generator, so neither can be guessed.
public enum AuthorizationSecrets {
    /// How many random bytes each secret holds.
    public static let randomByteCount = 32

    /// A fresh `state`: 43 base64url characters.
    public static func state() -> String {
        randomBase64URL()
    }

    /// A fresh PKCE verifier: 43 base64url characters, inside RFC 7636's 43–128 unreserved
    /// characters, for ``PKCE/challenge(for:)``.
    public static func codeVerifier() -> String {
        randomBase64URL()
    }

    /// ``randomByteCount`` bytes from `SystemRandomNumberGenerator` (the OS CSPRNG), base64url.
    static func randomBase64URL() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(randomByteCount)
        for _ in 0..<(randomByteCount / 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Base64URL.encode(bytes)
    }
}
