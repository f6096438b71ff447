import FHIR
import Foundation

/// Writes a stored resource as the FHIR server serves it: its `id` replaced by the served id,
/// `meta.lastUpdated` (and, when given, `meta.versionId`: this server's version, as its ETag
/// says) set (a `meta` it lacks goes after the `id`), and references rewritten — and every other byte as stored, so
/// decimals keep their text (`5.40` stays `5.40`) and members their order.
///
/// It splices the stored bytes by the positions a ``JSONTape`` gives, rather than reading and
/// rewriting the JSON, so it costs one scan of the resource.
///
/// `contained` resources the reader may not see are left out, and every reference to one of
/// them (`#id`) becomes a Reference with only the data-absent-reason `masked`: its `display`
/// could name what was withheld.
enum ServedResourceWriter {
    /// What went wrong with stored bytes.
    enum WriteError: Error, Equatable {
        /// The stored bytes are not a JSON object (the store holds only objects; this means damage).
        case notAnObject
    }

    /// The served bytes of a resource.
    ///
    /// - Parameters:
    ///   - id: the served id.
    ///   - lastUpdated: the text of `meta.lastUpdated`.
    ///   - rewrite: the new value of a reference (`Reference.reference`), or `nil` to keep it.
    ///   - versionId: the new `meta.versionId`, or `nil` to keep the stored one.
    ///   - keepContained: whether a `contained` resource is served; `nil` keeps them all.
    static func write(
        _ data: Data, id: String, lastUpdated: String, versionId: String? = nil, rewrite: (String) -> String?,
        keepContained: ((JSONObject) -> Bool)? = nil
    ) throws -> Data {
        let tape = try JSONTape(Array(data))
        guard tape.kind(tape.root) == .object else { throw WriteError.notAnObject }
        var edits: [(range: Range<Int>, text: [UInt8])] = []
        let root = tape.root

        var withheld: Set<String> = []
        var removedMember: Int?
        if let keepContained, let contained = tape.member(root, "contained"), tape.kind(contained) == .array {
            let (ranges, ids) = leftOut(tape, root: root, contained: contained, keep: keepContained)
            withheld = ids
            for r in ranges { edits.append((r, [])) }
            if ranges.count == 1, ranges[0].contains(literal(tape, contained).lowerBound) { removedMember = contained }
        }
        if let idValue = tape.member(root, "id") {
            edits.append((literal(tape, idValue), quoted(id)))
        }
        let versionMember = versionId.map { "\"versionId\":" + String(decoding: quoted($0), as: UTF8.self) }
        let metaMember = "\"lastUpdated\":" + String(decoding: quoted(lastUpdated), as: UTF8.self)
        var rootInsert = ""
        if tape.member(root, "id") == nil { rootInsert += ",\"id\":" + String(decoding: quoted(id), as: UTF8.self) }
        if let meta = tape.member(root, "meta"), tape.kind(meta) == .object {
            var missing: [String] = []
            if let versionId, let stored = tape.member(meta, "versionId") {
                edits.append((literal(tape, stored), quoted(versionId)))
            } else if let versionMember {
                missing.append(versionMember)
            }
            if let updated = tape.member(meta, "lastUpdated") {
                edits.append((literal(tape, updated), quoted(lastUpdated)))
            } else {
                missing.append(metaMember)
            }
            if !missing.isEmpty {
                let open = tape.byteRange(meta).lowerBound + 1
                edits.append((open..<open, Array((missing.joined(separator: ",") + (tape.members(meta).isEmpty ? "" : ",")).utf8)))
            }
        } else if tape.member(root, "meta") == nil {
            rootInsert += ",\"meta\":{" + (versionMember.map { $0 + "," } ?? "") + metaMember + "}"
        }
        if !rootInsert.isEmpty, let after = tape.member(root, "id") ?? tape.members(root).first(where: { $0.value != removedMember })?.value {
            let end = literal(tape, after).upperBound
            edits.append((end..<end, Array(rootInsert.utf8)))
        }
        references(tape, root) { object, token in
            guard let old = tape.string(token) else { return }
            if old.hasPrefix("#"), old.count > 1, withheld.contains(String(old.dropFirst())) {
                edits.append((literal(tape, object), Array(masked.utf8)))
                return
            }
            guard let new = rewrite(old), new != old else { return }
            edits.append((literal(tape, token), quoted(new)))
        }

        // Insertions before the edits that start where they are; of overlapping edits the
        // widest wins (a left-out resource takes the edits inside it with it).
        edits.sort { a, b in
            if a.range.lowerBound != b.range.lowerBound { return a.range.lowerBound < b.range.lowerBound }
            if a.range.isEmpty != b.range.isEmpty { return a.range.isEmpty }
            return a.range.upperBound > b.range.upperBound
        }
        var out: [UInt8] = []
        out.reserveCapacity(tape.bytes.count + 128)
        var at = 0
        for e in edits where e.range.lowerBound >= at {
            out.append(contentsOf: tape.bytes[at..<e.range.lowerBound])
            out.append(contentsOf: e.text)
            at = e.range.upperBound
        }
        out.append(contentsOf: tape.bytes[at...])
        return Data(out)
    }

