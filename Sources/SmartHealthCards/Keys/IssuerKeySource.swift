import ByteEncodings
import FHIR
import Foundation
import JOSE
import VerifiableRecords

/// Where an issuer's published files come from: its website, a cache, files on disk, a directory.
///
/// A source answers `nil` for an issuer it knows nothing about, so sources can be chained.
public protocol IssuerKeySource: Sendable {
    /// The issuer's key set (`<iss>/.well-known/jwks.json`), or `nil` if this source does not know the issuer.
    func keySet(issuer: String) async throws(KeySourceError) -> JWKSet?
    /// The issuer's revocation list for a key (`<iss>/.well-known/crl/<kid>.json`), or `nil` if unknown.
    func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList?
}

/// Why an issuer's files could not be had.
public enum KeySourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The files could not be fetched or read.
    case unavailable(String)
    /// The files were fetched but are not valid.
    case invalid(String)
    /// A revocation list was had (from `location`) but was refused; the reason carries its own
    /// verification code.
    case invalidRevocationList(location: String, RevocationListError)

    public var description: String {
        switch self {
        case .unavailable(let m): return m
        case .invalid(let m): return m
        case let .invalidRevocationList(location, error): return "\(location): \(error)"
        }
    }
}

/// Tries sources in order; the first that knows the issuer answers.
public struct KeySourceChain: IssuerKeySource {
    /// The sources, most preferred first.
    public let sources: [any IssuerKeySource]

    /// Makes a chain; when no source knows the issuer, the last error met is thrown, else the answer is `nil`.
    public init(_ sources: [any IssuerKeySource]) { self.sources = sources }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        var lastError: KeySourceError?
        for s in sources {
            do {
                if let set = try await s.keySet(issuer: issuer) { return set }
            } catch { lastError = error }
        }
        if let lastError { throw lastError }
        return nil
    }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        var lastError: KeySourceError?
        for s in sources {
            do {
                if let list = try await s.revocationList(issuer: issuer, keyID: keyID) { return list }
            } catch { lastError = error }
        }
        if let lastError { throw lastError }
        return nil
    }
}

/// Key sets and revocation lists held in memory (offline mode, directory snapshots, `--keys`).
public struct StaticKeySource: IssuerKeySource {
    /// Key sets keyed by the issuer's exact `iss`; an issuer missing here is unknown (`nil`), not an error.
    public var keySets: [String: JWKSet]
    /// Revocation lists per issuer and key id.
    public var revocationLists: [String: [String: RevocationList]]
    /// Revocation lists that were refused, per issuer and key id: asking for one throws why,
    /// so the card fails with the list's own code instead of "no list".
    public var refusedRevocationLists: [String: [String: RevocationListError]]

    /// Makes a source; the tables start empty, so it knows no issuer until they are filled.
    public init(
        keySets: [String: JWKSet] = [:], revocationLists: [String: [String: RevocationList]] = [:],
        refusedRevocationLists: [String: [String: RevocationListError]] = [:]
    ) {
        self.keySets = keySets
        self.revocationLists = revocationLists
        self.refusedRevocationLists = refusedRevocationLists
    }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? { keySets[issuer] }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        if let refused = refusedRevocationLists[issuer]?[keyID] { throw .invalidRevocationList(location: "\(issuer) key \(keyID)", refused) }
        return revocationLists[issuer]?[keyID]
    }
}

/// Answers for one issuer from a folder laid out like its website (`.well-known/jwks.json`,
/// `.well-known/crl/<kid>.json`), as if the files came from the issuer's site.
public struct IssuerFilesKeySource: IssuerKeySource {
    /// The issuer this folder stands for.
    public let issuer: String
    /// The folder holding `.well-known/`.
    public let directory: URL

    /// Makes a source; nothing is read until asked, and a missing file is then an error, not `nil`.
    public init(issuer: String, directory: URL) {
        self.issuer = issuer
        self.directory = directory
    }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        guard issuer == self.issuer else { return nil }
        let url = directory.appendingPathComponent(".well-known/jwks.json")
        guard let data = try? Data(contentsOf: url) else { throw .unavailable("cannot read \(url.path)") }
        do { return try JWKSet(data: data) } catch { throw .invalid("\(url.path): \(error)") }
    }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        guard issuer == self.issuer, FHIRResource.isValidIdentifier(keyID) || keyID.utf8.allSatisfy(Base64URL.isAlphabetByte) else { return nil }
        let url = directory.appendingPathComponent(".well-known/crl/\(keyID).json")
        guard let data = try? Data(contentsOf: url) else { throw .unavailable("cannot read \(url.path)") }
        do { return try RevocationList(data: data) } catch { throw .invalidRevocationList(location: url.path, error) }
    }
}

/// Fetches `<iss>/.well-known/jwks.json` and `<iss>/.well-known/crl/<kid>.json` from the issuer's site.
public struct WellKnownKeySource: IssuerKeySource {
    /// The fetcher that enforces timeouts, size caps and address rules.
    public let fetcher: any HTTPFetcher

    /// Makes a source. There is no default fetcher: the one that connects to the address it
    /// checked (OutboundHTTP's `PinnedHTTPFetcher`) lives outside this module.
    public init(fetcher: any HTTPFetcher) {
        self.fetcher = fetcher
    }

    public func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        guard let url = URL(string: issuer + "/.well-known/jwks.json") else { throw .unavailable("\(issuer) is not a URL") }
        let data: Data
        do { data = try await fetcher.get(url) } catch { throw .unavailable("\(url.absoluteString): \(error)") }
        do { return try JWKSet(data: data) } catch { throw .invalid("\(url.absoluteString): \(error)") }
    }

    public func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        guard keyID.utf8.allSatisfy(Base64URL.isAlphabetByte), let url = URL(string: issuer + "/.well-known/crl/\(keyID).json") else {
            throw .unavailable("no revocation list URL for key \(keyID)")
        }
        let data: Data
        do { data = try await fetcher.get(url) } catch { throw .unavailable("\(url.absoluteString): \(error)") }
        do { return try RevocationList(data: data) } catch { throw .invalidRevocationList(location: url.absoluteString, error) }
    }
}
