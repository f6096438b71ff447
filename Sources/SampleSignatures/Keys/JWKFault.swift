import JOSE

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

extension KeyError {
    /// A JSON Web Key's rejection in this module's terms: P-384 and P-521 are curves it knows
    /// but does not support, an off-curve point is an invalid public key like any other.
    init(_ error: JWKError) {
        switch error {
        case .notJSON, .notAnObject: self = .invalidJWK(.notJSON)
        case .unsupportedKeyType: self = .invalidJWK(.unsupportedKeyType)
        case .unsupportedCurve("P-384"): self = .unsupportedCurve(CMSObjectIdentifier.p384)
        case .unsupportedCurve("P-521"): self = .unsupportedCurve(CMSObjectIdentifier.p521)
        case .unsupportedCurve: self = .invalidJWK(.unsupportedCurveName)
        case .privateMemberPresent: self = .invalidJWK(.containsPrivateKey)
        case .pointNotOnCurve: self = .invalidPublicKey
        // Public-key import raises none of the signing-key and private-key cases; were it to,
        // they too say the key is not a usable P-256 public key.
        case .missingMember, .invalidCoordinates, .wrongUse, .wrongAlgorithm, .missingPrivateKey, .kidMismatch:
            self = .invalidJWK(.invalidCoordinate)
        }
    }
}
