/// Why an id token signer cannot be made or cannot sign.
public enum IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The seed is shorter than ``IDTokenSigner/minimumSeedBytes``: its length.
    case seedTooShort(bytes: Int)
    /// No valid P-256 scalar came out of the derivation (a chance of about 2^-8192).
    case keyDerivationFailed
    /// The signature could not be made: swift-crypto's message.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .seedTooShort(let n): return "the id token key seed is \(n) bytes; at least \(IDTokenSigner.minimumSeedBytes) are needed"
        case .keyDerivationFailed: return "no P-256 signing key could be derived from the seed"
        case .signingFailed(let m): return "the id token could not be signed: \(m)"
        }
    }
}
