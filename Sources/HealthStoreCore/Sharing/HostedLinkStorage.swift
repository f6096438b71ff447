import Foundation

/// Where an engine keeps the SMART Health Links the server hosts. Storage primitives only:
/// what a link holds and the protocol's answers belong to the sharing layer above.
///
/// Sealed with the store key: labels, what was shared, a long-term link's key and text, the
/// passcode hash, recipients. Files are stored as the JWEs served (ciphertext already).
public protocol HostedLinkStorage: Sendable {
    /// Stores a link and its files in one transaction.
    /// - Throws: ``HealthStoreError/invalidArgument(_:)`` for a secret on a link that is not
    ///   long-term, a passcode limit over ``LinkPasscode/maximumAttempts``, or a handle in use.
    func insertHostedLink(_ link: NewHostedLink) async throws
    /// Every link, newest first; only those not ended unless `includeEnded`.
    func hostedLinks(includeEnded: Bool) async throws -> [HostedLink]
    /// A link by its handle.
    func hostedLink(handle: String) async throws -> HostedLink?
    /// A link by the digest of its URL's random part.
    func hostedLink(lookupDigest: Data) async throws -> HostedLink?
    /// A link's flags and state by the digest of its URL's random part: what serving a file
    /// needs, in one statement.
    func hostedLinkStatus(lookupDigest: Data) async throws -> HostedLinkStatus?
    /// One file with its JWE; `nil` when the link has no such file (or has ended).
    func hostedLinkFile(handle: String, ordinal: Int) async throws -> HostedLinkFile?
    /// A long-term link's sealed secret, opened; `nil` for any other link or an ended one.
    func longTermSecret(handle: String) async throws -> Data?
    /// Holds one passcode attempt of an active link, atomically: however many ask at once,
    /// wrong attempts evaluated never exceed the link's limit.
    func reservePasscodeAttempt(handle: String, now: Date) async throws -> PasscodeReservation
    /// Settles a held attempt; a wrong one counts for good. Returns the wrong attempts still allowed.
    func settlePasscodeAttempt(handle: String, correct: Bool) async throws -> Int
    /// Replaces a long-term link's files if they were built at `fromAnchor` (of two writers, one
    /// wins); returns whether they were replaced.
    func replaceHostedLinkFiles(handle: String, fromAnchor: Int64, toAnchor: Int64, jwes: [Int: Data], date: Date) async throws -> Bool
    /// Stores the locations of one manifest in one transaction.
    func issueLinkLocations(_ locations: [NewLinkLocation]) async throws
    /// Spends a location, atomically: of two concurrent uses one gets ``LinkLocationUse/used(handle:ordinal:recipient:)``.
    func useLinkLocation(tokenDigest: Data, now: Date) async throws -> LinkLocationUse
    /// Revokes a link now: its files, key, passcode hash and locations are deleted; the row and
    /// its log stay.
    func revokeHostedLink(handle: String, at date: Date) async throws -> LinkRevocation
    /// Revokes, as ``revokeHostedLink(handle:at:)`` does, every link still active that the proxy
    /// `madeBy` (a person id) made; returns how many. What a proxy shared ends with their role.
    func revokeHostedLinks(madeBy: String, at date: Date) async throws -> Int
    /// Wipes links past their expiry as a revoke does, and deletes dead locations; returns how
    /// many links ended.
    func endExpiredHostedLinks(at date: Date) async throws -> Int
    /// Adds a line to a link's access log. Lines are written in batches, a moment later (as
    /// apps' audit entries are); reading the log writes what waits first.
    func appendLinkAccess(_ entry: LinkAccess) async throws
    /// Writes the log lines waiting to be written (at a graceful shutdown).
    func flushLinkAccess() async throws
    /// A link's access log, newest first.
    func linkAccessLog(handle: String, newestFirst limit: Int) async throws -> [LinkAccess]
}
