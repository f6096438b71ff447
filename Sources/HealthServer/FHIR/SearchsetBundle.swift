import FHIR
import Foundation

/// A searchset Bundle: `total`, `self` and `next` links (absolute), and one entry per resource
/// with its absolute `fullUrl`, the served bytes as they are, and its search mode.
struct SearchsetBundle {
    /// One entry.
    struct Entry {
        let fullUrl: String
        let resource: Data
        /// `match`, or `include` for a resource returned beside the matches.
        let mode: String
    }

    let total: Int
    let selfURL: String
    let nextURL: String?
    let entries: [Entry]

    /// The minified JSON; an empty search has no `entry` (FHIR JSON has no empty arrays).
    /// Written straight into one buffer sized once: a page of resources is tens of kilobytes,
    /// and a tree of values per entry or growing by doubling cost more than the copying.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.reduce(selfURL.utf8.count + (nextURL?.utf8.count ?? 0) + 256) { $0 + $1.resource.count + $1.fullUrl.utf8.count + 64 })
        out.append(contentsOf: #"{"resourceType":"Bundle","type":"searchset","total":"#.utf8)
        out.append(contentsOf: String(total).utf8)
        out.append(contentsOf: #","link":[{"relation":"self","url":"#.utf8)
        JSONWriter.writeString(selfURL, to: &out)
        if let nextURL {
            out.append(contentsOf: #"},{"relation":"next","url":"#.utf8)
            JSONWriter.writeString(nextURL, to: &out)
        }
        out.append(contentsOf: "}]".utf8)
        if !entries.isEmpty {
            out.append(contentsOf: #","entry":["#.utf8)
            for (i, e) in entries.enumerated() {
                out.append(contentsOf: (i == 0 ? #"{"fullUrl":"# : #",{"fullUrl":"#).utf8)
                JSONWriter.writeString(e.fullUrl, to: &out)
                out.append(contentsOf: #","resource":"#.utf8)
                e.resource.withUnsafeBytes { out.append(contentsOf: $0) }
                out.append(contentsOf: #","search":{"mode":"#.utf8)
                JSONWriter.writeString(e.mode, to: &out)
                out.append(contentsOf: "}}".utf8)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
