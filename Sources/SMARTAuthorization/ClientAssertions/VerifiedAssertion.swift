import Foundation

/// What a verified client assertion leaves for the caller: the `jti` to refuse if seen again
/// before `exp` (the replay check is the store's), and which key signed it.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The assertion's `jti`: store it until ``exp`` and refuse a second use.
    public let jti: String
    /// The assertion's `exp`: the `jti` need not be remembered after it.
    public let exp: Date
    /// The algorithm it was signed with.
    public let algorithm: ClientAssertionAlgorithm
    /// The `kid` of the key that verified it, if the key has one.
    public let keyID: String?

    /// A verified assertion's facts.
    public init(jti: String, exp: Date, algorithm: ClientAssertionAlgorithm, keyID: String?) {
        self.jti = jti
        self.exp = exp
        self.algorithm = algorithm
        self.keyID = keyID
    }
}
