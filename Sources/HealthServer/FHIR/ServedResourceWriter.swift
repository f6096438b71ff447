import FHIR
import Foundation

/// Writes a stored resource as the FHIR server serves it: its `id` replaced by the served id,
/// `meta.lastUpdated` set (a `meta` it lacks goes after the `id`), and references rewritten — and every other byte as stored, so
/// decimals keep their text (`5.40` stays `5.40`) and members their order.
///
/// It splices the stored bytes by the positions a ``JSONTape`` gives, rather than reading and
/// rewriting the JSON, so it costs one scan of the resource.
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
    static func write(_ data: Data, id: String, lastUpdated: String, rewrite: (String) -> String?) throws -> Data {
        let tape = try JSONTape(Array(data))
        guard tape.kind(tape.root) == .object else { throw WriteError.notAnObject }
        var edits: [(range: Range<Int>, text: [UInt8])] = []
        let root = tape.root

        if let idValue = tape.member(root, "id") {
            edits.append((literal(tape, idValue), quoted(id)))
        }
        let metaMember = "\"lastUpdated\":" + String(decoding: quoted(lastUpdated), as: UTF8.self)
        var rootInsert = ""
        if tape.member(root, "id") == nil { rootInsert += ",\"id\":" + String(decoding: quoted(id), as: UTF8.self) }
        if let meta = tape.member(root, "meta"), tape.kind(meta) == .object {
            if let updated = tape.member(meta, "lastUpdated") {
                edits.append((literal(tape, updated), quoted(lastUpdated)))
            } else {
                let open = tape.byteRange(meta).lowerBound + 1
                edits.append((open..<open, Array((metaMember + (tape.members(meta).isEmpty ? "" : ",")).utf8)))
            }
        } else if tape.member(root, "meta") == nil {
            rootInsert += ",\"meta\":{" + metaMember + "}"
        }
        if !rootInsert.isEmpty, let after = tape.member(root, "id") ?? tape.members(root).first?.value {
            let end = literal(tape, after).upperBound
            edits.append((end..<end, Array(rootInsert.utf8)))
        }
        references(tape, root) { token in
            guard let old = tape.string(token), let new = rewrite(old), new != old else { return }
            edits.append((literal(tape, token), quoted(new)))
        }

        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
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

    /// Calls `body` with the token of every string `reference` member inside a value.
    private static func references(_ tape: JSONTape, _ i: Int, _ body: (Int) -> Void) {
        switch tape.kind(i) {
        case .object:
            tape.forEachMember(i) { key, value in
                if tape.kind(value) == .string {
                    if tape.keyEquals(key, "reference") { body(value) }
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