    /// A Reference that says only that its target was withheld.
    static let masked = #"{"extension":[{"url":"http://hl7.org/fhir/StructureDefinition/data-absent-reason","valueCode":"masked"}]}"#

    /// The byte ranges that remove the `contained` resources `keep` refuses (with their commas,
    /// or the whole member when none is kept), and the ids of those resources.
    private static func leftOut(
        _ tape: JSONTape, root: Int, contained: Int, keep: (JSONObject) -> Bool
    ) -> (ranges: [Range<Int>], ids: Set<String>) {
        let elements = tape.elements(contained)
        var kept: [Bool] = []
        var ids: Set<String> = []
        for e in elements {
            let object = tape.object(e)
            let keeps = object.map(keep) ?? false
            kept.append(keeps)
            if !keeps, let id = object?.string("id") { ids.insert(id) }
        }
        guard kept.contains(false) else { return ([], []) }
        guard kept.contains(true) else {
            // No resource is left: the member goes, with the comma before it (or after it,
            // when it is the first member).
            let members = tape.members(root)
            guard let at = members.firstIndex(where: { $0.value == contained }) else { return ([], ids) }
            let keyStart = tape.byteRange(members[at].key).lowerBound - 1
            let end = literal(tape, contained).upperBound
            if at > 0 { return ([literal(tape, members[at - 1].value).upperBound..<end], ids) }
            if at + 1 < members.count { return ([keyStart..<(tape.byteRange(members[at + 1].key).lowerBound - 1)], ids) }
            return ([keyStart..<end], ids)
        }
        // Each run of refused resources goes with the comma before it, or after it when the
        // run opens the array.
        var ranges: [Range<Int>] = []
        var i = 0
        while i < elements.count {
            guard !kept[i] else { i += 1; continue }
            var j = i
            while j + 1 < elements.count, !kept[j + 1] { j += 1 }
            let runEnd = literal(tape, elements[j]).upperBound
            if i > 0 {
                ranges.append(literal(tape, elements[i - 1]).upperBound..<runEnd)
            } else {
                ranges.append(literal(tape, elements[i]).lowerBound..<literal(tape, elements[j + 1]).lowerBound)
            }
            i = j + 1
        }
        return (ranges, ids)
    }

    /// Calls `body` with the object and the token of every string `reference` member inside a value.
    private static func references(_ tape: JSONTape, _ i: Int, _ body: (_ object: Int, _ reference: Int) -> Void) {
        switch tape.kind(i) {
        case .object:
            tape.forEachMember(i) { key, value in
                if tape.kind(value) == .string {
                    if tape.keyEquals(key, "reference") { body(i, value) }
                } else {
                    references(tape, value, body)
                }
            }
        case .array: tape.forEachElement(i) { references(tape, $0, body) }
        default: break
        }
    }

    /// The bytes of a value as written: a string with its quotes.
    private static func literal(_ tape: JSONTape, _ i: Int) -> Range<Int> {
        let r = tape.byteRange(i)
        return tape.kind(i) == .string ? (r.lowerBound - 1)..<(r.upperBound + 1) : r
    }

    private static func quoted(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writeString(s, to: &out)
        return out
    }
}
