import FHIR
import Foundation

/// A card revocation list (`<iss>/.well-known/crl/<kid>.json`, spec 1.2.0).
public struct RevocationList: Sendable, Hashable {
    /// One revoked id, optionally bounded by a time.
    public struct Entry: Sendable, Hashable {
        /// The revocation id (`vc.rid`).
        public let rid: String
        /// When present, only cards whose `nbf` is earlier than this are revoked.
        public let timestamp: Double?

        /// Makes an entry.
        public init(rid: String, timestamp: Double?) {
            self.rid = rid
            self.timestamp = timestamp
        }
    }

    /// The key the list belongs to.
    public let keyID: String
    /// The method; only `rid` is defined.
    public let method: String
    /// `ctr`: increments with every update; must equal the key's `crlVersion`.
    public let counter: Int
    /// The revoked ids.
    public let entries: [Entry]

    /// Makes a list.
    public init(keyID: String, method: String = "rid", counter: Int, entries: [Entry]) {
        self.keyID = keyID
        self.method = method
        self.counter = counter
        self.entries = entries
    }

    /// Reads a list from JSON.
    public init(data: Data) throws(RevocationListError) {
        let value: JSONValue
        do { value = try JSONReader(limits: JSONLimits(maxDocumentBytes: 8 << 20, maxDepth: 8, maxStringBytes: 1024, maxContainerElements: 1_000_000)).read(data) } catch {
            throw .invalid("not JSON: \(error)")
        }
        guard let o = value.objectValue else { throw .invalid("not a JSON object") }
        guard let kid = o.string("kid") else { throw .invalid("no kid") }
        guard let method = o.string("method") else { throw .invalid("no method") }
        guard let ctr = o["ctr"]?.numberValue?.intValue else { throw .invalid("ctr is not an integer") }
        guard let rids = o["rids"]?.arrayValue else { throw .invalid("rids is not an array") }
        var entries: [Entry] = []
        for r in rids {
            guard let text = r.stringValue else { throw .invalid("a rid is not a string") }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, let rid = parts.first, !rid.isEmpty, rid.utf8.count <= 24, rid.utf8.allSatisfy(CompactJWS.isBase64URL) else {
                throw .invalid("rid \"\(text.prefix(40))\" is not 1–24 base64url characters with an optional .timestamp")
            }
            var ts: Double? = nil
            if parts.count == 2 {
                guard let t = Double(parts[1]), t.isFinite, parts[1].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) else {
                    throw .invalid("rid \"\(text.prefix(40))\" has a timestamp that is not a number")
                }
                ts = t
            }
            entries.append(Entry(rid: String(rid), timestamp: ts))
        }
        self.init(keyID: kid, method: method, counter: ctr, entries: entries)
    }

    /// Whether a card with this rid and `nbf` is revoked: listed without a timestamp, or with a
    /// timestamp later than the card's `nbf`.
    public func revokes(rid: String, notBefore: Double) -> Bool {
        entries.contains { $0.rid == rid && ($0.timestamp.map { notBefore < $0 } ?? true) }
    }

    /// Problems with the list itself, for a key with the given id and `crlVersion`.
    public func problems(keyID expected: String, crlVersion: Int) -> [String] {
        var out: [String] = []
        if keyID != expected { out.append("the list is for key \(keyID), not \(expected)") }
        if method != "rid" { out.append("unsupported revocation method \(method)") }
        if counter != crlVersion { out.append("list ctr \(counter) does not match the key's crlVersion \(crlVersion)") }
        return out
    }
}

/// Why a revocation list could not be read.
public enum RevocationListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The list is not valid.
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let m): return "invalid revocation list: \(m)"
        }
    }
}
