import Foundation
import HealthVocabulary

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
    var bytes: [UInt8] {
        var links: [EncodedJSON] = [.object([("relation", .string("self")), ("url", .string(selfURL))])]
        if let nextURL { links.append(.object([("relation", .string("next")), ("url", .string(nextURL))])) }
        var members: [(String, EncodedJSON)] = [
            ("resourceType", .string("Bundle")), ("type", .string("searchset")), ("total", .int(total)), ("link", .array(links)),
        ]
        if !entries.isEmpty {
            members.append(
                ("entry", .array(entries.map { e in
                    .object([("fullUrl", .string(e.fullUrl)), ("resource", .raw(e.resource)), ("search", .object([("mode", .string(e.mode))]))])
                })))
        }
        // Sized once: a page of resources is tens of kilobytes, and growing by doubling copies it
        // several times.
        var out: [UInt8] = []
        out.reserveCapacity(entries.reduce(selfURL.utf8.count + (nextURL?.utf8.count ?? 0) + 256) { $0 + $1.resource.count + $1.fullUrl.utf8.count + 64 })
        EncodedJSON.object(members).write(to: &out)
        return out
    }
}
