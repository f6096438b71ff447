/// The JWS algorithms accepted for `private_key_jwt` client assertions, as SMART App Launch 2
/// requires servers to support: nothing weaker, nothing else.
public enum ClientAssertionAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// ECDSA on P-384 with SHA-384; the signature is the 96-byte r‖s of RFC 7518 §3.4.
    case es384 = "ES384"
    /// RSASSA-PKCS1-v1_5 with SHA-384 (RFC 7518 §3.3), keys of at least 2048 bits.
    case rs384 = "RS384"

    /// The JWK `kty` of keys for this algorithm: `EC` or `RSA`.
    public var keyType: String {
        switch self {
        case .es384: return "EC"
        case .rs384: return "RSA"
        }
    }
}
