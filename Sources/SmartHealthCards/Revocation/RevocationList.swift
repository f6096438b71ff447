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

        /// Makes an entry; a `nil` timestamp revokes every card with the rid, whatever its `nbf`.
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

    /// Makes a list as given; unlike ``init(data:)``, nothing checks the rids for form or repeats.
    public init(keyID: String, method: String = "rid", counter: Int, entries: [Entry]) {
        self.keyID = keyID
        self.method = method
        self.counter = counter
        self.entries = entries
    }

    /// Reads a list from JSON, refusing one that lists a malformed rid or a rid twice: both are
    /// issuer errors, and guessing past them could let a revoked card through.
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
        var firstIndex: [String: Int] = [:]
        for (index, r) in rids.enumerated() {
            guard let text = r.stringValue else { throw .invalid("a rid is not a string") }
            let entry: Entry
            do { entry = try Entry(listed: text) } catch { throw .ridMalformed(index: index, entry: text, problem: error) }
            // A rid listed twice (with or without timestamps) leaves its cards' fate to a guess.
            if let first = firstIndex[entry.rid] { throw .ridDuplicate(rid: entry.rid, firstIndex: first, index: index) }
            firstIndex[entry.rid] = index
            entries.append(entry)
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
