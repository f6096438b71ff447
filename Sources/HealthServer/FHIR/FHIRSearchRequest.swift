import Foundation

/// A FHIR search as asked, reduced to what the server answers: the resource type, whether it
/// is a Patient's `$everything`, and the parameters the server knows for it, in the order
/// given. Unknown parameters are dropped here (FHIR's lenient handling): they neither filter
/// nor appear in the self link. It is what a `_page` token carries, so later pages repeat the
/// same search.
struct FHIRSearchRequest: Codable, Hashable, Sendable {
    /// One parameter: its name as given (with any modifier) and its value.
    struct Parameter: Codable, Hashable, Sendable {
        let name: String
        let value: String
    }

    /// The resource type searched (`Patient` for `$everything`).
    let resourceType: String
    /// Whether this is `Patient/{id}/$everything`.
    let everything: Bool
    /// The known parameters, in request order.
    let parameters: [Parameter]

    /// The result parameters every search takes.
    static let resultParameters: Set<String> = ["_count", "_sort"]
    /// The parameters `$everything` takes.
    static let everythingParameters: Set<String> = ["_count", "_since", "_type"]

    /// Keeps the parameters the server knows for the type.
    init(resourceType: String, everything: Bool, parameters raw: [(String, String)]) {
        self.resourceType = resourceType
        self.everything = everything
        self.parameters = raw.compactMap { name, value in
            let base = String(name.prefix { $0 != ":" })
            let known = everything
                ? Self.everythingParameters.contains(base)
                : Self.resultParameters.contains(base) || FHIRResourceTypes.parameter(base, of: resourceType) != nil
            return known ? Parameter(name: name, value: value) : nil
        }
    }

    /// The query string of the self link: the known parameters, percent-encoded.
    var queryString: String {
        parameters.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
    }

    /// Percent-encodes every byte but ASCII letters, digits and `-._~:/,` (byte by byte:
    /// Foundation's `addingPercentEncoding` took a twentieth of a new search's time).
    static func encode(_ text: String) -> String {
        if text.utf8.allSatisfy(isAllowed) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isAllowed(byte) {
                out.append(byte)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: ","): return true
        default: return false
        }
    }
}
