import FHIR
import Foundation
import JOSE

/// Which issuers a verifier trusts: an allow-list, a directory, or (with neither) every issuer
/// whose keys resolve.
public struct TrustPolicy: Sendable {
    /// What the policy says about one issuer.
    public enum Decision: Sendable, Hashable {
        /// Listed (by the allow-list or the directory, with the directory's name when it has one).
        case trusted(name: String?)
        /// Not listed: the card may be authentic, but its issuer is not one the verifier trusts.
        case untrusted
        /// No policy was given; trust follows from the keys resolving.
        case open
    }

    /// Issuers trusted by exact `iss`.
    public var allowList: Set<String>
    /// A directory of participating issuers.
    public var directory: IssuerDirectory?

    /// Makes a policy; with neither an allow-list nor a directory it is ``open``, trusting every issuer.
    public init(allowList: Set<String> = [], directory: IssuerDirectory? = nil) {
        self.allowList = allowList
        self.directory = directory
    }

    /// Trusts every issuer whose keys resolve.
    public static let open = TrustPolicy()

    /// The decision for an issuer; `iss` is compared exactly, never normalized.
    public func decision(for issuer: String) -> Decision {
        if allowList.isEmpty && directory == nil { return .open }
        if let entry = directory?.entry(for: issuer) { return .trusted(name: entry.name) }
        if allowList.contains(issuer) { return .trusted(name: nil) }
        return .untrusted
    }
}

/// A directory of issuers in the VCI format: `{"participating_issuers":[{"iss","name",…}]}`, or a
/// VCI snapshot `{"issuerInfo":[{"issuer":{…},"keys":[…],"crls":[…]}]}` that carries keys too.
public struct IssuerDirectory: Sendable {
    /// One listed issuer.
    public struct Entry: Sendable {
        /// The issuer's `iss`.
        public let issuer: String
        /// The name the directory gives the issuer, if any; a ``TrustPolicy/Decision/trusted(name:)`` carries it.
        public let name: String?
        /// Its canonical `iss`, when it publishes under several.
        public let canonicalIssuer: String?
        /// Keys the directory carries for it.
        public let keys: JWKSet?
        /// Revocation lists the directory carries, by key id.
        public let revocationLists: [String: RevocationList]
        /// Revocation lists the directory carries that were refused, by key id.
        public let refusedRevocationLists: [String: RevocationListError]
    }

    /// The listed issuers in file order; ``entry(for:)`` takes the first with a matching `iss`.
    public let entries: [Entry]

    /// Reads a directory file.
    public init(data: Data) throws(KeySourceError) {
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw .invalid("directory is not JSON: \(error)") }
        var entries: [Entry] = []
        if let list = value["participating_issuers"]?.arrayValue {
            for item in list {
                guard let o = item.objectValue, let iss = o.string("iss") else { throw .invalid("a participating issuer has no iss") }
                let keys = o["keys"].flatMap { try? JWKSet(json: .object(JSONObject([JSONMember("keys", $0)]))) }
                entries.append(Entry(issuer: iss, name: o.string("name"), canonicalIssuer: o.string("canonical_iss"), keys: keys, revocationLists: [:], refusedRevocationLists: [:]))
            }
        } else if let list = value["issuerInfo"]?.arrayValue {
            for item in list {
                guard let o = item.objectValue, let issuer = o.object("issuer"), let iss = issuer.string("iss") else {
                    throw .invalid("an issuerInfo entry has no issuer.iss")
                }
                let keys = o["keys"].flatMap { try? JWKSet(json: .object(JSONObject([JSONMember("keys", $0)]))) }
                var crls: [String: RevocationList] = [:]
                var refused: [String: RevocationListError] = [:]
                for c in o.list("crls") {
                    guard let obj = c.objectValue else { continue }
                    do {
                        let list = try RevocationList(data: Data(JSONWriter.minified(.object(obj))))
                        crls[list.keyID] = list
                    } catch {
                        // Kept, so a card of that key fails with the list's own code.
                        if let kid = obj.string("kid") { refused[kid] = error }
                    }
                }
                entries.append(Entry(
                    issuer: iss, name: issuer.string("name"), canonicalIssuer: issuer.string("canonical_iss"), keys: keys,
                    revocationLists: crls, refusedRevocationLists: refused))
            }
        } else {
            throw .invalid("directory has neither participating_issuers nor issuerInfo")
        }
        self.entries = entries
    }

    /// The entry for an exact `iss`.
    public func entry(for issuer: String) -> Entry? { entries.first { $0.issuer == issuer } }

    /// A key source answering from the keys and lists the directory carries.
    public var keySource: StaticKeySource {
        var sets: [String: JWKSet] = [:]
        var lists: [String: [String: RevocationList]] = [:]
        var refused: [String: [String: RevocationListError]] = [:]
        for e in entries {
            if let k = e.keys { sets[e.issuer] = k }
            if !e.revocationLists.isEmpty { lists[e.issuer] = e.revocationLists }
            if !e.refusedRevocationLists.isEmpty { refused[e.issuer] = e.refusedRevocationLists }
        }
        return StaticKeySource(keySets: sets, revocationLists: lists, refusedRevocationLists: refused)
    }
}
