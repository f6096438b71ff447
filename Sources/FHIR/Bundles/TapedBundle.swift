import Foundation
import Synchronization

/// A Bundle read only as far as its tape: its entries are found and its release decided, but
/// each entry becomes a JSON tree and a ``FHIRResource`` only when asked for, on whichever
/// thread asks. Storing a large page can then start with its first entries instead of after
/// the whole page has become one tree.
///
/// ``entry(_:)`` gives what ``FHIRBundle/entries`` holds, with the same errors for the same
/// entry; a whole-bundle error (an `entry` that is not an array, too many entries) is thrown
/// when the bundle is read.
public struct TapedBundle: Sendable {
    /// `Bundle.type`.
    public let type: String?
    /// The release the bundle is read as (the reader's, or the majority of its entries').
    public let fhirVersion: FHIRVersion
    private let tape: JSONTape
    private let reader: FHIRBundleReader
    /// Each entry's `fullUrl` and the token of its resource, in document order.
    private let slots: [(fullUrl: String?, token: Int)]
    private let lookup: ReferenceIndex

    /// How many entries carry a resource.
    public var count: Int { slots.count }

    /// Reads the bundle at the tape's root; `nil` when the root is not a Bundle.
    init?(tape: JSONTape, data: Data, reader: FHIRDocumentReader, sourceURL: URL?) throws(FHIRError) {
        let root = tape.root
        guard tape.kind(root) == .object, let typeToken = tape.member(root, "resourceType"), tape.string(typeToken) == "Bundle" else { return nil }
        var collected: [(fullUrl: String?, token: Int)] = []
        try Self.collect(tape, root, into: &collected, depth: 0, maxEntries: reader.maxBundleEntries)
        self.tape = tape
        slots = collected
        type = tape.member(root, "type").flatMap { tape.string($0) }
        fhirVersion = reader.fhirVersion ?? FHIRVersion.primary(for: FHIRBundleReader.majority(collected.map { Self.release(tape, $0.token) }))
        self.reader = FHIRBundleReader(data: data, versionHint: fhirVersion, maxEntries: reader.maxBundleEntries, sourceURL: sourceURL)
        lookup = ReferenceIndex()
    }

    /// The `resourceType` entry `i` states, read from the tape (`nil` when it is not a string).
    public func resourceType(_ i: Int) -> String? { tape.member(slots[i].token, "resourceType").flatMap { tape.string($0) } }

    /// Entry `i` made into a resource, as ``FHIRBundle/entries`` holds it.
    public func entry(_ i: Int) throws(FHIRError) -> FHIRBundle.Entry {
        try reader.entry(index: i, fullUrl: slots[i].fullUrl, object: tape.object(slots[i].token)!, version: fhirVersion)
    }

    /// Entry `i` as ``entry(_:)`` makes it, with the same errors, and its resource's object on
    /// the tape, to read in place: no tree is made (the resource parses its bytes only if its
    /// JSON is asked for), and the resource's bytes are a slice of the page's (indexed from their
    /// `startIndex`), not a copy. Classifying a resource reads a few members, while most of a
    /// page's bytes are narratives and attachments.
    public func entryOnTape(_ i: Int) throws(FHIRError) -> (entry: FHIRBundle.Entry, object: TapeObject) {
        let token = slots[i].token
        // What makes the entry (its type and id, checked with the tree reader's errors) as a
        // two-member object spanning the whole resource's bytes.
        var members: [JSONMember] = []
        for name: StaticString in ["resourceType", "id"] {
            if let v = tape.member(token, name) { members.append(JSONMember(name.description, tape.value(v))) }
        }
        let byteRange = tape.byteRange(token)
        let head = JSONObject(members, sourceRange: byteRange)
        let entry = try reader.entry(index: i, fullUrl: slots[i].fullUrl, object: head, version: fhirVersion, whole: false)
        return (entry, TapeObject(tape, token)!)
    }

    /// The object of the entry a reference points to, found as ``resource(for:)`` finds it.
    public func object(for reference: String) -> TapeObject? {
        // Only an entry that reads as a resource (its type and id valid), as `resource(for:)` gives.
        guard let index = slot(for: reference), (try? entryOnTape(index).entry.resource) != nil else { return nil }
        return TapeObject(tape, slots[index].token)
    }

