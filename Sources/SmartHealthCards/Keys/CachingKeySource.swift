import Foundation
import JOSE
import Synchronization

/// Remembers what another source answered for a while, so a verifier does not fetch an
/// issuer's keys for every card.
///
/// Revocation lists are kept per key and refetched when the key's `crlVersion` moves past the
/// cached list's `ctr`, as the spec asks.
public final class CachingKeySource: IssuerKeySource {
    private struct Entry<T: Sendable>: Sendable {
        let value: T
        let expires: Date
    }

    private let base: any IssuerKeySource
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let keySets = Mutex<[String: Entry<JWKSet>]>([:])
    private let lists = Mutex<[String: Entry<RevocationList>]>([:])

    /// Makes a cache over a source.
    ///
    /// - Parameters:
    ///   - lifetime: how long an answer is kept.
    ///   - now: the clock (tests move it).
    public init(_ base: any IssuerKeySource, lifetime: TimeInterval = 3600, now: @escaping @Sendable () -> Date = { Date() }) {
        self.base = base
        self.lifetime = lifetime
        self.now = now
    }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        let t = now()
        if let hit = keySets.withLock({ $0[issuer] }), hit.expires > t { return hit.value }
        guard let set = try await base.keySet(issuer: issuer) else { return nil }
        keySets.withLock { $0[issuer] = Entry(value: set, expires: t.addingTimeInterval(lifetime)) }
        return set
    }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        try await revocationList(issuer: issuer, keyID: keyID, atLeast: nil)
    }

    /// The revocation list, refetched when the cached one is older than `crlVersion`.
    public func revocationList(issuer: String, keyID: String, atLeast crlVersion: Int?) async throws(KeySourceError) -> RevocationList? {
        let key = issuer + "\u{0}" + keyID
        let t = now()
        if let hit = lists.withLock({ $0[key] }), hit.expires > t, crlVersion.map({ hit.value.counter >= $0 }) ?? true { return hit.value }
        guard let list = try await base.revocationList(issuer: issuer, keyID: keyID) else { return nil }
        lists.withLock { $0[key] = Entry(value: list, expires: t.addingTimeInterval(lifetime)) }
        return list
    }

    /// Forgets everything.
    public func clear() {
        keySets.withLock { $0.removeAll() }
        lists.withLock { $0.removeAll() }
    }
}
