/// Why a card could not be issued.
public enum IssuingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is not a FHIR Bundle.
    case notABundle
    /// A bundle entry has no resource.
    case invalidEntry(Int)
    /// The issuer URL is not https or ends with `/`.
    case invalidIssuer(String)
    /// The signing key cannot be used.
    case key(String)
    /// The card is too large for one QR code.
    case tooLargeForQR(jwsLength: Int, limit: Int)
    /// The revocation secret or user id is not usable.
    case revocation(String)

    public var description: String {
        switch self {
        case .notABundle: return "not a FHIR Bundle (resourceType must be Bundle)"
        case .invalidEntry(let n): return "bundle entry \(n) has no resource"
        case .invalidIssuer(let iss): return "issuer \(iss) must be an https URL that does not end with /"
        case .key(let m): return "signing key: \(m)"
        case .tooLargeForQR(let n, let limit):
            return "the card's JWS is \(n) characters; one QR code (version 22, error correction L) holds at most \(limit). Chunking is deprecated; share it as a .smart-health-card file instead"
        case .revocation(let m): return "revocation id: \(m)"
        }
    }
}
