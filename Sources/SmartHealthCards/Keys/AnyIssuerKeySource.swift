import Foundation
import JOSE

/// Key sets the person vouches for, offered for whichever issuer a card names (`--keys FILE`).
///
/// Unlike a directory, nothing ties these keys to an issuer: the person verifying has chosen
/// them. Keys are still looked up by `kid` inside the set, and a card whose `kid` is not there
/// fails with `key.notFound`.
public struct AnyIssuerKeySource: IssuerKeySource {
    /// The sets, merged in order.
    public let sets: [JWKSet]

    /// Makes a source; with no sets it knows no issuer, so a chain moves on to the next source.
    public init(_ sets: [JWKSet]) { self.sets = sets }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        sets.isEmpty ? nil : JWKSet(keys: sets.flatMap(\.keys))
    }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? { nil }
}
