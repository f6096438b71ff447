/// Why a JSON Web Key was rejected.
public enum JWKFault: Hashable, Sendable, CustomStringConvertible {
    /// The text is not a JSON object with string members.
    case notJSON
    /// `kty` is missing or not `EC`.
    case unsupportedKeyType
    /// `crv` is missing or names a curve that is not recognised at all.
    case unsupportedCurveName
    /// `x` or `y` is missing, not base64url, or not 32 bytes.
    case invalidCoordinate
    /// The key carries a private part (`d`), which a verification key must not.
    case containsPrivateKey

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .notJSON: "not a JSON object"
        case .unsupportedKeyType: "kty is not EC"
        case .unsupportedCurveName: "crv is not a known curve"
        case .invalidCoordinate: "x or y is not a 32-byte base64url value"
        case .containsPrivateKey: "JWK contains a private key"
        }
    }
}