    /// The resource a reference points to, found as ``FHIRBundle/entry(for:)`` finds it.
    public func resource(for reference: String) -> FHIRResource? {
        slot(for: reference).flatMap { try? entry($0).resource }
    }

    /// The entry a reference names: by `fullUrl`, else by `Type/id`.
    private func slot(for reference: String) -> Int? {
        let (byURL, byTypeAndID) = lookup.tables { build() }
        return byURL[reference] ?? Reference(reference: reference).typeAndIdentifier.flatMap { byTypeAndID[$0.type + "/" + $0.identifier] }
    }

    /// Gathers the entry resources' tokens, in the tree reader's order and with its errors.
    private static func collect(
        _ tape: JSONTape, _ bundle: Int, into out: inout [(fullUrl: String?, token: Int)], depth: Int, maxEntries: Int
    ) throws(FHIRError) {
        guard let list = tape.member(bundle, "entry") else { return }
        guard tape.kind(list) == .array else { throw .invalidBundleEntry(index: 0, reason: "Bundle.entry is not an array") }
        for (k, entry) in tape.elements(list).enumerated() {
            guard tape.kind(entry) == .object else { throw .invalidBundleEntry(index: k, reason: "entry is not an object") }
            guard let resource = tape.member(entry, "resource") else { continue }  // response-only entries carry no resource
            guard tape.kind(resource) == .object else { throw .invalidBundleEntry(index: k, reason: "entry.resource is not an object") }
            if let type = tape.member(resource, "resourceType"), tape.string(type) == "Bundle", depth < 4, tape.member(resource, "entry") != nil {
                try collect(tape, resource, into: &out, depth: depth + 1, maxEntries: maxEntries)
                continue
            }
            if out.count >= maxEntries { throw .tooManyEntries(limit: maxEntries) }
            out.append((tape.member(entry, "fullUrl").flatMap { tape.string($0) }, resource))
        }
    }

    /// The release an entry's content points to, read in place.
    private static func release(_ tape: JSONTape, _ token: Int) -> FHIRRelease? {
        guard let name = tape.member(token, "resourceType").flatMap({ tape.string($0) }) else { return nil }
        let type = FHIRResourceType(name)
        guard type.isWellFormed else { return nil }
        return FHIRReleaseDetector.release(of: tape, at: token, type: type)
    }

    /// The first entry of each `fullUrl` and of each `Type/id` (the id as the entry's resource will have it).
    private func build() -> ([String: Int], [String: Int]) {
        var byURL: [String: Int] = [:]
        var byTypeAndID: [String: Int] = [:]
        for (i, slot) in slots.enumerated() {
            if let url = slot.fullUrl, byURL[url] == nil { byURL[url] = i }
            guard let type = resourceType(i) else { continue }
            let id: String
            if let idToken = tape.member(slot.token, "id") {
                // An id that is not a string fails the entry itself; nothing can point to it.
                guard let text = tape.string(idToken) else { continue }
                id = text
            } else {
                id = FHIRBundleReader.identifier(fullUrl: slot.fullUrl) ?? FHIRBundleReader.derivedIdentifier(reader.data, range: tape.byteRange(slot.token))
            }
            if byTypeAndID[type + "/" + id] == nil { byTypeAndID[type + "/" + id] = i }
        }
        return (byURL, byTypeAndID)
    }

    /// The reference tables, made on first use (most pages never resolve a reference).
    private final class ReferenceIndex: Sendable {
        private let state = Mutex<([String: Int], [String: Int])?>(nil)

        func tables(_ make: () -> ([String: Int], [String: Int])) -> ([String: Int], [String: Int]) {
            state.withLock { s in
                if let s { return s }
                let made = make()
                s = made
                return made
            }
        }
    }
}

extension FHIRDocumentReader {
    /// Reads the Bundle at a tape's root without making its entries into trees (see
    /// ``TapedBundle``); `nil` when the document is not a Bundle.
    public func tapedBundle(_ tape: JSONTape, data: Data, sourceURL: URL? = nil) throws(FHIRError) -> TapedBundle? {
        try TapedBundle(tape: tape, data: data, reader: self, sourceURL: sourceURL)
    }
}
